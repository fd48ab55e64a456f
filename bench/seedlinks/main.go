// Command seedlinks copies one link of a Hoplink database into more links
// on the same domain, so that the redirect load test (bench/redirect-load.sh,
// LINKS) spreads its requests over many links as real traffic does: the
// copies of link SLUG are SLUG-2 to SLUG-N, with its app, destination and
// UTM values. It writes through the store, as the API would, without the
// API's rate limit (60 requests a minute a key).
//
//	go run ./bench/seedlinks -db /path/to/hoplink.db -domain hop.example -slug bench -n 1000
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
)

func main() {
	db := flag.String("db", "hoplink.db", "SQLite file path or postgres:// DSN")
	domain := flag.String("domain", "", "the link domain of the link to copy")
	slug := flag.String("slug", "bench", "the slug of the link to copy")
	n := flag.Int("n", 1, "how many links the domain holds of it after, the link itself included")
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := store.Open(ctx, *db)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	l, err := s.LinkByDomainSlug(ctx, *domain, *slug)
	if err != nil {
		log.Fatalf("link %s/%s: %v", *domain, *slug, err)
	}
	for i := 2; i <= *n; i++ {
		c := *l
		c.ID = uuid.Must(uuid.NewV7())
		c.Slug = fmt.Sprintf("%s-%d", *slug, i)
		c.CreatedAt, c.UpdatedAt = time.Now().UTC(), time.Now().UTC()
		if err := s.CreateLink(ctx, &c, linking.LinkQuota{}); err != nil {
			log.Fatalf("link %s: %v", c.Slug, err)
		}
	}
}
