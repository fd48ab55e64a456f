package params_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/params"
)

func TestCustomParams(t *testing.T) {
	tests := []struct {
		name, destination string
		want              map[string]string
	}{
		{"custom_params echoes the destination's query", "https://shop.example/p?id=42&color=red", map[string]string{"id": "42", "color": "red"}},
		{"the first value of a repeated key", "https://shop.example/p?tag=a&tag=b", map[string]string{"tag": "a"}},
		{"values are decoded", "https://shop.example/p?q=red+shoes&x=%26", map[string]string{"q": "red shoes", "x": "&"}},
		{"a blank value is kept", "https://shop.example/p?promo=", map[string]string{"promo": ""}},
		{"the fragment is not the query", "https://shop.example/p#a=1", map[string]string{}},
		{"a query after the fragment mark is the fragment's", "https://shop.example/p?x=1#a?b=2", map[string]string{"x": "1"}},
		{"pairs url.ParseQuery drops are dropped", "https://shop.example/p?a=%zz&b=1;2&=3&c=4", map[string]string{"c": "4"}},
		{"a custom scheme", "myapp://product?id=42", map[string]string{"id": "42"}},
		{"no query gives an empty object, not null", "https://shop.example/", map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := params.CustomParams(tt.destination)
			assert.NotNil(t, got)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestUTMFromURL(t *testing.T) {
	got := params.UTMFromURL("https://shop.example/p?utm_source=&utm_source=tw&utm_medium=social&utm_campaign=spring+sale&utm_term=t&utm_content=c&utm_id=7#utm_source=frag")
	assert.Equal(t, params.UTMValues{Source: "tw", Medium: "social", Campaign: "spring sale", Term: "t", Content: "c"}, got)
	assert.Equal(t, params.UTMValues{}, params.UTMFromURL("https://shop.example/p"))
	assert.Equal(t, params.UTMValues{Source: "a"}, params.UTMFromQuery("?utm_source=a&UTM_MEDIUM=b"))
}

func TestClickUTM(t *testing.T) {
	tap := "utm_source=tap&utm_medium=social"
	opts := params.Options{StoreHosts: []string{"store.hop.example"}}
	tests := []struct {
		name, final string
		want        params.UTMValues
	}{
		{"UTM rule 4: a web destination records the values of the final URL", "https://shop.example/?utm_source=final&utm_campaign=c", params.UTMValues{Source: "final", Campaign: "c"}},
		{"UTM rule 4: the App Store keeps the values of the tap", "https://apps.apple.com/app/id1?utm_source=store", params.UTMValues{Source: "tap", Medium: "social"}},
		{"UTM rule 4: the Play Store keeps the values of the tap", "https://play.google.com/store?id=x", params.UTMValues{Source: "tap", Medium: "social"}},
		{"UTM rule 4: our own store host keeps the values of the tap", "https://store.hop.example/x", params.UTMValues{Source: "tap", Medium: "social"}},
		{"UTM rule 4: an app scheme keeps the values of the tap", "myapp://x?utm_source=app", params.UTMValues{Source: "tap", Medium: "social"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, params.ClickUTM(tt.final, tap, opts))
		})
	}
}
