// Command go-client shows how a Go back end scripts a Hoplink server with
// package client: it makes sure the organization has an app, creates a
// link, resolves it once as a mobile SDK would (one click), and prints the
// organization's links and the link's clicks by day and by platform.
//
// Run it against a server with an API key that has the scopes apps:write,
// links:write, keys:write and analytics:read (the bootstrap key that
// `hoplink serve` prints has them):
//
//	HOPLINK_URL=http://localhost:8080 HOPLINK_API_KEY=svc_live_... go run ./examples/go-client
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/hoplink/hoplink/client"
)

func main() {
	url, key := os.Getenv("HOPLINK_URL"), os.Getenv("HOPLINK_API_KEY")
	if url == "" || key == "" {
		log.Fatal("set HOPLINK_URL (for example http://localhost:8080) and HOPLINK_API_KEY")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, url, key); err != nil {
		var apiErr *client.Error
		if errors.As(err, &apiErr) {
			log.Fatalf("%s (request %s, details %v)", apiErr, apiErr.RequestID, apiErr.Details)
		}
		log.Fatal(err)
	}
}

// run does the walk-through against the server at url with key, writing
// what it does to out.
func run(ctx context.Context, out io.Writer, url, key string) error {
	c, err := client.New(url, key, client.WithUserAgent("hoplink-example/go-client"))
	if err != nil {
		return err
	}

	// Links need an app: take the first one or make one.
	var app *client.App
	for a, err := range c.AllApps(ctx, client.ListAppsParams{}) {
		if err != nil {
			return err
		}
		app = &a
		break
	}
	if app == nil {
		if app, err = c.CreateApp(ctx, client.CreateAppRequest{Name: "Example Shop",
			IOSBundleID: client.Ptr("com.example.shop"), AndroidPackageName: client.Ptr("com.example.shop")}); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "app %s on %s\n", app.Name, app.LinkDomain)

	// No slug: the server picks one, so running the example twice never
	// collides.
	link, err := c.CreateLink(ctx, client.CreateLinkRequest{
		DestinationURL: "https://shop.example/spring",
		AppID:          &app.ID,
		Tags:           []string{"example"},
		UTMCampaign:    client.Ptr("spring"),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "created %s\n", link.ShortURL)

	// One tap as a mobile SDK resolves it, with an SDK key made for the
	// purpose and revoked afterwards.
	sdkKey, err := c.CreateKey(ctx, client.CreateKeyRequest{Name: "go-client example", Type: "sdk"})
	if err != nil {
		return err
	}
	sdk, err := client.New(url, sdkKey.RawKey)
	if err != nil {
		return err
	}
	if _, err := sdk.ResolveLink(ctx, link.Slug, client.ResolveParams{Domain: link.Domain}); err != nil {
		return err
	}
	if err := c.RevokeKey(ctx, sdkKey.ID); err != nil {
		return err
	}

	n := 0
	for l, err := range c.AllLinks(ctx, client.ListLinksParams{Tag: "example"}) {
		if err != nil {
			return err
		}
		n++
		if l.ID == link.ID {
			fmt.Fprintf(out, "listed %s among the example links\n", l.Slug)
		}
	}
	fmt.Fprintf(out, "%d example links\n", n)

	// Clicks are written in batches: the one above may take a moment to
	// be counted.
	filters := client.AnalyticsFilters{LinkID: link.ID}
	series, err := c.GetAnalyticsTimeseries(ctx, client.TimeseriesParams{AnalyticsFilters: filters, Interval: "day"})
	if err != nil {
		return err
	}
	for _, day := range series.Data {
		if day.Clicks > 0 {
			fmt.Fprintf(out, "%s: %d clicks, %d installs\n", day.Start.Format(time.DateOnly), day.Clicks, day.Installs)
		}
	}
	fmt.Fprintf(out, "total: %d clicks\n", series.Total.Clicks)
	byPlatform, err := c.GetAnalyticsBreakdown(ctx, client.BreakdownParams{AnalyticsFilters: filters, By: "platform"})
	if err != nil {
		return err
	}
	for _, row := range byPlatform.Data {
		value := "(none)"
		if row.Value != nil {
			value = *row.Value
		}
		fmt.Fprintf(out, "platform %s: %d clicks\n", value, row.Clicks)
	}
	return nil
}
