package linking

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hoplink/hoplink/errcode"
)

// Details keys of the domain errors (SPEC.md, Errors).
const (
	DetailDomain             = "domain"
	DetailSlug               = "slug"
	DetailHeldBy             = "held_by"
	DetailAllowedLinkDomains = "allowed_link_domains"
)

// AppDomains holds the link-domain attributes of an app (SPEC.md, App).
// Domains are compared after NormalizeDomain, so their case does not matter.
type AppDomains struct {
	// DefaultLinkDomain is default_link_domain: where the app's links go when a
	// request names no domain (domain rule 1). If empty, LinkDomain.
	DefaultLinkDomain string
	// LinkDomain is link_domain, the app's subdomain {handle}.{default_link_domain}.
	LinkDomain string
	// PreviousLinkDomain is previous_link_domain, the subdomain the app had
	// before its last rename, or empty. It never takes new links (domain rule 7).
	PreviousLinkDomain string
	// LegacyApexEnabled is legacy_apex_enabled: the app's links may also use
	// the service's default link domain (domain rules 3 and 4).
	LegacyApexEnabled bool
}

// LinkDomains are the domains open to an organization's links before the
// rules of an app narrow them.
type LinkDomains struct {
	// Default is the service's {default_link_domain}; it must not be empty.
	Default string
	// Custom lists the organization's live custom domains: verified and not
	// suspended. Order and duplicates do not matter.
	Custom []string
}

// DomainInput is what ChooseDomain needs to know about a link being created.
type DomainInput struct {
	// Domain is the domain the request names; empty when it names none.
	Domain string
	// App holds the domains of the link's app; nil for a link with no app.
	App *AppDomains
	// Domains are the service's default link domain and the organization's
	// live custom domains.
	Domains LinkDomains
}

// DomainChoice is the domain a new link lives on.
type DomainChoice struct {
	// Domain is the chosen domain, normalized by NormalizeDomain.
	Domain string
	// OnAppSubdomain says whether Domain is the link's app's subdomain, where
	// the slug "test" is reserved (domain rule 6): pass it to ValidateSlug.
	OnAppSubdomain bool
}

// HeldBy is the details.held_by object of a SLUG_TAKEN error for an address
// held for a link still waiting to move (SPEC.md, domain rule 8): the link's
// current, old domain and slug.
type HeldBy struct {
	Domain string `json:"domain"`
	Slug   string `json:"slug"`
}

// NormalizeDomain returns domain as domains are compared and stored: ASCII
// letters lowered and one trailing dot dropped.
func NormalizeDomain(domain string) string {
	return strings.TrimSuffix(lowerASCII(domain), ".")
}

// IsAppSubdomain reports whether domain has the form of an app subdomain,
// {handle}.{defaultLinkDomain} with a handle of one label.
func IsAppSubdomain(domain, defaultLinkDomain string) bool {
	domain, def := NormalizeDomain(domain), NormalizeDomain(defaultLinkDomain)
	handle, ok := strings.CutSuffix(domain, "."+def)
	return ok && def != "" && handle != "" && !strings.Contains(handle, ".")
}

// DomainsForApp returns the domains a link of app may live on, in this order:
// the app's subdomain; the service's default link domain when the app is
// legacy (domain rule 3; never for a new app, rule 4); then the live custom
// domains, sorted. The app's previous subdomain is never among them (rule 7).
// For a link with no app (app nil) they are the default link domain and the
// live custom domains (rule 2). Every domain is normalized; the list is never
// nil.
func DomainsForApp(app *AppDomains, domains LinkDomains) []string {
	def := NormalizeDomain(domains.Default)
	previous := ""
	out := make([]string, 0, len(domains.Custom)+2)
	switch {
	case app == nil:
		if def != "" {
			out = append(out, def)
		}
	default:
		previous = NormalizeDomain(app.PreviousLinkDomain)
		if sub := NormalizeDomain(app.LinkDomain); sub != "" && sub != previous {
			out = append(out, sub)
		}
		if app.LegacyApexEnabled && def != "" && !slices.Contains(out, def) {
			out = append(out, def)
		}
	}
	first := len(out)
	for _, c := range domains.Custom {
		c = NormalizeDomain(c)
		// A custom domain can be neither the default link domain (only legacy
		// apps use it) nor an app subdomain; a list that says otherwise is
		// not trusted.
		if c == "" || c == def || c == previous || IsAppSubdomain(c, def) || slices.Contains(out, c) {
			continue
		}
		out = append(out, c)
	}
	slices.Sort(out[first:])
	return out
}

// ChooseDomain applies the domain rules of POST /links (SPEC.md, domain rules
// 1 to 7 and 9) and returns the domain of the new link.
//
//   - A named domain is kept or refused, never replaced (rule 5). It must be
//     one of DomainsForApp: for a link with no app, the default link domain
//     or a live custom domain; for a legacy app also its subdomain (rule 3);
//     for a new app its subdomain or a live custom domain, never the default
//     link domain (rule 4); never an app's previous subdomain (rule 7).
//     Anything else is 422 INVALID_DOMAIN.
//   - With no domain named, a link with no app takes the default link domain
//     (rule 2) and a link with an app takes the app's default_link_domain
//     (rule 1). When that saved default is not among the domains the app may
//     use (a custom domain no longer live, or anything else the rules now
//     refuse), the answer is 409 DEFAULT_DOMAIN_UNAVAILABLE with
//     details.allowed_link_domains listing the alternatives (rule 9).
//
// Both errors carry details.domain (the refused domain) and
// details.allowed_link_domains. The slug rules that depend on the domain
// (rule 6: "test" on an app subdomain) are ValidateSlug's, given
// DomainChoice.OnAppSubdomain; uniqueness (rule 8) is the store's, reported
// with SlugTakenError or SlugHeldError. A missing default link domain is a
// configuration error, returned as a plain error.
func ChooseDomain(in DomainInput) (DomainChoice, error) {
	def := NormalizeDomain(in.Domains.Default)
	if def == "" {
		return DomainChoice{}, errors.New("linking: no default link domain configured")
	}
	allowed := DomainsForApp(in.App, in.Domains)
	if in.Domain != "" {
		d := NormalizeDomain(in.Domain)
		if !slices.Contains(allowed, d) {
			return DomainChoice{}, invalidDomain(d, in.App, def, allowed)
		}
		return choice(d, in.App), nil
	}
	if in.App == nil {
		return DomainChoice{Domain: def}, nil
	}
	saved := in.App.DefaultLinkDomain
	if saved == "" {
		saved = in.App.LinkDomain
	}
	saved = NormalizeDomain(saved)
	if saved == "" || !slices.Contains(allowed, saved) {
		msg := "the app's default link domain is no longer available; name one of the allowed link domains"
		if saved != "" {
			msg = fmt.Sprintf("the app's default link domain %q is no longer available; name one of the allowed link domains", saved)
		}
		e := errcode.New(errcode.DefaultDomainUnavailable, msg).WithDetail(DetailAllowedLinkDomains, allowed)
		if saved != "" {
			e.WithDetail(DetailDomain, saved)
		}
		return DomainChoice{}, e
	}
	return choice(saved, in.App), nil
}

// CheckDomainForApp checks that a link on domain may belong to app, as PATCH
// /links does when it sets a new app_id (a link's domain never changes): nil
// when domain is one of DomainsForApp(app, domains), else 422 INVALID_DOMAIN.
// A link with no app (app nil) keeps whatever domain it has (domain rule 2),
// so that is always allowed. Callers decide which custom domains count; for an
// existing link they may pass every verified domain of the organization.
func CheckDomainForApp(domain string, app *AppDomains, domains LinkDomains) error {
	if app == nil {
		return nil
	}
	d := NormalizeDomain(domain)
	allowed := DomainsForApp(app, domains)
	if slices.Contains(allowed, d) {
		return nil
	}
	return invalidDomain(d, app, NormalizeDomain(domains.Default), allowed)
}

// SlugTakenError returns the 409 SLUG_TAKEN error of domain rule 8 for a slug
// in use on domain (by a link, or as the old address of a moved link), with
// details.slug and details.domain.
func SlugTakenError(slug, domain string) *errcode.Error {
	return errcode.Newf(errcode.SlugTaken, "the slug %q is already taken on %s", slug, domain).
		WithDetail(DetailSlug, slug).
		WithDetail(DetailDomain, domain)
}

// SlugHeldError returns the 409 SLUG_TAKEN error of domain rule 8 for a slug
// held on domain for a link of the same app still waiting to move there, with
// details.slug, details.domain and details.held_by naming the waiting link's
// current domain and slug.
func SlugHeldError(slug, domain string, heldBy HeldBy) *errcode.Error {
	return errcode.Newf(errcode.SlugTaken,
		"the slug %q on %s is held for the link %s/%s, which is waiting to move there", slug, domain, heldBy.Domain, heldBy.Slug).
		WithDetail(DetailSlug, slug).
		WithDetail(DetailDomain, domain).
		WithDetail(DetailHeldBy, heldBy)
}

func choice(domain string, app *AppDomains) DomainChoice {
	return DomainChoice{
		Domain:         domain,
		OnAppSubdomain: app != nil && domain == NormalizeDomain(app.LinkDomain),
	}
}

// invalidDomain returns 422 INVALID_DOMAIN for domain d, saying which rule
// refuses it.
func invalidDomain(d string, app *AppDomains, def string, allowed []string) *errcode.Error {
	var msg string
	switch {
	case app != nil && app.PreviousLinkDomain != "" && d == NormalizeDomain(app.PreviousLinkDomain):
		msg = fmt.Sprintf("%s is the app's previous subdomain, which takes no new links", d)
	case app != nil && d == def:
		msg = fmt.Sprintf("%s is the default link domain, which only legacy apps may use; use the app's subdomain or a custom domain", d)
	case app == nil && IsAppSubdomain(d, def):
		msg = fmt.Sprintf("%s is an app's subdomain; a link with no app may use %s or a custom domain", d, def)
	case app != nil && IsAppSubdomain(d, def):
		msg = fmt.Sprintf("%s is not this app's subdomain", d)
	default:
		msg = fmt.Sprintf("%s is not a link domain of this organization (the default link domain or a verified, active custom domain)", d)
	}
	return errcode.New(errcode.InvalidDomain, msg).
		WithDetail(DetailDomain, d).
		WithDetail(DetailAllowedLinkDomains, allowed)
}
