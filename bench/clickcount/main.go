// Command clickcount prints, as one JSON object, how many clicks a Hoplink
// database stores (those of its click segments), how many of them are also
// rows of the clicks table (on PostgreSQL those attribution reads; on SQLite
// taps, claimed clicks and clicks whose ids carry another time), and the sum of its
// click_counts (the clicks counted toward allowances, stored or not). The redirect load test
// (bench/redirect-load.sh) uses it after stopping the server, because the
// sqlite3 shell may not be installed.
//
//	go run ./bench/clickcount -db /path/to/hoplink.db
package main

import (
	"context"
	"encoding/json"
	"flag"
	"log"
	"os"
	"time"

	"github.com/hoplink/hoplink/store"
)

func main() {
	db := flag.String("db", "hoplink.db", "SQLite file path or postgres:// DSN")
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := store.Open(ctx, *db)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	var out struct {
		Clicks  int64 `json:"clicks"`
		Rows    int64 `json:"rows"`
		Counted int64 `json:"counted"`
	}
	if err := s.DB().NewRaw("SELECT coalesce(sum(clicks), 0) FROM click_segments").Scan(ctx, &out.Clicks); err != nil {
		log.Fatal(err)
	}
	if err := s.DB().NewRaw("SELECT count(*) FROM clicks").Scan(ctx, &out.Rows); err != nil {
		log.Fatal(err)
	}
	if err := s.DB().NewRaw("SELECT coalesce(sum(count), 0) FROM click_counts").Scan(ctx, &out.Counted); err != nil {
		log.Fatal(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		log.Fatal(err)
	}
}
