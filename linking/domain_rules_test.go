package linking_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
)

const (
	serviceDomain = "hop.example"
	appSubdomain  = "acme.hop.example"
	oldSubdomain  = "acme-old.hop.example"
)

var orgDomains = linking.LinkDomains{Default: serviceDomain, Custom: []string{"links.acme.com", "go.acme.com"}}

// newApp returns the domains of a new (non-legacy) app after a rename.
func newApp() *linking.AppDomains {
	return &linking.AppDomains{DefaultLinkDomain: appSubdomain, LinkDomain: appSubdomain, PreviousLinkDomain: oldSubdomain}
}

func legacyApp() *linking.AppDomains {
	return &linking.AppDomains{DefaultLinkDomain: serviceDomain, LinkDomain: appSubdomain, LegacyApexEnabled: true}
}

func with(app *linking.AppDomains, change func(*linking.AppDomains)) *linking.AppDomains {
	change(app)
	return app
}

func TestChooseDomain(t *testing.T) {
	tests := []struct {
		name        string
		in          linking.DomainInput
		want        linking.DomainChoice
		wantCode    errcode.Code
		wantAllowed []string
	}{
		{"domain rule 1: a link with an app defaults to the app's default_link_domain",
			linking.DomainInput{App: newApp(), Domains: orgDomains},
			linking.DomainChoice{Domain: appSubdomain, OnAppSubdomain: true}, "", nil},
		{"domain rule 1: an app whose default is a live custom domain defaults to it",
			linking.DomainInput{App: with(newApp(), func(a *linking.AppDomains) { a.DefaultLinkDomain = "go.acme.com" }), Domains: orgDomains},
			linking.DomainChoice{Domain: "go.acme.com"}, "", nil},
		{"domain rule 1: a legacy app defaults to its saved default, the default link domain",
			linking.DomainInput{App: legacyApp(), Domains: orgDomains},
			linking.DomainChoice{Domain: serviceDomain}, "", nil},
		{"domain rule 1: an empty saved default means the app's subdomain",
			linking.DomainInput{App: with(newApp(), func(a *linking.AppDomains) { a.DefaultLinkDomain = "" }), Domains: orgDomains},
			linking.DomainChoice{Domain: appSubdomain, OnAppSubdomain: true}, "", nil},
		{"domain rule 2: a link with no app defaults to the default link domain",
			linking.DomainInput{Domains: orgDomains},
			linking.DomainChoice{Domain: serviceDomain}, "", nil},
		{"domain rule 2: a link with no app may use a live custom domain",
			linking.DomainInput{Domain: "go.acme.com", Domains: orgDomains},
			linking.DomainChoice{Domain: "go.acme.com"}, "", nil},
		{"domain rule 2: a link with no app may not use an app subdomain",
			linking.DomainInput{Domain: appSubdomain, Domains: orgDomains},
			linking.DomainChoice{}, errcode.InvalidDomain, []string{serviceDomain, "go.acme.com", "links.acme.com"}},
		{"domain rule 3: a legacy app may use the default link domain",
			linking.DomainInput{Domain: serviceDomain, App: legacyApp(), Domains: orgDomains},
			linking.DomainChoice{Domain: serviceDomain}, "", nil},
		{"domain rule 3: a legacy app may use its subdomain",
			linking.DomainInput{Domain: appSubdomain, App: legacyApp(), Domains: orgDomains},
			linking.DomainChoice{Domain: appSubdomain, OnAppSubdomain: true}, "", nil},
		{"domain rule 3: a legacy app may use a live custom domain",
			linking.DomainInput{Domain: "links.acme.com", App: legacyApp(), Domains: orgDomains},
			linking.DomainChoice{Domain: "links.acme.com"}, "", nil},
		{"domain rule 4: a new app may use its subdomain",
			linking.DomainInput{Domain: appSubdomain, App: newApp(), Domains: orgDomains},
			linking.DomainChoice{Domain: appSubdomain, OnAppSubdomain: true}, "", nil},
		{"domain rule 4: a new app may use a live custom domain",
			linking.DomainInput{Domain: "go.acme.com", App: newApp(), Domains: orgDomains},
			linking.DomainChoice{Domain: "go.acme.com"}, "", nil},
		{"domain rule 4: a new app may not use the default link domain",
			linking.DomainInput{Domain: serviceDomain, App: newApp(), Domains: orgDomains},
			linking.DomainChoice{}, errcode.InvalidDomain, []string{appSubdomain, "go.acme.com", "links.acme.com"}},
		{"domain rule 4: a new app may not use another app's subdomain",
			linking.DomainInput{Domain: "other.hop.example", App: newApp(), Domains: orgDomains},
			linking.DomainChoice{}, errcode.InvalidDomain, []string{appSubdomain, "go.acme.com", "links.acme.com"}},
		{"domain rule 4: a custom domain that is not live is refused",
			linking.DomainInput{Domain: "paused.acme.com", App: newApp(), Domains: orgDomains},
			linking.DomainChoice{}, errcode.InvalidDomain, []string{appSubdomain, "go.acme.com", "links.acme.com"}},
		{"domain rule 5: an explicit domain is kept though it is not the default",
			linking.DomainInput{Domain: "links.acme.com", App: newApp(), Domains: orgDomains},
			linking.DomainChoice{Domain: "links.acme.com"}, "", nil},
		{"domain rule 5: an explicit domain that is refused is not replaced by the default",
			linking.DomainInput{Domain: "unknown.example", Domains: orgDomains},
			linking.DomainChoice{}, errcode.InvalidDomain, []string{serviceDomain, "go.acme.com", "links.acme.com"}},
		{"domain rule 5: an explicit domain is compared without case or trailing dot",
			linking.DomainInput{Domain: "Go.ACME.com.", App: newApp(), Domains: orgDomains},
			linking.DomainChoice{Domain: "go.acme.com"}, "", nil},
		{"domain rule 6: the app subdomain is reported so that test is reserved there",
			linking.DomainInput{Domain: "ACME.hop.example", App: legacyApp(), Domains: orgDomains},
			linking.DomainChoice{Domain: appSubdomain, OnAppSubdomain: true}, "", nil},
		{"domain rule 6: the default link domain is not an app subdomain",
			linking.DomainInput{App: legacyApp(), Domains: orgDomains},
			linking.DomainChoice{Domain: serviceDomain, OnAppSubdomain: false}, "", nil},
		{"domain rule 7: an app's previous subdomain never takes new links",
			linking.DomainInput{Domain: oldSubdomain, App: newApp(), Domains: orgDomains},
			linking.DomainChoice{}, errcode.InvalidDomain, []string{appSubdomain, "go.acme.com", "links.acme.com"}},
		{"domain rule 9: a saved default custom domain no longer live is 409 with alternatives",
			linking.DomainInput{App: with(newApp(), func(a *linking.AppDomains) { a.DefaultLinkDomain = "old.acme.com" }), Domains: orgDomains},
			linking.DomainChoice{}, errcode.DefaultDomainUnavailable, []string{appSubdomain, "go.acme.com", "links.acme.com"}},
		{"domain rule 9: the alternatives of a legacy app include the default link domain",
			linking.DomainInput{App: with(legacyApp(), func(a *linking.AppDomains) { a.DefaultLinkDomain = "old.acme.com" }), Domains: orgDomains},
			linking.DomainChoice{}, errcode.DefaultDomainUnavailable, []string{appSubdomain, serviceDomain, "go.acme.com", "links.acme.com"}},
		{"domain rule 9: with no live custom domain the alternative is the app subdomain",
			linking.DomainInput{App: with(newApp(), func(a *linking.AppDomains) { a.DefaultLinkDomain = "old.acme.com" }), Domains: linking.LinkDomains{Default: serviceDomain}},
			linking.DomainChoice{}, errcode.DefaultDomainUnavailable, []string{appSubdomain}},
		{"domain rule 9: a saved default the rules now refuse (legacy no more) is unavailable",
			linking.DomainInput{App: with(legacyApp(), func(a *linking.AppDomains) { a.LegacyApexEnabled = false }), Domains: orgDomains},
			linking.DomainChoice{}, errcode.DefaultDomainUnavailable, []string{appSubdomain, "go.acme.com", "links.acme.com"}},
		{"domain rule 9 applies only when no domain is named: naming the dead default is 422",
			linking.DomainInput{Domain: "old.acme.com", App: with(newApp(), func(a *linking.AppDomains) { a.DefaultLinkDomain = "old.acme.com" }), Domains: orgDomains},
			linking.DomainChoice{}, errcode.InvalidDomain, []string{appSubdomain, "go.acme.com", "links.acme.com"}},
		{"domain rule 9: a saved default on the previous subdomain is unavailable",
			linking.DomainInput{App: with(newApp(), func(a *linking.AppDomains) { a.DefaultLinkDomain = oldSubdomain }), Domains: orgDomains},
			linking.DomainChoice{}, errcode.DefaultDomainUnavailable, []string{appSubdomain, "go.acme.com", "links.acme.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := linking.ChooseDomain(tt.in)
			if tt.wantCode == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			e := requireCode(t, err, tt.wantCode)
			assert.Equal(t, tt.wantAllowed, e.Details["allowed_link_domains"])
			assert.NotEmpty(t, e.Details["domain"])
			assert.Equal(t, linking.DomainChoice{}, got)
		})
	}
}

func TestChooseDomainMessages(t *testing.T) {
	tests := []struct {
		name string
		in   linking.DomainInput
		want string
	}{
		{"domain rule 4 says only legacy apps use the default link domain",
			linking.DomainInput{Domain: serviceDomain, App: newApp(), Domains: orgDomains},
			"hop.example is the default link domain, which only legacy apps may use; use the app's subdomain or a custom domain"},
		{"domain rule 7 names the previous subdomain",
			linking.DomainInput{Domain: oldSubdomain, App: newApp(), Domains: orgDomains},
			"acme-old.hop.example is the app's previous subdomain, which takes no new links"},
		{"domain rule 2 says a link with no app cannot use an app subdomain",
			linking.DomainInput{Domain: appSubdomain, Domains: orgDomains},
			"acme.hop.example is an app's subdomain; a link with no app may use hop.example or a custom domain"},
		{"another app's subdomain",
			linking.DomainInput{Domain: "other.hop.example", App: newApp(), Domains: orgDomains},
			"other.hop.example is not this app's subdomain"},
		{"an unknown domain",
			linking.DomainInput{Domain: "unknown.example", App: newApp(), Domains: orgDomains},
			"unknown.example is not a link domain of this organization (the default link domain or a verified, active custom domain)"},
		{"domain rule 9 names the unavailable default",
			linking.DomainInput{App: with(newApp(), func(a *linking.AppDomains) { a.DefaultLinkDomain = "old.acme.com" }), Domains: orgDomains},
			`the app's default link domain "old.acme.com" is no longer available; name one of the allowed link domains`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := linking.ChooseDomain(tt.in)
			e, ok := errcode.As(err)
			require.True(t, ok, err)
			assert.Equal(t, tt.want, e.Message)
		})
	}
}

func TestChooseDomainNeedsTheDefaultLinkDomain(t *testing.T) {
	_, err := linking.ChooseDomain(linking.DomainInput{})
	require.Error(t, err)
	assert.Equal(t, errcode.InternalError, errcode.CodeOf(err), "a configuration error is not the client's")
}

func TestDomainsForApp(t *testing.T) {
	tests := []struct {
		name    string
		app     *linking.AppDomains
		domains linking.LinkDomains
		want    []string
	}{
		{"domain rule 2: a link with no app may use the default link domain and live custom domains",
			nil, orgDomains, []string{serviceDomain, "go.acme.com", "links.acme.com"}},
		{"domain rule 3: a legacy app may use its subdomain, the default link domain and live custom domains",
			legacyApp(), orgDomains, []string{appSubdomain, serviceDomain, "go.acme.com", "links.acme.com"}},
		{"domain rule 4: a new app may use its subdomain and live custom domains",
			newApp(), orgDomains, []string{appSubdomain, "go.acme.com", "links.acme.com"}},
		{"domain rule 7: the previous subdomain is never among them",
			with(newApp(), func(a *linking.AppDomains) { a.LinkDomain = oldSubdomain }), orgDomains, []string{"go.acme.com", "links.acme.com"}},
		{"custom domains are normalized, sorted and deduplicated",
			newApp(), linking.LinkDomains{Default: serviceDomain, Custom: []string{"Z.example", "a.example.", "z.example"}},
			[]string{appSubdomain, "a.example", "z.example"}},
		{"domain rule 4: a custom list holding the default link domain does not let a new app use it",
			newApp(), linking.LinkDomains{Default: serviceDomain, Custom: []string{serviceDomain, "other.hop.example"}},
			[]string{appSubdomain}},
		{"no live custom domain",
			newApp(), linking.LinkDomains{Default: serviceDomain}, []string{appSubdomain}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, linking.DomainsForApp(tt.app, tt.domains))
		})
	}
}

func TestCheckDomainForApp(t *testing.T) {
	tests := []struct {
		name   string
		domain string
		app    *linking.AppDomains
		ok     bool
	}{
		{"PATCH: a new app whose subdomain holds the link", appSubdomain, newApp(), true},
		{"PATCH: a new app on a live custom domain", "go.acme.com", newApp(), true},
		{"PATCH domain rule 4: a new app may not take a link on the default link domain", serviceDomain, newApp(), false},
		{"PATCH domain rule 3: a legacy app may take a link on the default link domain", serviceDomain, legacyApp(), true},
		{"PATCH: an app may not take a link on another app's subdomain", "other.hop.example", newApp(), false},
		{"PATCH domain rule 7: an app may not take a link on its previous subdomain", oldSubdomain, newApp(), false},
		{"PATCH domain rule 2: a link with no app keeps its domain", "other.hop.example", nil, true},
		{"PATCH: domains are compared without case", "GO.acme.com", newApp(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := linking.CheckDomainForApp(tt.domain, tt.app, orgDomains)
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			e := requireCode(t, err, errcode.InvalidDomain)
			assert.Equal(t, linking.NormalizeDomain(tt.domain), e.Details["domain"])
		})
	}
}

func TestIsAppSubdomain(t *testing.T) {
	tests := []struct {
		name   string
		domain string
		want   bool
	}{
		{"a handle under the default link domain", appSubdomain, true},
		{"case does not matter", "ACME.Hop.Example.", true},
		{"the default link domain itself", serviceDomain, false},
		{"two labels under the default link domain", "a.b.hop.example", false},
		{"a look-alike suffix", "acmehop.example", false},
		{"a custom domain", "go.acme.com", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, linking.IsAppSubdomain(tt.domain, serviceDomain))
		})
	}
	assert.False(t, linking.IsAppSubdomain("acme.", ""), "no default link domain, no app subdomain")
}

func TestSlugTakenErrors(t *testing.T) {
	t.Run("domain rule 8: a taken slug names the slug and domain", func(t *testing.T) {
		e := linking.SlugTakenError("promo", appSubdomain)
		assert.Equal(t, errcode.SlugTaken, e.Code)
		assert.Equal(t, map[string]any{"slug": "promo", "domain": appSubdomain}, e.Details)
	})
	t.Run("domain rule 8: a held slug names the link waiting to move", func(t *testing.T) {
		e := linking.SlugHeldError("promo", appSubdomain, linking.HeldBy{Domain: oldSubdomain, Slug: "promo"})
		assert.Equal(t, errcode.SlugTaken, e.Code)
		assert.Equal(t, "promo", e.Details["slug"])
		assert.Equal(t, appSubdomain, e.Details["domain"])
		assert.Equal(t, linking.HeldBy{Domain: oldSubdomain, Slug: "promo"}, e.Details["held_by"])
		body, err := json.Marshal(e.Details)
		require.NoError(t, err)
		assert.JSONEq(t, `{"slug":"promo","domain":"acme.hop.example","held_by":{"domain":"acme-old.hop.example","slug":"promo"}}`, string(body))
	})
}
