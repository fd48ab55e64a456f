// Command minimal is the baseline of the redirect load test
// (bench/redirect-load.sh): a plain net/http server that answers
// GET /{slug} with a 302 to the URL an in-memory map holds for the slug,
// and 404 for any other path. It does nothing else: no database, no device
// classification, no click recording. With -slugs N the map also holds
// SLUG-2 to SLUG-N, to the same URL (the load test's LINKS).
//
//	go run ./bench/minimal -addr 127.0.0.1:18081 -slug bench -location https://shop.example/p
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18081", "listen address")
	slug := flag.String("slug", "bench", "the one slug the map holds")
	location := flag.String("location", "https://example.com/", "where the slug redirects")
	slugs := flag.Int("slugs", 1, "how many slugs the map holds: the slug, then slug-2 to slug-N")
	flag.Parse()

	links := map[string]string{*slug: *location}
	for i := 2; i <= *slugs; i++ {
		links[fmt.Sprintf("%s-%d", *slug, i)] = *location
	}
	mux := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		to, ok := links[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.Redirect(w, r, to, http.StatusFound)
	})
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
