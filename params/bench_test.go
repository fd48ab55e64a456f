package params_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/params"
)

// A typical link: a destination with three params, three injected params
// (one from the organization), the three UTM fields, and a visitor query
// with two UTM keys.
var (
	benchTarget  = "https://shop.example.com/products/shoes?id=42&color=red&size=m"
	benchVisitor = "utm_source=twitter&utm_medium=social"
	benchOrg     = &params.OrgConfig{
		Injected:    []params.InjectedParam{{Key: "ref", Value: "hoplink", Mode: params.ModeInherit}},
		DefaultMode: params.ModeDefault,
	}
	benchLink = &params.LinkConfig{
		Injected: []params.InjectedParam{
			{Key: "utm_content", Value: "spring-banner", Mode: params.ModeAlways},
			{Key: "promo", Value: "SPRING24", Mode: params.ModeInherit},
		},
		InheritOrgInjected: true,
		SuppressedOrgKeys:  []string{},
	}
	benchUTM = params.UTMFields{Source: "newsletter", Medium: "email", Campaign: "spring"}
	benchOut string
	benchEff params.Effective
)

func BenchmarkMerge(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchEff = params.Merge(benchOrg, benchLink)
	}
}

func BenchmarkApply(b *testing.B) {
	eff := params.Merge(benchOrg, benchLink)
	cases := []struct{ name, target string }{
		{"typical", benchTarget},
		{"already-applied", ""}, // the typical result applied again: nothing changes
		{"play-store", "https://play.google.com/store/apps/details?id=com.example.shop&hl=en&gl=us"},
		{"custom-scheme", "shopapp://products/shoes?id=42&color=red&size=m"},
	}
	first, err := params.Apply(benchTarget, benchVisitor, eff, benchUTM, params.Options{})
	require.NoError(b, err)
	cases[1].target = first
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := params.Apply(c.target, benchVisitor, eff, benchUTM, params.Options{})
				if err != nil {
					b.Fatal(err)
				}
				benchOut = out
			}
		})
	}
}

// BenchmarkApplyForClick is the redirect's call: the typical target and
// the UTM values its click records, against Apply followed by ClickUTM,
// which parsed the result again.
func BenchmarkApplyForClick(b *testing.B) {
	eff := params.Merge(benchOrg, benchLink)
	b.Run("apply-for-click", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, utm, err := params.ApplyForClick(benchTarget, benchVisitor, eff, benchUTM, params.Options{})
			if err != nil || utm.Source == "" {
				b.Fatal(err, utm)
			}
			benchOut = out
		}
	})
	b.Run("apply-then-click-utm", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, err := params.Apply(benchTarget, benchVisitor, eff, benchUTM, params.Options{})
			if utm := params.ClickUTM(out, benchVisitor, params.Options{}); err != nil || utm.Source == "" {
				b.Fatal(err, utm)
			}
			benchOut = out
		}
	})
}

// BenchmarkMergeAndApply is what the redirect does per click.
func BenchmarkMergeAndApply(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		out, err := params.Apply(benchTarget, benchVisitor, params.Merge(benchOrg, benchLink), benchUTM, params.Options{})
		if err != nil {
			b.Fatal(err)
		}
		benchOut = out
	}
}

func BenchmarkCustomParams(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = params.CustomParams(benchTarget)
	}
}
