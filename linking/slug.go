package linking

import (
	"fmt"
	"unicode/utf8"

	"github.com/hoplink/hoplink/errcode"
)

// Slug lengths, in characters. A valid slug is ASCII, so characters and bytes agree.
const (
	// MinSlugLength is the shortest slug a link may be created with (SPEC.md, Link.slug).
	MinSlugLength = 2
	// MaxSlugLength is the longest slug, on create and on resolve.
	MaxSlugLength = 100
	// MinResolveSlugLength is the shortest slug GET /links/resolve/{slug} accepts.
	MinResolveSlugLength = 1
)

// FieldSlug is the request field that slug errors name.
const FieldSlug = "slug"

// AppSubdomainReservedSlug is reserved on an app subdomain only
// ({handle}.{default_link_domain}; SPEC.md, domain rule 6 of POST /links).
const AppSubdomainReservedSlug = "test"

// ReservedSlugs lists, sorted, the slugs no link may take on any domain. Each
// entry has slug syntax. The list holds:
//
//   - paths the service serves or may serve on a host it shares with link
//     domains: api, v1, v2, mcp, oauth, authorize, token, callback, consent,
//     login, logout, signin, signout, signup, register, invitations, invite,
//     dashboard, admin, app, settings, account, sdk, docs, help, support,
//     status, static, assets, internal, webhooks;
//   - operational endpoints: health, healthz, livez, readyz, metrics;
//   - names crawlers and platforms expect at a site's root: www, robots,
//     sitemap, well-known, apple-app-site-association, assetlinks;
//   - words that make a short link look like the service's own account pages
//     and so help phishing: auth, billing, password, security, verify;
//   - the strings a buggy client sends in place of a missing value: null,
//     undefined.
//
// The list is fixed by this package; changing the slice changes nothing (use
// IsReservedSlug). The slug "test" is reserved on app subdomains only
// (AppSubdomainReservedSlug).
var ReservedSlugs = []string{
	"account", "admin", "api", "app", "apple-app-site-association", "assetlinks", "assets",
	"auth", "authorize", "billing", "callback", "consent", "dashboard", "docs", "health",
	"healthz", "help", "internal", "invitations", "invite", "livez", "login", "logout", "mcp",
	"metrics", "null", "oauth", "password", "readyz", "register", "robots", "sdk", "security",
	"settings", "signin", "signout", "signup", "sitemap", "static", "status", "support", "token",
	"undefined", "v1", "v2", "verify", "webhooks", "well-known", "www",
}

var reserved = func() map[string]struct{} {
	m := make(map[string]struct{}, len(ReservedSlugs))
	for _, s := range ReservedSlugs {
		m[s] = struct{}{}
	}
	return m
}()

// IsReservedSlug reports whether slug is reserved: one of ReservedSlugs, or
// "test" when the link's domain is an app subdomain. slug is compared as given;
// lower it first with NormalizeSlugForLookup if it may hold capitals.
func IsReservedSlug(slug string, onAppSubdomain bool) bool {
	if onAppSubdomain && slug == AppSubdomainReservedSlug {
		return true
	}
	_, ok := reserved[slug]
	return ok
}

// ValidateSlug checks a slug chosen for a new link (SPEC.md, POST /links: 2 to
// 100 characters, lowercase alphanumeric groups joined by single hyphens,
// reserved slugs refused). onAppSubdomain says whether the link's domain is an
// app subdomain, where "test" is reserved too (domain rule 6). It returns nil
// or a VALIDATION_ERROR naming the field slug with one message saying what is
// wrong. Uniqueness on the domain is the store's concern, not this function's.
func ValidateSlug(slug string, onAppSubdomain bool) error {
	if msg := slugProblem(slug, MinSlugLength); msg != "" {
		return errcode.Field(FieldSlug, msg)
	}
	if IsReservedSlug(slug, onAppSubdomain) {
		if onAppSubdomain && slug == AppSubdomainReservedSlug {
			return errcode.Field(FieldSlug, `"test" is reserved on an app subdomain`)
		}
		return errcode.Field(FieldSlug, fmt.Sprintf("%q is reserved", slug))
	}
	return nil
}

// ValidResolveSlug reports whether slug has the shape GET /links/resolve/{slug}
// accepts: 1 to 100 characters, lowercase alphanumeric groups joined by single
// hyphens. Reserved slugs have that shape too; no link holds one, so resolving
// one finds nothing.
func ValidResolveSlug(slug string) bool {
	return slugProblem(slug, MinResolveSlugLength) == ""
}

// slugProblem returns what is wrong with the shape of slug, or "" when it is
// min to MaxSlugLength characters of lowercase alphanumeric groups joined by
// single hyphens.
func slugProblem(slug string, min int) string {
	n := len(slug)
	if n > MaxSlugLength {
		n = utf8.RuneCountInString(slug)
	}
	switch {
	case n < min:
		return fmt.Sprintf("must be at least %d characters", min)
	case n > MaxSlugLength:
		return fmt.Sprintf("must be at most %d characters", MaxSlugLength)
	}
	for _, r := range slug {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9', r == '-':
		case 'A' <= r && r <= 'Z':
			return fmt.Sprintf("must be lowercase (found %q)", r)
		default:
			return fmt.Sprintf("may contain only lowercase letters a-z, digits 0-9 and hyphens (found %q)", r)
		}
	}
	switch {
	case slug[0] == '-':
		return "must not start with a hyphen"
	case slug[len(slug)-1] == '-':
		return "must not end with a hyphen"
	}
	for i := 1; i < len(slug); i++ {
		if slug[i] == '-' && slug[i-1] == '-' {
			return "must not contain two hyphens in a row"
		}
	}
	return ""
}

// NormalizeSlugForLookup returns slug as it is stored, for finding a link by
// the slug a visitor typed: redirects and resolves match slugs without regard
// to case. Only ASCII letters are lowered, so no non-ASCII character (such as
// the Kelvin sign, which Unicode lowers to "k") can reach a stored slug. It
// returns slug itself, without allocating, when slug has no capital.
func NormalizeSlugForLookup(slug string) string {
	i := 0
	for i < len(slug) && !('A' <= slug[i] && slug[i] <= 'Z') {
		i++
	}
	if i == len(slug) {
		return slug
	}
	b := []byte(slug)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}
