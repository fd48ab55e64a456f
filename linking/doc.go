// Package linking owns Hoplink's link domain: links, apps and custom domains,
// and the rules that govern them.
//
// The rule files are pure: slug syntax and reserved slugs (slug.go), slug
// generation (generate.go), URL validation and normalization (url.go), tags
// (tags.go), the other text fields (text.go) and the domain rules of POST and
// PATCH /links (domain_rules.go), device classification and bot detection
// (device.go, bots.go), visitor routing (route.go) and custom domain names
// (domain_name.go). They import the standard library, errcode and, for
// device.go, the user-agent parser github.com/mileusna/useragent and, for
// domain_name.go, golang.org/x/net/idna only; they do no I/O, read no clock
// and draw no randomness of their own: a slug
// generator is handed its source of randomness. Every refusal is an
// *errcode.Error carrying SPEC.md's code (VALIDATION_ERROR naming the field,
// INVALID_DOMAIN, DEFAULT_DOMAIN_UNAVAILABLE, SLUG_TAKEN).
//
// Nothing in this package imports store, httpapi, bun, fx or net/http; the
// DNS client github.com/miekg/dns is used by cname.go alone, and the
// deadline helper dbdeadline by resolve.go alone.
//
// # Decisions where SPEC.md is silent
//
// Slugs:
//   - A slug is checked as sent; a capital letter is refused ("must be
//     lowercase"), not lowered. Redirects and resolves find a link whatever
//     the case of the slug typed (NormalizeSlugForLookup), lowering ASCII
//     letters only.
//   - The reserved slugs are ReservedSlugs (routes the service serves or may
//     serve, operational endpoints, root names crawlers expect, words that
//     imitate account pages, and "null" and "undefined"), on every domain;
//     "test" is reserved on app subdomains only (domain rule 6).
//   - The resolve endpoint accepts any slug of 1 to 100 characters with the
//     slug pattern (ValidResolveSlug); reserved slugs are not refused there,
//     they simply match no link.
//   - A generated slug is 7 characters of [a-z0-9] drawn without bias from
//     the source handed in (crypto/rand in production); a nil source is an
//     error, not a silent default. Generation retries on collision, 5 times by
//     default, and reports ErrNoFreeSlug (an internal error) when all are taken.
//
// URLs (NormalizeURL, NormalizeLinkURL):
//   - destination_url, ios_fallback_url, android_fallback_url and
//     og_image_url must be http or https; ios_url and android_url accept any
//     scheme, so an app's own scheme (myapp://path, intent://...) works.
//   - about:, blob:, data:, file:, filesystem:, javascript: and vbscript: are
//     refused in every field.
//   - At most MaxURLLength (2048) characters, as sent and once normalized.
//   - Whitespace, control characters and invisible formatting characters
//     are refused, not encoded; so is a "%" without two hex digits after it.
//   - http and https URLs must have a host and no user name or password. A
//     non-ASCII host is refused: the package does no IDNA mapping, so an
//     internationalised name is written in its xn-- form.
//   - Normalization lowers the scheme and the http(s) host, drops default and
//     empty ports, gives a bare origin a trailing slash, and percent-encodes
//     characters a URL may not hold; fragments, queries, paths and escapes are
//     otherwise kept byte for byte. Normalizing twice changes nothing.
//
// Text fields:
//   - Tags: at most 20 as sent; each is trimmed, must then hold 1 to 50
//     characters without control characters; duplicates after trimming are
//     dropped silently, the first kept, order kept; comparison is exact
//     ("iOS" and "ios" differ).
//   - name: at most 255 characters; og_title at most 255; og_description at
//     most 1000 (line breaks and tabs allowed there only). An empty or blank
//     value is refused; null clears a field. Lengths count Unicode code points.
//
// Domains (ChooseDomain, DomainsForApp, CheckDomainForApp):
//   - Domain names are compared with ASCII letters lowered and a trailing dot
//     dropped.
//   - Rule 9 is derived rather than told: the app's saved default is
//     unavailable when it is not among the domains the app may use now, which
//     covers a custom domain unverified, suspended or deleted, and also a
//     legacy default on an app that is legacy no more. An empty saved default
//     means the app's subdomain.
//   - INVALID_DOMAIN and DEFAULT_DOMAIN_UNAVAILABLE both carry
//     details.domain and details.allowed_link_domains, so a client can
//     correct the request in one step.
//   - On PATCH a link with no app keeps its domain (rule 2); a new app_id is
//     checked against the app's domains (CheckDomainForApp).
//   - Slug uniqueness (rule 8) needs the store; this package only builds its
//     SLUG_TAKEN errors (SlugTakenError, SlugHeldError).
//
// Apps (app_rules.go is a rule file; AppService in apps.go is not):
//   - The field rules are ValidateAppName, ValidateBundleID, ValidateTeamID,
//     ValidateAppStoreID, ValidatePackageName, NormalizeFingerprints and
//     NormalizeAppPaths; their docs state the limits. Every invalid field of
//     a request is reported at once.
//   - A handle is derived once, from the name (HandleBase, HandleCandidate):
//     a taken, reserved (IsReservedHandle) or too short handle gets a random
//     suffix. link_domain and default_link_domain are stored, so changing the
//     service's default link domain moves no existing app.
//   - Uniqueness (handle across the service; bundle id and package name
//     within an organization, compared exactly) and the plan's app limit are
//     the store's, in one transaction; see AppStore.
//   - SetLegacy leaves default_link_domain alone.
//   - SetDefaultLinkDomain (PUT /apps/{id}/default-link-domain) accepts
//     one of DomainsForApp: the app's subdomain, a live custom domain, or
//     the service's default link domain for a legacy app; null means the
//     subdomain. A saved custom default that stops being live stays saved
//     (rule 9 then answers), so that it comes back with the domain.
//   - Subdomain renames (app_subdomain.go; docs/app-subdomains.md has the
//     lifecycle): Rename opens a RenamePeriod (30 days) on the old
//     subdomain, Extend adds one at most MaxRenameExtensions (2) times,
//     and the period ends by time: lazily on every read or write of the
//     app through AppService, and by SweepRenamePeriods, which every
//     replica serving the API runs each minute. At the end, links without
//     a keep choice move with their slug where it is free (301 from the
//     old address); the others stay, counted and told to OnLeftBehind.
//     The old handle is then held for HandleHold (7 days) for the app
//     that released it. A handle is taken while another app has it as its
//     handle or previous subdomain, or links of another app (or of none)
//     remain on its subdomain; Create skips such handles too.
//   - Every change of an app's subdomain state raises App.LinkState; a
//     rename, and POST /links for a link with an app (through
//     AppLinkStore), refuse with APP_LINK_STATE_CHANGED when it changed
//     since they read the app, checked in the write's transaction.
//   - AppService takes everything optional in AppServiceOptions: the key
//     forgetter, its clock and randomness, and OnAppChange, the one hook
//     told of every app write (the server empties the Resolver and the
//     attribution matcher's apps through it).
//
// Links (link.go, links.go and link_store.go are not rule files):
//   - LinkService applies the rules above and both authorization layers over
//     a LinkStore, the apps (LinkApps), the organization's plan (OrgReader)
//     and its live custom domains (CustomDomains: DomainService, or
//     NoCustomDomains where there are none). It takes its clock, randomness
//     and password hasher as options (identity.HashPassword, the users'
//     hasher, by default).
//   - Slug uniqueness and the monthly link limit are the store's, decided in
//     the insert's transaction (LinkStore.CreateLink): a unique index on
//     (domain, slug), and a count of the links created since the billing
//     month began (org.PeriodStart), from which deleted links are gone.
//   - PATCH bodies tell an absent field from null and from a value with
//     apitype.Optional; the lists page with apitype.PageBounds and
//     apitype.Pagination.
//
// Old addresses of moved links (OldAddress; SPEC.md, resolve rule 4 and
// domain rule 8):
//   - An old address lives as long as its link (the store deletes it with
//     the link, freeing the address) and counts as taken for new links
//     (LinkStore.CreateLink refuses it: SLUG_TAKEN).
//   - LinkService.RecordOldAddress records one, for moves made outside
//     MoveChoiceStore.MoveLink; Get lists a link's old addresses, oldest
//     first, as redirected_from.
//   - Resolver.Resolve follows an old address to the link and answers as
//     for the link's own address; Resolver.ResolveAddress tells the
//     link-domain handler that the address moved (it answers 301), whatever
//     the link's state. The cache keeps an old address as the key and id of
//     its link, never a copy of it, so writes that invalidate the link reach
//     its old addresses at once.
//
// The link cache (Resolver in resolve.go; what the link-domain handler and
// the SDK resolve read):
//   - Entries, found or not, live 5 seconds (ResolverOptions.TTL); every
//     load from the store runs under a deadline (StoreTimeout, one second by
//     default), past which it is errcode.ErrUnavailable
//     (dbdeadline.ErrTimeout).
//   - Stale if error: when the reload of an expired entry that holds a
//     link, an old address or a domain's app fails because the store cannot
//     be reached, the last known answer keeps answering for up to
//     StaleIfError (an hour by default) past the entry's expiry; the
//     failure neither evicts nor renews it, and the store is asked again at
//     most once per TTL meanwhile. The link's own states still apply (an
//     expiry that passes during the outage is 410).
//   - "Does not exist" is never served stale: an unknown slug is 404 only
//     while the store's answer is fresh, and the store's error (503 to a
//     client) once it cannot be asked.
//
// Link move choice (move_choice.go; SPEC.md, link move choice):
//   - A link uses its app's previous subdomain when it has an app whose
//     previous_link_domain, normalized, is the link's domain; for any other
//     link both endpoints are 409 LINK_MOVE_NOT_PENDING.
//   - The body of PUT is checked after the link is found and the member's
//     reach checked (CheckMoveChoice gives a handler those errors first):
//     choice is required (keep or new_slug); with keep, new_slug must be
//     absent or null; with new_slug it is required, follows ValidateSlug on
//     an app subdomain, and equal to the link's slug is SLUG_UNCHANGED.
//   - keep saves the choice only: the link stays on the previous subdomain
//     and its slug is not held for it on the app's subdomain. A keep choice
//     counts only while the link is still on the domain it was made on.
//   - new_slug moves the link at once (MoveChoiceStore.MoveLink, one
//     transaction): new domain and slug, its old address recorded as
//     RecordOldAddress records one (301 to the new short URL), the choice
//     saved. The slug is taken when a link or an old address is there, and
//     held (SLUG_TAKEN with details.held_by) when another link of the
//     previous subdomain, which has not chosen keep, has it as its slug.
//   - POST /links holds the same slugs (domain rule 8): a link created on
//     an app's subdomain while the app has a previous one may not take the
//     slug of a link of the previous subdomain that has not chosen keep
//     (SLUG_TAKEN with details.held_by: the previous subdomain and the
//     slug); a link or an old address at the address wins over a held slug.
//     The store decides both in one transaction, with one query for the
//     links that wait (MoveChoiceStore.CreateLinkOnMoveTarget and MoveLink).
//   - DELETE clears any saved choice and moves the link with its slug when
//     the slug is free on the app's subdomain and not reserved there;
//     otherwise the link stays, with no choice.
//   - Every move tells LinkServiceOptions.Cache of both addresses.
//   - The store of moves is the LinkStore itself when it implements
//     MoveChoiceStore (store.Store does); otherwise both endpoints, and a
//     create on the subdomain of an app with a previous one, fail with an
//     internal error.
//
// Custom domains (domain_name.go is a rule file; domain.go, domains.go and
// cname.go are not):
//   - ParseCustomDomain checks a name and returns its stored form: 4 to 255
//     characters, IDNA 2008 with the UTS 46 lookup mapping (Unicode is
//     accepted and stored as punycode), letters, digits and hyphens only, at
//     least two labels, a last label that is not all digits; never an IP
//     address, localhost or a name under it, the default link domain or a
//     name under it, a service host, or the CNAME target. Every refusal is
//     422 INVALID_DOMAIN with details.domain.
//   - DomainService.Create checks the name, then the plan (403
//     PLAN_UPGRADE_REQUIRED on Free), then, in the insert's transaction,
//     DUPLICATE_DOMAIN, DOMAIN_CLAIMED (another organization has it
//     verified; unverified, a name may be held by many) and
//     DOMAIN_LIMIT_EXCEEDED, in that order.
//   - Verify reads the name's own CNAME record (one query, no chain
//     followed) through DNSLookup; it must equal the CNAME target, compared
//     without case or the root's dot. A lookup that fails or times out is a
//     "not yet" with a message. A verified domain stays verified; verifying it
//     again does no lookup. A name is verified by one organization at most (a
//     unique index decides a race; the loser gets 409 DOMAIN_CLAIMED).
//   - ssl_status is "pending" until verified, then "active": the operator's
//     proxy terminates TLS and asks DomainService.IsLive before it obtains a
//     certificate.
//   - A domain is live when verified and not suspended. Links may be created
//     on live domains only, and only live domains serve their links and, when
//     set as an app's default link domain, its association files. A plan
//     without custom domains suspends every domain of the organization;
//     moving back restores them all, even past the new plan's number.
//   - Deleting a domain deletes the organization's links on it (and their
//     clicks), so that the name is free for whoever verifies it next.
package linking
