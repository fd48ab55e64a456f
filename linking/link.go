package linking

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/params"
)

// Link is a short link (SPEC.md, Link). Its JSON form is the Link resource:
// nil pointers are JSON null, Tags is never null, and the write-only password
// (kept as PasswordHash) is never part of it.
type Link struct {
	ID uuid.UUID `json:"id"`
	// OrgID is the organization the link belongs to; not part of the resource.
	OrgID uuid.UUID `json:"-"`
	// ShortURL is the full short URL; LinkService fills it in.
	ShortURL string `json:"short_url"`
	// Slug is unique on Domain; 2 to 100 characters of slug syntax.
	Slug string `json:"slug"`
	// Name is the dashboard name; nil shows the slug.
	Name *string `json:"name"`
	// Domain is the link domain serving the link, lowercase. It never changes.
	Domain string `json:"domain"`
	// DestinationURL is the web destination, normalized (NormalizeLinkURL).
	DestinationURL     string  `json:"destination_url"`
	IOSURL             *string `json:"ios_url"`
	IOSFallbackURL     *string `json:"ios_fallback_url"`
	AndroidURL         *string `json:"android_url"`
	AndroidFallbackURL *string `json:"android_fallback_url"`
	OGTitle            *string `json:"og_title"`
	OGDescription      *string `json:"og_description"`
	OGImageURL         *string `json:"og_image_url"`
	// AppID is the app the link belongs to; nil for none. It becomes nil
	// when the app is deleted.
	AppID       *uuid.UUID `json:"app_id"`
	UTMSource   *string    `json:"utm_source"`
	UTMMedium   *string    `json:"utm_medium"`
	UTMCampaign *string    `json:"utm_campaign"`
	// MatchWindowHours is the deferred-deep-link match window; nil uses the
	// attribution default.
	MatchWindowHours *int       `json:"match_window_hours"`
	ExpiresAt        *time.Time `json:"expires_at"`
	// IsActive is false while the link is paused.
	IsActive bool `json:"is_active"`
	// Tags are the link's tags, never nil.
	Tags []string `json:"tags"`
	// Parameters is the link's query-parameter config; nil inherits the
	// organization's defaults.
	Parameters *params.LinkConfig `json:"parameters"`
	// PasswordHash is the argon2id hash of the link's password; nil for a
	// link without one. Never returned.
	PasswordHash *string `json:"-"`
	// CreatedBy is the team member whose key created the link; nil when the
	// key had no creator. Not part of the resource.
	CreatedBy *uuid.UUID `json:"-"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

// MarshalJSON writes l as the Link resource, with nil Tags as [].
func (l Link) MarshalJSON() ([]byte, error) {
	type plain Link
	p := plain(l)
	if p.Tags == nil {
		p.Tags = []string{}
	}
	return json.Marshal(p)
}

// HasPassword reports whether the link is password protected.
func (l *Link) HasPassword() bool { return l.PasswordHash != nil }

// Redirect is an old URL that redirects permanently (301) to a link, an item
// of the Link resource's redirected_from.
type Redirect struct {
	// URL is the old short URL.
	URL string `json:"url"`
	// Since is when the old URL began to redirect.
	Since time.Time `json:"since"`
}

// OldAddress is an address (domain and slug) where a link was served
// before it moved, and which now redirects (301) to the link's current
// address (SPEC.md, GET /links/resolve/{slug} rule 4). It lives as long as
// the link: deleting the link frees it. While it lives, no new link may take
// it (domain rule 8: 409 SLUG_TAKEN).
type OldAddress struct {
	// Domain and Slug are the old address as links store theirs: normalized
	// domain (NormalizeDomain), lowercase slug.
	Domain string
	Slug   string
	// LinkID is the moved link, of organization OrgID.
	LinkID uuid.UUID
	OrgID  uuid.UUID
	// BeganAt is when the address began to redirect: Redirect.Since.
	BeganAt time.Time
}

// LinkWithRedirects is the Link resource as GET /links/{id} returns it: with
// redirected_from, the old URLs that redirect to it (its OldAddresses as
// short URLs), oldest first; empty for a link that never moved.
type LinkWithRedirects struct {
	Link
	RedirectedFrom []Redirect `json:"redirected_from"`
}

// MarshalJSON writes the Link resource with redirected_from, never null.
func (l LinkWithRedirects) MarshalJSON() ([]byte, error) {
	link, err := l.Link.MarshalJSON()
	if err != nil {
		return nil, err
	}
	redirects := l.RedirectedFrom
	if redirects == nil {
		redirects = []Redirect{}
	}
	tail, err := json.Marshal(redirects)
	if err != nil {
		return nil, err
	}
	// link is a JSON object: replace its closing brace with the new member.
	var b bytes.Buffer
	b.Grow(len(link) + len(tail) + 20)
	b.Write(link[:len(link)-1])
	b.WriteString(`,"redirected_from":`)
	b.Write(tail)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ShortURL builds a link's short URL from base, in which "{domain}" stands
// for the link's domain, and the slug: ShortURL("https://{domain}",
// "hop.example", "spring") is "https://hop.example/spring".
func ShortURL(base, domain, slug string) string {
	return strings.ReplaceAll(base, "{domain}", domain) + "/" + slug
}
