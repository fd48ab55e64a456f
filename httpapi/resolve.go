package httpapi

import (
	"context"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/params"
)

// TapIDHeader is the SDK's header that names one tap (SPEC.md, link
// resolution): the same value on every retry of that tap.
const TapIDHeader = "X-Service-Tap-Id"

// MaxResolveDomain is the longest `domain` a resolve accepts (SPEC.md, Limits).
const MaxResolveDomain = 255

var errPasswordRequired = errcode.New(errcode.PasswordRequired,
	"this link is password protected; open its short URL in a browser")

// resolvedLink is the answer of GET /v1/links/resolve/{slug}.
type resolvedLink struct {
	ID                 uuid.UUID         `json:"id"`
	Slug               string            `json:"slug"`
	Domain             string            `json:"domain"`
	DestinationURL     string            `json:"destination_url"`
	IOSURL             *string           `json:"ios_url"`
	IOSFallbackURL     *string           `json:"ios_fallback_url"`
	AndroidURL         *string           `json:"android_url"`
	AndroidFallbackURL *string           `json:"android_fallback_url"`
	CustomParams       map[string]string `json:"custom_params"`
	CreatedAt          time.Time         `json:"created_at"`
}

// resolveLink answers GET /v1/links/resolve/{slug} (SPEC.md, link resolution
// for SDKs), for SDK and API keys with links:read:
//
//   - the slug is read as the redirect reads it (ASCII letters without
//     regard to case), then must have slug syntax (1 to 100 characters);
//     `domain` (1 to 255 characters) defaults to Options.DefaultLinkDomain;
//     any other or a repeated query parameter is 400 VALIDATION_ERROR;
//   - the link is found through Options.Resolver, the link-domain handler's
//     cache: unknown, deleted and paused links, and links of another
//     organization, are 404 NOT_FOUND alike; expired links 410 GONE;
//     password-protected links 403 PASSWORD_REQUIRED with no URL; an old
//     address of a moved link resolves to the link, answering its current
//     domain and slug, and otherwise as the link's own address (SPEC.md,
//     rule 4); while the database cannot be reached, a cached link answers
//     stale and any other slug is 503 SERVICE_UNAVAILABLE (linking.Resolver);
//   - `params` goes through params.Apply for the destination and every
//     platform URL, exactly as the redirect applies a visitor's query, and
//     custom_params are the query parameters of the destination so built
//     (the stored destination's own parameters among them);
//   - an SDK key's GET (never HEAD) that returns link data, from a user
//     agent that is not a known bot, records one click with source
//     app_open through Options.Clicks; its id is the X-Service-Tap-Id when
//     that is a UUID, so every retry of a tap is the same click, which the
//     store writes once (its unique (org_id, tap_id) index).
func (a *API) resolveLink(w http.ResponseWriter, req bunrouter.Request) error {
	p := principal(req)
	if _, err := p.Authorize(auth.ScopeLinksRead, auth.ActLinksRead); err != nil {
		return err
	}
	q := strictQuery(req, "domain", "params")
	domain := a.opts.DefaultLinkDomain
	if d := q.str("domain"); d != nil {
		if n := utf8.RuneCountInString(*d); n < 1 || n > MaxResolveDomain {
			q.fail("domain", "must be 1 to 255 characters")
		}
		domain = *d
	}
	var visitorQuery string
	if v := q.str("params"); v != nil {
		visitorQuery = *v
	}
	slug := linking.NormalizeSlugForLookup(req.Param("slug"))
	if !linking.ValidResolveSlug(slug) {
		q.fail("slug", "must be 1 to 100 characters of letters, digits and single hyphens between them")
	}
	if err := q.err(); err != nil {
		return err
	}

	res, err := a.opts.Resolver.Resolve(req.Context(), domain, slug)
	if err != nil {
		return err
	}
	l := res.Link
	if l.OrgID != p.OrgID {
		// Another organization's link is indistinguishable from none.
		return errLinkNotFound
	}
	if l.HasPassword() {
		return errPasswordRequired
	}

	out := resolvedLink{
		ID:                 l.ID,
		Slug:               l.Slug,
		Domain:             l.Domain,
		DestinationURL:     a.applyParams(req.Context(), l.DestinationURL, visitorQuery, res),
		IOSURL:             a.applyParamsPtr(req.Context(), l.IOSURL, visitorQuery, res),
		IOSFallbackURL:     a.applyParamsPtr(req.Context(), l.IOSFallbackURL, visitorQuery, res),
		AndroidURL:         a.applyParamsPtr(req.Context(), l.AndroidURL, visitorQuery, res),
		AndroidFallbackURL: a.applyParamsPtr(req.Context(), l.AndroidFallbackURL, visitorQuery, res),
		CreatedAt:          l.CreatedAt,
	}
	out.CustomParams = params.CustomParams(out.DestinationURL)

	if p.Type == auth.KeyTypeSDK && a.opts.Clicks != nil && req.Method == http.MethodGet {
		device := a.devices.Classify(req.UserAgent())
		if !device.IsBot {
			a.opts.Clicks.Record(a.resolveClick(req, res, device, out.DestinationURL, visitorQuery))
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// applyParams returns target with the visitor's query and the link's
// parameter rules applied, as the redirect applies them; a stored URL that
// does not parse is returned as it is (the redirect sends it as it is too).
func (a *API) applyParams(ctx context.Context, target, visitorQuery string, res *linking.Resolved) string {
	out, err := params.Apply(target, visitorQuery, res.Effective, res.UTM, a.opts.Params)
	if err != nil {
		a.log.WarnContext(ctx, "link target does not parse", "link_id", res.Link.ID, "err", err)
		return target
	}
	return out
}

func (a *API) applyParamsPtr(ctx context.Context, target *string, visitorQuery string, res *linking.Resolved) *string {
	if target == nil {
		return nil
	}
	out := a.applyParams(ctx, *target, visitorQuery, res)
	return &out
}

// resolveClick is the app_open click of one resolve.
func (a *API) resolveClick(req bunrouter.Request, res *linking.Resolved, device linking.Device,
	destination, visitorQuery string) analytics.Click {
	l := res.Link
	utm := params.ClickUTM(destination, visitorQuery, a.opts.Params)
	c := analytics.Click{
		OrgID:          l.OrgID,
		LinkID:         l.ID,
		AppID:          l.AppID,
		Domain:         l.Domain,
		Slug:           l.Slug,
		OccurredAt:     a.now(),
		Source:         analytics.SourceAppOpen,
		Platform:       string(device.Platform),
		OS:             device.OS,
		OSVersion:      device.OSVersion,
		DeviceModel:    device.Model,
		Browser:        device.Browser,
		InAppBrowser:   device.App,
		UserAgent:      req.UserAgent(),
		AcceptLanguage: req.Header.Get("Accept-Language"),
		Referer:        req.Referer(),
		UTMSource:      utm.Source,
		UTMMedium:      utm.Medium,
		UTMCampaign:    utm.Campaign,
		UTMTerm:        utm.Term,
		UTMContent:     utm.Content,
	}
	if ip := ClientIPFrom(req.Context()); ip.IsValid() {
		c.IP = ip.String()
	}
	if tap, ok := ParseTapID(req.Header.Get(TapIDHeader)); ok {
		c.ID, c.TapID = tap, &tap
	}
	// Without a tap id the recorder gives the click a new UUIDv7.
	return c
}

// ParseTapID returns the tap id of an X-Service-Tap-Id header value: a UUID
// in its canonical 36-character form (either case), not the nil UUID. Any
// other value is ignored (SPEC.md: "ignored when absent or malformed").
func ParseTapID(v string) (uuid.UUID, bool) {
	if len(v) != 36 {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(v)
	if err != nil || id == uuid.Nil {
		return uuid.Nil, false
	}
	return id, true
}

// now is the API's clock.
func (a *API) now() time.Time {
	if a.opts.Clock != nil {
		return a.opts.Clock()
	}
	return time.Now()
}
