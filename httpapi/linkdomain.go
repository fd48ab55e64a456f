package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/clientip"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/errcode/httperr"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/params"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/web"
)

// LinkResolver finds links and apps for the link-domain handler;
// *linking.Resolver implements it.
type LinkResolver interface {
	// Resolve returns the link at slug on domain, or 404 NOT_FOUND / 410
	// GONE; at an old address of a moved link, the moved link (with its
	// current domain and slug) and its errors.
	Resolve(ctx context.Context, domain, slug string) (*linking.Resolved, error)
	// ResolveAddress is Resolve for the link-domain handler: at an old
	// address of a moved link it returns the link and moved true, whatever
	// the link's state (linking.Resolver.ResolveAddress).
	ResolveAddress(ctx context.Context, domain, slug string) (res *linking.Resolved, moved bool, err error)
	// AppForDomain returns the app whose link domain is domain, or 404 NOT_FOUND.
	AppForDomain(ctx context.Context, domain string) (*linking.App, error)
}

// RedirectEvent describes one redirect of a real visitor (never a bot, a
// 404, a 410, a password form or a HEAD request): what the click recorder
// stores.
type RedirectEvent struct {
	// ClickID is the click's id, also carried in a Play Store target's
	// install referrer.
	ClickID uuid.UUID
	Time    time.Time
	// Domain is the request's host, normalized.
	Domain string
	// Link and App (nil when none) are shared with the cache: read only.
	Link *linking.Link
	App  *linking.App
	// Device is the visitor's classified user agent.
	Device linking.Device
	// Route is the row of the routing table and its URL before params;
	// Location is the URL the visitor was sent to.
	Route    linking.Route
	Location string
	// ClientIP is the visitor's address (LinkDomainOptions.TrustedProxies).
	ClientIP       netip.Addr
	UserAgent      string
	AcceptLanguage string
	Referer        string
	// Query is the raw query of the short URL the visitor tapped.
	Query string
	// UTM holds the UTM values the click records (SPEC.md, UTM rule 4),
	// params.ClickUTM of Location under the handler's params options.
	UTM params.UTMValues
}

// LinkDomainOptions configure the link-domain handler.
type LinkDomainOptions struct {
	// Resolver finds links and apps; required.
	Resolver LinkResolver
	// Ready reports whether the service can serve (/readyz); nil is always ready.
	Ready func(ctx context.Context) error
	// ReadyTimeout bounds Ready as Options.ReadyTimeout does: if zero,
	// dbdeadline.Default; a negative value sets no deadline.
	ReadyTimeout time.Duration
	// Params are the options of params.Apply (the service's own store
	// hosts); the zero value is params' defaults.
	Params params.Options
	// ShortURLBase builds the short URL an old address of a moved link
	// redirects to, as linking.LinkServiceOptions.ShortURLBase builds
	// short_url ("{domain}" replaced, "/" + slug appended); it should be
	// the same. If empty, linking.DefaultShortURLBase.
	ShortURLBase string
	// TrustedProxies are the peers whose X-Forwarded-For is believed, for
	// RedirectEvent.ClientIP. If empty, it is never believed: the client IP
	// is the peer's address.
	TrustedProxies []netip.Prefix
	// Clock stamps RedirectEvent.Time; time.Now when nil.
	Clock func() time.Time
	// Logger receives unexpected errors; slog.Default when nil.
	Logger *slog.Logger
	// OnRedirect, when not nil, is called once for every redirect of a real
	// visitor (GET, or POST of a password form; never HEAD), after the response headers are set and before the body is
	// written, on the request's goroutine: it must not block (the click
	// recorder only enqueues). Nil records nothing.
	OnRedirect func(ctx context.Context, ev RedirectEvent)
	// Secret is the server secret: keys derived from it sign the password
	// form's CSRF tokens and the cookie that remembers a correct password.
	// If empty, a random key is drawn for this process: tokens and cookies
	// then outlive neither a restart nor the replica that issued them.
	Secret []byte
	// Limiter counts password attempts per client IP and link under
	// PasswordRule; nil uses an in-process ratelimit.Memory.
	Limiter ratelimit.Limiter
	// PasswordRule limits password attempts; if zero, DefaultPasswordRule.
	PasswordRule ratelimit.Rule
	// PasswordLockout counts wrong passwords per link from every address
	// (DefaultLinkLockout); nil uses an in-process ratelimit.MemoryLockout.
	// Replicas share it when it is a ratelimit.RedisLockout.
	PasswordLockout ratelimit.Lockout
	// VerifyPassword checks a link password against its stored hash;
	// identity.VerifyPassword (argon2id) when nil.
	VerifyPassword func(hash, password string) (bool, error)
	// OnOutcome, when not nil, is told how each request for a short link
	// (RouteShortLink) was answered, on the request's goroutine; it must
	// not block. Nil tells nothing.
	OnOutcome func(Outcome)
}

// Response headers of the link-domain handler.
const (
	// ReferrerPolicy is sent with every redirect: the policy browsers apply
	// by default, so that a short link hands the destination exactly what a
	// direct link would (the referring page's origin across origins, nothing
	// on a downgrade to http). It is stricter than
	// no-referrer-when-downgrade, which would reveal full referring URLs.
	ReferrerPolicy = "strict-origin-when-cross-origin"
	// associationMaxAge is how long clients may cache the association files.
	associationMaxAge = "public, max-age=300"
)

// The association-file paths (Apple's universal links, Android's app links).
const (
	AASAPath       = "/.well-known/apple-app-site-association"
	AssetLinksPath = "/.well-known/assetlinks.json"
)

// LinkDomain is the HTTP handler of every link-domain host: /healthz and
// /readyz, the association files on an app's link domain, and GET and HEAD
// of /{slug}:
//
//   - an unknown, deleted or paused link is 404 and an expired one 410, as a
//     small HTML page, or the error envelope when the request's Accept
//     prefers application/json;
//   - an old address of a moved link (linking.OldAddress) is 301 Moved
//     Permanently to the link's current short URL (ShortURLBase) with the
//     request's query string, whatever the link's state (its new address
//     answers that), for bots and password-protected links too, and records
//     no click (the visitor's request to the new address does); POST there
//     is 405;
//   - a password-protected link shows a password form (200), to bots too,
//     with no destination and no preview data; POST of the form checks the
//     password and then redirects as below (see protected);
//   - a bot (linking.IsBot) gets a 200 HTML preview with the link's og_*
//     tags, Twitter card tags and a canonical link to the destination;
//   - every other visitor is routed (linking.RouteVisitor, with a new UUIDv7
//     click id), the target goes through params.Apply, and the answer is
//     302 with Location, Cache-Control: no-store and ReferrerPolicy; HEAD
//     gets the same status and headers and records no click (OnRedirect is
//     not called).
//
// Every response carries the same security headers (LinkDomainCSP,
// nosniff, X-Frame-Options DENY), set in one place before anything else.
//
// While the database cannot be reached or stalls, a link (or a domain's
// app) that the Resolver has cached keeps answering for its stale-if-error
// bound (linking.Resolver); any other lookup, bounded by the Resolver's
// deadline, is 503 SERVICE_UNAVAILABLE with Retry-After, as a page or the
// envelope like every error here, never a 404. /readyz pings the database
// under ReadyTimeout.
//
// Slugs match without regard to ASCII case; "/" and any path of more than
// one segment is 404. POST is answered by protected links only; other
// methods are 405.
type LinkDomain struct {
	opts   LinkDomainOptions
	log    *slog.Logger
	health http.Handler
	clock  func() time.Time
	pw     passwordGate
	// devices remembers the classification of the user agents seen most.
	devices *linking.DeviceCache
	// lookups logs failures of link and app lookups (a database outage) by
	// state change, not one line per request.
	lookups *failureLog
}

// NewLinkDomain returns the link-domain handler.
func NewLinkDomain(opts LinkDomainOptions) *LinkDomain {
	h := &LinkDomain{opts: opts, log: opts.Logger, health: Health(opts.Ready, opts.ReadyTimeout), clock: opts.Clock,
		devices: linking.NewDeviceCache(0)}
	if h.opts.ShortURLBase == "" {
		h.opts.ShortURLBase = linking.DefaultShortURLBase
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.clock == nil {
		h.clock = time.Now
	}
	h.pw = newPasswordGate(opts, h.clock)
	h.lookups = newFailureLog(h.log, h.clock, failureSummaryEvery, "link lookups")
	return h
}

// ServeHTTP implements http.Handler.
func (h *LinkDomain) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w.Header())
	path := r.URL.Path
	switch path {
	case "/healthz", "/readyz":
		SetRoute(w, path)
		h.health.ServeHTTP(w, r)
		return
	case AASAPath:
		SetRoute(w, AASAPath)
	case AssetLinksPath:
		SetRoute(w, AssetLinksPath)
	}
	// POST is answered only by a password-protected link (its form); every
	// other address answers GET and HEAD.
	post := r.Method == http.MethodPost
	if r.Method != http.MethodGet && r.Method != http.MethodHead && !post {
		w.Header().Set("Allow", "GET, HEAD")
		h.fail(w, r, errMethodNotAllowed)
		return
	}
	switch path {
	case AASAPath, AssetLinksPath:
		if post {
			w.Header().Set("Allow", "GET, HEAD")
			h.fail(w, r, errMethodNotAllowed)
			return
		}
	}
	switch path {
	case AASAPath:
		h.association(w, r, aasa)
		return
	case AssetLinksPath:
		h.association(w, r, assetLinks)
		return
	}
	slug := linking.NormalizeSlugForLookup(strings.TrimPrefix(path, "/"))
	if !linking.ValidResolveSlug(slug) {
		// "/", a path of several segments or one that no slug could match:
		// no lookup needed, and no route.
		h.fail(w, r, errLinkNotFound)
		return
	}
	SetRoute(w, RouteShortLink)
	host := HostOf(r)
	res, moved, err := h.opts.Resolver.ResolveAddress(r.Context(), host, slug)
	if err != nil {
		h.outcome(outcomeOf(err))
		h.lookupFailed(w, r, err)
		return
	}
	h.lookups.success(r.Context())
	if moved {
		if post {
			h.outcome(OutcomeError)
			w.Header().Set("Allow", "GET, HEAD")
			h.fail(w, r, errMethodNotAllowed)
			return
		}
		h.movedPermanently(w, r, res.Link)
		return
	}
	if res.Link.HasPassword() {
		h.protected(w, r, host, slug, res)
		return
	}
	if post {
		h.outcome(OutcomeError)
		w.Header().Set("Allow", "GET, HEAD")
		h.fail(w, r, errMethodNotAllowed)
		return
	}
	device := h.devices.Classify(r.UserAgent())
	if device.IsBot {
		h.preview(w, r, res)
		return
	}
	h.redirect(w, r, host, res, device)
}

var errLinkNotFound = errcode.New(errcode.NotFound, "link not found")

func (h *LinkDomain) redirect(w http.ResponseWriter, r *http.Request, host string, res *linking.Resolved, device linking.Device) {
	clickID, err := uuid.NewV7()
	if err != nil {
		h.outcome(OutcomeError)
		h.fail(w, r, err)
		return
	}
	route := linking.RouteVisitor(res.Route, res.RouteApp, device, clickID.String())
	location, utm, err := params.ApplyForClick(route.URL, r.URL.RawQuery, res.Effective, res.UTM, h.opts.Params)
	if err != nil {
		// A stored URL that does not parse: send the visitor there as it is.
		h.log.WarnContext(r.Context(), "link target does not parse", "link_id", res.Link.ID, "err", err)
		location = route.URL
	}
	// HEAD answers as GET does, Location and all, but records no click: a
	// client that only looks at the headers (a link checker, a prefetch)
	// did not follow the link, as the SDK resolve records none either.
	if h.opts.OnRedirect != nil && r.Method != http.MethodHead {
		h.opts.OnRedirect(r.Context(), RedirectEvent{
			ClickID:        clickID,
			Time:           h.clock(),
			Domain:         host,
			Link:           res.Link,
			App:            res.App,
			Device:         device,
			Route:          route,
			Location:       location,
			ClientIP:       clientip.FromRequest(r, h.opts.TrustedProxies),
			UserAgent:      r.UserAgent(),
			AcceptLanguage: r.Header.Get("Accept-Language"),
			Referer:        r.Referer(),
			Query:          r.URL.RawQuery,
			UTM:            utm,
		})
	}
	h.outcome(OutcomeRedirect)
	h.writeRedirect(w, r, http.StatusFound, location)
}

// movedPermanently answers an old address of moved link l: 301 to l's short
// URL with the request's query string, no-store (the old address lives only
// as long as the link, and is freed when the link is deleted), and the same
// short body as a redirect. No click is recorded.
func (h *LinkDomain) movedPermanently(w http.ResponseWriter, r *http.Request, l *linking.Link) {
	h.outcome(OutcomeMoved)
	location := linking.ShortURL(h.opts.ShortURLBase, l.Domain, l.Slug)
	if r.URL.RawQuery != "" {
		location += "?" + r.URL.RawQuery
	}
	h.writeRedirect(w, r, http.StatusMovedPermanently, location)
}

// writeRedirect answers with status and Location location, no-store, and,
// unless the request is HEAD, the short body of a redirect. HEAD gets the
// body's Content-Length too, so that its headers are those of GET.
func (h *LinkDomain) writeRedirect(w http.ResponseWriter, r *http.Request, status int, location string) {
	bp := redirectBodies.Get().(*[]byte)
	body := appendRedirectBody((*bp)[:0], location)
	hd := w.Header()
	hd["Location"] = []string{location}
	hd["Cache-Control"] = noStore
	hd["Referrer-Policy"] = referrerPolicy
	hd["Content-Type"] = htmlType
	// net/http gives a body that fits its response buffer its
	// Content-Length when the handler returns, and leaving the header to it
	// keeps the map at eight entries with the security headers and
	// X-Request-Id: a ninth outgrows a Go map's first group, in this map and
	// in the copy that WriteHeader makes. HEAD, which writes no body, and a
	// longer body, which net/http would send chunked, get it here.
	if r.Method == http.MethodHead || len(body) > autoContentLengthMax {
		hd["Content-Length"] = contentLength(len(body))
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
	if cap(body) <= 64<<10 {
		*bp = body
		redirectBodies.Put(bp)
	}
}

// The redirect's short body: a link for clients that do not follow Location.
const (
	redirectHead = `<!doctype html><html><head><meta charset="utf-8"><title>Redirecting</title></head><body><a href="`
	redirectMid  = `">`
	redirectTail = "</a></body></html>\n"
)

// Header values shared by every response (never modified).
var (
	noStore        = []string{"no-store"}
	referrerPolicy = []string{ReferrerPolicy}
	htmlType       = []string{"text/html; charset=utf-8"}
)

// preview answers a bot with the link's preview tags. The title falls back
// to the link's name, then to its destination.
func (h *LinkDomain) preview(w http.ResponseWriter, r *http.Request, res *linking.Resolved) {
	h.outcome(OutcomePreview)
	l := res.Link
	d := web.PreviewView{URL: l.DestinationURL, Card: "summary", Frame: web.Frame{Title: l.DestinationURL}}
	switch {
	case l.OGTitle != nil && *l.OGTitle != "":
		d.Title = *l.OGTitle
	case l.Name != nil && *l.Name != "":
		d.Title = *l.Name
	}
	if l.OGDescription != nil {
		d.Description = *l.OGDescription
	}
	if l.OGImageURL != nil && *l.OGImageURL != "" {
		d.Image = *l.OGImageURL
		d.Card = "summary_large_image"
	}
	h.page(w, r, http.StatusOK, web.PagePreview, d)
}

// errorTexts are the HTML error pages' words by status.
var errorTexts = map[int]struct{ Title, Text string }{
	http.StatusNotFound:            {"Link not found", "There is no link at this address."},
	http.StatusGone:                {"Link expired", "This link has expired."},
	http.StatusMethodNotAllowed:    {"Method not allowed", "This address answers GET and HEAD only."},
	http.StatusServiceUnavailable:  {"Temporarily unavailable", "Please try again in a few seconds."},
	http.StatusInternalServerError: {"Something went wrong", "Please try again later."},
}

// lookupFailed answers err of a link or app lookup. A 404 or 410 is the
// database answering, a success for h.lookups. A failure (500 or more)
// while the client waits is counted by h.lookups, which logs it by state
// change, and is answered without a line of its own: during an outage every
// uncached link fails, thousands a second under load.
func (h *LinkDomain) lookupFailed(w http.ResponseWriter, r *http.Request, err error) {
	status := httperr.StatusOf(errcode.CodeOf(err))
	switch {
	case status < 500:
		h.lookups.success(r.Context())
	case r.Context().Err() == nil:
		h.lookups.failure(r.Context(), err)
		h.answerError(w, r, err, nil)
		return
	}
	h.fail(w, r, err)
}

// fail answers err: the error envelope when the client prefers JSON, else a
// small HTML page with the same status. Both are no-store, so that a link
// created after a 404 works at once. An answer of 500 or more is logged.
func (h *LinkDomain) fail(w http.ResponseWriter, r *http.Request, err error) {
	h.answerError(w, r, err, h.log)
}

// answerError is fail, logging an answer of 500 or more to log unless log
// is nil.
func (h *LinkDomain) answerError(w http.ResponseWriter, r *http.Request, err error, log *slog.Logger) {
	w.Header()["Cache-Control"] = noStore
	if prefersJSON(r.Header.Get("Accept")) {
		writeError(w, r, log, err, "")
		return
	}
	status, _ := httperr.Envelope(err)
	if status >= 500 {
		if log != nil {
			log.ErrorContext(r.Context(), "link-domain request failed", "method", r.Method, "host", r.Host,
				"path", r.URL.Path, "status", status, "err", err)
		}
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", httperr.RetryAfterUnavailable)
		}
	}
	text, ok := errorTexts[status]
	if !ok {
		text = errorTexts[http.StatusInternalServerError]
	}
	h.page(w, r, status, web.PageLinkError, web.LinkErrorView{Frame: web.Frame{Title: text.Title}, Text: text.Text})
}

// page writes the web page name with view, no-store.
func (h *LinkDomain) page(w http.ResponseWriter, r *http.Request, status int, name string, view any) {
	w.Header()["Cache-Control"] = noStore
	if err := web.Render(w, r, status, name, view); err != nil {
		h.log.ErrorContext(r.Context(), "rendering a page", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
}

// prefersJSON reports whether an Accept header (RFC 9110, section 12.5.1)
// ranks application/json above HTML: application/json (or application/*)
// with a quality above zero and above that of text/html (or text/*).
// Wildcards */* count for neither, so browsers, which list text/html, get
// HTML, and clients that send only */* (curl) get HTML too.
func prefersJSON(accept string) bool {
	if accept == "" || !strings.Contains(accept, "json") && !strings.Contains(accept, "application/*") {
		return false
	}
	jsonQ, htmlQ := -1.0, -1.0
	for part := range strings.SplitSeq(accept, ",") {
		media, rest, _ := strings.Cut(part, ";")
		media = strings.ToLower(strings.TrimSpace(media))
		q := 1.0
		for p := range strings.SplitSeq(rest, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		switch media {
		case "application/json", "application/*":
			jsonQ = max(jsonQ, q)
		case "text/html", "text/*":
			htmlQ = max(htmlQ, q)
		}
	}
	return jsonQ > 0 && jsonQ > htmlQ
}

// association serves an association file of the app whose link domain is
// the request's host, built by build; 404 when there is no such app or
// build finds the app lacks fields. The 404 for missing fields is always
// the JSON envelope, whatever Accept says (the address is a JSON file's),
// and names them: a message and details.missing_fields.
func (h *LinkDomain) association(w http.ResponseWriter, r *http.Request, build func(*linking.App) (any, []string)) {
	app, err := h.opts.Resolver.AppForDomain(r.Context(), HostOf(r))
	if err != nil {
		h.lookupFailed(w, r, err)
		return
	}
	h.lookups.success(r.Context())
	body, missing, err := associationFile(app, build)
	if len(missing) > 0 {
		w.Header()["Cache-Control"] = noStore
		writeError(w, r, h.log, errMissingFields(missing), "")
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", associationMaxAge)
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// associationFile returns the body of the association file that build
// makes of app, byte for byte as the link domains serve it, or the fields
// app lacks for it (and no body). The dashboard shows what it returns.
func associationFile(app *linking.App, build func(*linking.App) (any, []string)) (body []byte, missing []string, err error) {
	doc, missing := build(app)
	if len(missing) > 0 {
		return nil, missing, nil
	}
	body, err = json.Marshal(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("httpapi: encoding an association file: %w", err)
	}
	return body, nil, nil
}

// aasaFile is Apple's apple-app-site-association document.
type aasaFile struct {
	AppLinks struct {
		Details []aasaDetail `json:"details"`
	} `json:"applinks"`
	WebCredentials struct {
		Apps []string `json:"apps"`
	} `json:"webcredentials"`
}

type aasaDetail struct {
	AppIDs     []string            `json:"appIDs"`
	Components []map[string]string `json:"components"`
}

// errMissingFields is the 404 of an association file whose app lacks the
// fields named in missing.
func errMissingFields(missing []string) error {
	return errcode.New(errcode.NotFound, "the app of this link domain has no "+strings.Join(missing, " and ")+
		": set it on the app to serve this file").WithDetail("missing_fields", missing)
}

// missingFields returns the names of the fields whose value is empty, in
// order: name, value pairs.
func missingFields(fields ...string) []string {
	var out []string
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i+1] == "" {
			out = append(out, fields[i])
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// aasa builds the apple-app-site-association of app, or names the fields
// it lacks (ios_team_id, ios_bundle_id). Its components are the app's
// ios_universal_link_paths, each matching the path "/"; an app without
// paths matches every path ("/*").
func aasa(app *linking.App) (any, []string) {
	if missing := missingFields("ios_team_id", deref(app.IOSTeamID), "ios_bundle_id", deref(app.IOSBundleID)); len(missing) > 0 {
		return nil, missing
	}
	appID := *app.IOSTeamID + "." + *app.IOSBundleID
	paths := app.IOSUniversalLinkPaths
	if len(paths) == 0 {
		paths = []string{"/*"}
	}
	components := make([]map[string]string, len(paths))
	for i, p := range paths {
		components[i] = map[string]string{"/": p}
	}
	var f aasaFile
	f.AppLinks.Details = []aasaDetail{{AppIDs: []string{appID}, Components: components}}
	f.WebCredentials.Apps = []string{appID}
	return f, nil
}

// assetLink is one statement of Android's assetlinks.json.
type assetLink struct {
	Relation []string `json:"relation"`
	Target   struct {
		Namespace    string   `json:"namespace"`
		PackageName  string   `json:"package_name"`
		Fingerprints []string `json:"sha256_cert_fingerprints"`
	} `json:"target"`
}

// assetLinks builds the assetlinks.json of app, or names the fields it
// lacks (android_package_name, android_sha256_fingerprints).
func assetLinks(app *linking.App) (any, []string) {
	fingerprints := ""
	if len(app.AndroidSHA256Fingerprints) > 0 {
		fingerprints = "set"
	}
	if missing := missingFields("android_package_name", deref(app.AndroidPackageName),
		"android_sha256_fingerprints", fingerprints); len(missing) > 0 {
		return nil, missing
	}
	var s assetLink
	s.Relation = []string{"delegate_permission/common.handle_all_urls"}
	s.Target.Namespace = "android_app"
	s.Target.PackageName = *app.AndroidPackageName
	s.Target.Fingerprints = app.AndroidSHA256Fingerprints
	return []assetLink{s}, nil
}
