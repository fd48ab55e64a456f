package linking

import (
	"time"

	"github.com/google/uuid"
)

// App is an iOS and Android app identity used for deep linking (SPEC.md, App).
// Nil pointers and nil slices are JSON null.
type App struct {
	ID                        uuid.UUID `json:"id"`
	OrgID                     uuid.UUID `json:"org_id"`
	Name                      string    `json:"name"`
	IOSBundleID               *string   `json:"ios_bundle_id"`
	IOSTeamID                 *string   `json:"ios_team_id"`
	IOSAppStoreID             *string   `json:"ios_app_store_id"`
	IOSAppStoreURL            *string   `json:"ios_app_store_url"`
	IOSUniversalLinkPaths     []string  `json:"ios_universal_link_paths"`
	AndroidPackageName        *string   `json:"android_package_name"`
	AndroidSHA256Fingerprints []string  `json:"android_sha256_fingerprints"`
	AndroidPlayStoreURL       *string   `json:"android_play_store_url"`
	AndroidAppLinksPaths      []string  `json:"android_app_links_paths"`
	// Handle is the app's subdomain label, unique across the service.
	Handle string `json:"handle"`
	// DefaultLinkDomain is where the app's links go when a request names no
	// domain: its LinkDomain, the service's default link domain (legacy apps)
	// or a custom domain.
	DefaultLinkDomain string `json:"default_link_domain"`
	// LegacyApexEnabled lets the app's links use the service's default link domain.
	LegacyApexEnabled bool `json:"legacy_apex_enabled"`
	// LinkDomain is {handle}.{default_link_domain of the service}.
	LinkDomain string `json:"link_domain"`
	// PreviousLinkDomain is the subdomain before the last rename, if any.
	PreviousLinkDomain *string   `json:"previous_link_domain"`
	CreatedAt          time.Time `json:"created_at"`
	UpdatedAt          time.Time `json:"updated_at"`

	// RenameOpenedAt and RenameEndsAt bound the rename period of the last
	// rename while PreviousLinkDomain is set; both nil otherwise.
	RenameOpenedAt *time.Time `json:"-"`
	RenameEndsAt   *time.Time `json:"-"`
	// RenameExtensions is how many times the open period was extended.
	RenameExtensions int `json:"-"`
	// LinkState counts the changes of the app's subdomain state (renames,
	// period ends, default link domain): a writer that read it can tell
	// that the state changed since (APP_LINK_STATE_CHANGED).
	LinkState int64 `json:"-"`
}

// Domains returns the app's link-domain attributes for the domain rules.
func (a *App) Domains() *AppDomains {
	d := &AppDomains{DefaultLinkDomain: a.DefaultLinkDomain, LinkDomain: a.LinkDomain, LegacyApexEnabled: a.LegacyApexEnabled}
	if a.PreviousLinkDomain != nil {
		d.PreviousLinkDomain = *a.PreviousLinkDomain
	}
	return d
}

// FillLinkDomains completes the link domains of an app created before apps
// had them (the apps migration gives such an app a handle but cannot know the
// service's default link domain): an empty LinkDomain becomes
// {handle}.{defaultLinkDomain} and an empty DefaultLinkDomain becomes
// LinkDomain. An app with both set is left alone. The apps service returns
// every app filled; code reading apps from an AppStore directly calls it too.
func (a *App) FillLinkDomains(defaultLinkDomain string) {
	if a.LinkDomain == "" && a.Handle != "" && defaultLinkDomain != "" {
		a.LinkDomain = a.Handle + "." + NormalizeDomain(defaultLinkDomain)
	}
	if a.DefaultLinkDomain == "" {
		a.DefaultLinkDomain = a.LinkDomain
	}
}
