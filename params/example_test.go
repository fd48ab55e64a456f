package params_test

import (
	"encoding/json"
	"fmt"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/params"
)

// The worked example of the package documentation.
func Example() {
	orgDefaults := &params.OrgConfig{
		Injected: []params.InjectedParam{{Key: "ref", Value: "hoplink", Mode: params.ModeInherit}},
	}
	linkConfig := &params.LinkConfig{
		Injected: []params.InjectedParam{
			{Key: "utm_content", Value: "spring-banner", Mode: params.ModeAlways},
			{Key: "lang", Value: "en", Mode: params.ModeInherit},
		},
		DefaultMode:        params.ModeDefault,
		InheritOrgInjected: true,
		SuppressedOrgKeys:  []string{},
	}
	fields := params.UTMFields{Source: "newsletter", Medium: "email", Campaign: "spring"}
	tap := "utm_source=twitter&utm_content=mine&utm_id=7&foo=bar"

	eff := params.Merge(orgDefaults, linkConfig)
	for _, target := range []string{
		"https://shop.example/p?id=42&utm_medium=web&lang=fr#reviews",
		"https://play.google.com/store/apps/details?id=com.example.shop",
		"shopapp://product/42",
	} {
		got, err := params.Apply(target, tap, eff, fields, params.Options{})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(got)
	}
	// Output:
	// https://shop.example/p?id=42&utm_medium=web&lang=fr&ref=hoplink&utm_content=spring-banner&utm_source=twitter&utm_campaign=spring#reviews
	// https://play.google.com/store/apps/details?id=com.example.shop&ref=hoplink&lang=en
	// shopapp://product/42?ref=hoplink&lang=en
}

func ExampleMerge() {
	orgDefaults := &params.OrgConfig{
		Injected: []params.InjectedParam{
			{Key: "ref", Value: "hoplink", Mode: params.ModeAlways},
			{Key: "src", Value: "org", Mode: params.ModeInherit},
			{Key: "team", Value: "growth", Mode: params.ModeInherit},
		},
		DefaultMode: params.ModeAlways,
	}
	linkConfig := &params.LinkConfig{
		Injected:           []params.InjectedParam{{Key: "ref", Value: "spring", Mode: params.ModeInherit}},
		InheritOrgInjected: true,
		SuppressedOrgKeys:  []string{"team"},
	}
	eff := params.Merge(orgDefaults, linkConfig)
	for _, p := range eff.Injected {
		fmt.Printf("%s=%s (%s)\n", p.Key, p.Value, p.Mode)
	}
	fmt.Println("forwarding:", eff.Forwarding.Allowlist)
	// Output:
	// src=org (always)
	// ref=spring (always)
	// forwarding: [utm_source utm_medium utm_campaign utm_term utm_content]
}

func ExampleDecodeLinkConfig() {
	_, err := params.DecodeLinkConfig([]byte(`{
		"injected": [{"key": "ref", "value": "hoplink"}],
		"inheritOrgInjected": true,
		"suppressedOrgKeys": [],
		"forwarding": null
	}`))
	e, _ := errcode.As(err)
	fmt.Println(e.Code)
	for _, f := range e.Fields {
		fmt.Println(f.Field, f.Message)
	}
	// Output:
	// VALIDATION_ERROR
	// parameters.injected[0].mode is required
}

func ExampleCustomParams() {
	custom := params.CustomParams("https://shop.example/p?id=42&color=red&color=blue&promo=#top")
	body, _ := json.Marshal(custom)
	fmt.Println(string(body))
	// Output:
	// {"color":"red","id":"42","promo":""}
}

func ExampleClickUTM() {
	tap := "utm_source=twitter"
	web := "https://shop.example/p?utm_source=twitter&utm_campaign=spring"
	store := "https://apps.apple.com/app/id123?utm_source=store"
	fmt.Printf("%+v\n", params.ClickUTM(web, tap, params.Options{}))
	fmt.Printf("%+v\n", params.ClickUTM(store, tap, params.Options{}))
	// Output:
	// {Source:twitter Medium: Campaign:spring Term: Content:}
	// {Source:twitter Medium: Campaign: Term: Content:}
}
