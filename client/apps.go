package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// App is an iOS and Android app identity (the App schema).
type App struct {
	ID                        string    `json:"id"`
	OrgID                     string    `json:"org_id"`
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
	Handle                    string    `json:"handle"`
	DefaultLinkDomain         string    `json:"default_link_domain"`
	LegacyApexEnabled         bool      `json:"legacy_apex_enabled"`
	LinkDomain                string    `json:"link_domain"`
	PreviousLinkDomain        *string   `json:"previous_link_domain"`
	CreatedAt                 time.Time `json:"created_at"`
	UpdatedAt                 time.Time `json:"updated_at"`
}

// CreateAppRequest is the body of CreateApp. Nil fields are not sent.
type CreateAppRequest struct {
	Name                      string   `json:"name"`
	IOSBundleID               *string  `json:"ios_bundle_id,omitempty"`
	IOSTeamID                 *string  `json:"ios_team_id,omitempty"`
	IOSAppStoreID             *string  `json:"ios_app_store_id,omitempty"`
	IOSAppStoreURL            *string  `json:"ios_app_store_url,omitempty"`
	IOSUniversalLinkPaths     []string `json:"ios_universal_link_paths,omitempty"`
	AndroidPackageName        *string  `json:"android_package_name,omitempty"`
	AndroidSHA256Fingerprints []string `json:"android_sha256_fingerprints,omitempty"`
	AndroidPlayStoreURL       *string  `json:"android_play_store_url,omitempty"`
	AndroidAppLinksPaths      []string `json:"android_app_links_paths,omitempty"`
}

// UpdateAppRequest is the body of UpdateApp: unset fields keep their
// values and Null clears one.
type UpdateAppRequest struct {
	Name                      *string            `json:"name,omitempty"`
	IOSBundleID               Nullable[string]   `json:"ios_bundle_id,omitzero"`
	IOSTeamID                 Nullable[string]   `json:"ios_team_id,omitzero"`
	IOSAppStoreID             Nullable[string]   `json:"ios_app_store_id,omitzero"`
	IOSAppStoreURL            Nullable[string]   `json:"ios_app_store_url,omitzero"`
	IOSUniversalLinkPaths     Nullable[[]string] `json:"ios_universal_link_paths,omitzero"`
	AndroidPackageName        Nullable[string]   `json:"android_package_name,omitzero"`
	AndroidSHA256Fingerprints Nullable[[]string] `json:"android_sha256_fingerprints,omitzero"`
	AndroidPlayStoreURL       Nullable[string]   `json:"android_play_store_url,omitzero"`
	AndroidAppLinksPaths      Nullable[[]string] `json:"android_app_links_paths,omitzero"`
}

// ListAppsParams filters ListApps; zero values are not sent.
type ListAppsParams struct {
	Page
	Search string
}

// AppList is a page of apps.
type AppList struct {
	Data       []App      `json:"data"`
	Pagination Pagination `json:"pagination"`
}

// SubdomainState is an app's subdomain, its rename period and the links
// left on its previous subdomain.
type SubdomainState struct {
	AppID              string        `json:"app_id"`
	Handle             string        `json:"handle"`
	LinkDomain         string        `json:"link_domain"`
	DefaultLinkDomain  string        `json:"default_link_domain"`
	PreviousLinkDomain *string       `json:"previous_link_domain"`
	RenamePeriod       *RenamePeriod `json:"rename_period"`
	PreviousLinks      PreviousLinks `json:"previous_links"`
}

// RenamePeriod is the open period after a subdomain rename.
type RenamePeriod struct {
	OpenedAt       time.Time `json:"opened_at"`
	EndsAt         time.Time `json:"ends_at"`
	ExtensionsUsed int       `json:"extensions_used"`
	ExtensionsLeft int       `json:"extensions_left"`
}

// PreviousLinks counts the links on an app's previous subdomain.
type PreviousLinks struct {
	Moving  int `json:"moving"`
	Waiting int `json:"waiting"`
	Kept    int `json:"kept"`
}

// RenameSubdomainRequest is the body of RenameAppSubdomain.
type RenameSubdomainRequest struct {
	Handle string `json:"handle"`
	// Confirm must be true when links use the current subdomain
	// (409 CONFIRMATION_REQUIRED otherwise).
	Confirm bool `json:"confirm,omitempty"`
}

// CreateApp creates an app (POST /apps).
func (c *Client) CreateApp(ctx context.Context, in CreateAppRequest) (*App, error) {
	return do[App](ctx, c, request{method: http.MethodPost, path: "/apps", body: in})
}

// ListApps returns one page of the organization's apps (GET /apps).
func (c *Client) ListApps(ctx context.Context, p ListAppsParams) (*AppList, error) {
	q := url.Values{}
	setInt(q, "limit", p.Limit)
	setInt(q, "offset", p.Offset)
	setString(q, "search", p.Search)
	return do[AppList](ctx, c, request{method: http.MethodGet, path: "/apps", query: q})
}

// AllApps walks every page of ListApps from p.
func (c *Client) AllApps(ctx context.Context, p ListAppsParams) iter.Seq2[App, error] {
	return offsetSeq(p.Page, func(pg Page) ([]App, Pagination, error) {
		p.Page = pg
		l, err := c.ListApps(ctx, p)
		if err != nil {
			return nil, Pagination{}, err
		}
		return l.Data, l.Pagination, nil
	})
}

// GetApp returns an app (GET /apps/{id}).
func (c *Client) GetApp(ctx context.Context, id string) (*App, error) {
	return do[App](ctx, c, request{method: http.MethodGet, path: pathf("/apps/%s", id)})
}

// UpdateApp changes an app (PATCH /apps/{id}).
func (c *Client) UpdateApp(ctx context.Context, id string, in UpdateAppRequest) (*App, error) {
	return do[App](ctx, c, request{method: http.MethodPatch, path: pathf("/apps/%s", id), body: in})
}

// DeleteApp deletes an app, returning it (DELETE /apps/{id}).
func (c *Client) DeleteApp(ctx context.Context, id string) (*App, error) {
	return do[App](ctx, c, request{method: http.MethodDelete, path: pathf("/apps/%s", id)})
}

// SetAppDefaultLinkDomain sets the domain new links of the app get; nil
// domain returns to the app's subdomain
// (PUT /apps/{id}/default-link-domain).
func (c *Client) SetAppDefaultLinkDomain(ctx context.Context, id string, domain *string) (*App, error) {
	body := struct {
		Domain *string `json:"domain"`
	}{domain}
	return do[App](ctx, c, request{method: http.MethodPut, path: pathf("/apps/%s/default-link-domain", id), body: body})
}

// GetAppSubdomain returns an app's subdomain state
// (GET /apps/{id}/subdomain).
func (c *Client) GetAppSubdomain(ctx context.Context, id string) (*SubdomainState, error) {
	return do[SubdomainState](ctx, c, request{method: http.MethodGet, path: pathf("/apps/%s/subdomain", id)})
}

// RenameAppSubdomain renames an app's subdomain
// (PUT /apps/{id}/subdomain). It needs a key a team member created
// (403 ATTRIBUTED_KEY_REQUIRED otherwise).
func (c *Client) RenameAppSubdomain(ctx context.Context, id string, in RenameSubdomainRequest) (*SubdomainState, error) {
	return do[SubdomainState](ctx, c, request{method: http.MethodPut, path: pathf("/apps/%s/subdomain", id), body: in})
}

// ExtendAppRenamePeriod extends the open rename period of an app
// (POST /apps/{id}/subdomain/extend).
func (c *Client) ExtendAppRenamePeriod(ctx context.Context, id string) (*SubdomainState, error) {
	return do[SubdomainState](ctx, c, request{method: http.MethodPost, path: pathf("/apps/%s/subdomain/extend", id)})
}
