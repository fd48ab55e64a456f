// Command embed-redirect serves short links from its own net/http server with
// Hoplink's packages and no fx or Hoplink binary: store on in-memory SQLite,
// org for the tenant, linking for apps, links and the cached resolver, and
// the link-domain handler of httpapi. It creates one app and two links, then
// listens until interrupted.
//
// Run it with: go run ./examples/embed-redirect
//
// Then, in another terminal:
//
//	curl -i http://hop.localhost:8090/spring                    # desktop: the destination, with UTM tags
//	curl -i -A 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X)' http://shop.hop.localhost:8090/get
//	curl -i -A 'Twitterbot/1.0' http://hop.localhost:8090/spring   # a bot gets the preview page
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
)

const (
	addr       = "127.0.0.1:8090"
	linkDomain = "hop.localhost"
)

func main() {
	ctx := context.Background()
	s, err := store.Open(ctx, ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		log.Fatal(err)
	}

	// The resolver caches links for the handler; the services tell it of
	// every write so that changes are served at once.
	resolver := linking.NewResolver(s, linking.ResolverOptions{DefaultLinkDomain: linkDomain})
	apps := linking.NewAppService(s, s, linking.AppServiceOptions{
		DefaultLinkDomain: linkDomain,
		OnAppChange:       func(uuid.UUID) { resolver.InvalidateAll() },
	})
	links := linking.NewLinkService(s, s, s, linking.LinkServiceOptions{
		DefaultLinkDomain: linkDomain,
		ShortURLBase:      "http://{domain}:8090",
		Cache:             resolver,
	})

	// An organization and a principal acting for it with every scope.
	o, _, err := org.NewService(s, org.ServiceOptions{}).Create(ctx, "Example", org.PlanStarter)
	if err != nil {
		log.Fatal(err)
	}
	p := &auth.Principal{OrgID: o.ID, Scopes: auth.NewScopeSet(auth.AllScopes)}

	app, err := apps.Create(ctx, p, linking.AppInput{
		Name:           apitype.Some("Shop"),
		IOSAppStoreURL: apitype.Some("https://apps.apple.com/app/id123456789"),
	})
	if err != nil {
		log.Fatal(err)
	}
	// A legacy app may also put links on the default link domain.
	if _, err := apps.SetLegacy(ctx, app.ID, true); err != nil {
		log.Fatal(err)
	}
	for _, in := range []linking.CreateLinkInput{
		{DestinationURL: "https://example.com/spring-sale", Slug: ptr("spring"), Domain: ptr(linkDomain),
			AppID: &app.ID, UTMSource: ptr("newsletter"), UTMCampaign: ptr("spring"), OGTitle: ptr("Spring sale")},
		{DestinationURL: "https://example.com/get", Slug: ptr("get"), AppID: &app.ID},
	} {
		l, err := links.Create(ctx, p, in)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("serving", l.ShortURL, "->", l.DestinationURL)
	}

	handler := httpapi.NewLinkDomain(httpapi.LinkDomainOptions{Resolver: resolver, Ready: s.Ping,
		ShortURLBase: "http://{domain}:8090"})
	srv := &http.Server{Addr: addr, Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
			log.Fatal(err)
		}
	}()

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	<-stop
	shutdown, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		log.Print(err)
	}
}

func ptr[T any](v T) *T { return &v }
