package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/hoplink/hoplink/client"
)

// A back end creates a link and reads its clicks with an API key.
func Example() {
	ctx := context.Background()
	c, err := client.New("https://api.example.com", os.Getenv("HOPLINK_API_KEY"),
		client.WithUserAgent("acme-backend/1.0"))
	if err != nil {
		log.Fatal(err)
	}
	link, err := c.CreateLink(ctx, client.CreateLinkRequest{
		DestinationURL: "https://shop.example/spring",
		Slug:           client.Ptr("spring"),
		AppID:          client.Ptr("0193a8f2-0000-7000-8000-000000000001"),
		Tags:           []string{"email"},
	})
	var apiErr *client.Error
	if errors.As(err, &apiErr) && apiErr.Code == client.CodeSlugTaken {
		log.Fatalf("the slug is taken on %v", apiErr.Details["domain"])
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(link.ShortURL)

	// Every link tagged "email", page after page.
	for l, err := range c.AllLinks(ctx, client.ListLinksParams{Tag: "email"}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(l.Slug, l.IsActive)
	}

	clicks, err := c.GetAnalyticsTimeseries(ctx, client.TimeseriesParams{Interval: "day",
		AnalyticsFilters: client.AnalyticsFilters{LinkID: link.ID, From: time.Now().AddDate(0, 0, -7)}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(clicks.Total.Clicks, "clicks,", clicks.Total.Installs, "installs")
}

// A Go back end resolves the link a user tapped with an SDK key, then
// reports the install it led to.
func Example_sdk() {
	ctx := context.Background()
	sdk, err := client.New("https://api.example.com", os.Getenv("HOPLINK_SDK_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	link, err := sdk.ResolveLink(ctx, "spring", client.ResolveParams{
		Domain: "acme.hop.example",
		TapID:  "0193a8f2-0000-7000-8000-00000000000a", // the same on every retry of the tap
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(link.DestinationURL, link.CustomParams)

	m, err := sdk.MatchAttribution(ctx, client.MatchRequest{
		Platform: "android", FingerprintVersion: "basic", SDKVersion: "1.0.0",
		Referrer: "hop_click_id=0193a8f2-0000-7000-8000-00000000000a", AppID: "com.acme.shop",
	})
	if err != nil {
		log.Fatal(err)
	}
	if m.Matched {
		fmt.Println("install", m.InstallID, "came from link", m.LinkID)
	}
}

// An update sends only the fields it sets: Null clears a field, Value sets
// one, and the rest keep their values.
func ExampleNullable() {
	body, _ := json.Marshal(client.UpdateLinkRequest{
		Name:     client.Null[string](),
		OGTitle:  client.Value("Spring sale"),
		IsActive: client.Ptr(false),
	})
	fmt.Println(string(body))
	// Output: {"name":null,"og_title":"Spring sale","is_active":false}
}

// Errors carry the envelope's code, the validation details and the request
// id to quote to the operator.
func ExampleError() {
	c, _ := client.New("https://api.example.com", os.Getenv("HOPLINK_API_KEY"))
	_, err := c.CreateApp(context.Background(), client.CreateAppRequest{Name: ""})
	var apiErr *client.Error
	if errors.As(err, &apiErr) {
		switch apiErr.Code {
		case client.CodeValidationError:
			for _, f := range apiErr.Fields {
				fmt.Println(f.Field, f.Message)
			}
		case client.CodeRateLimitExceeded:
			fmt.Println("retry after", apiErr.RetryAfter)
		default:
			fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.Message, apiErr.RequestID)
		}
	}
}
