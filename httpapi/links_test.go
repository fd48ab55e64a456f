package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// linkDomain is the default link domain of the link tests, the harness's.
const linkDomain = defaultLinkDomain

// linkHarness is a harness that also serves /v1/links and the parameter
// defaults.
type linkHarness struct {
	*harness
	links *linking.LinkService
	// hashes counts the link passwords hashed.
	mu     sync.Mutex
	hashes int
}

// newLinkHarness starts a harness with the link service (default link domain
// the harness's, short URLs http://{domain}:8080/{slug}) and the parameter
// defaults. Link passwords are hashed with argon2id when slowHash, else
// with a fast stand-in.
func newLinkHarness(t *testing.T, s *store.Store, slowHash bool) *linkHarness {
	t.Helper()
	lh := &linkHarness{}
	lh.harness = newHarness(t, s, withAPI(func(h *harness, o *httpapi.Options) {
		hash := func(pw string) (string, error) {
			lh.mu.Lock()
			lh.hashes++
			lh.mu.Unlock()
			if slowHash {
				return identity.HashPassword(pw)
			}
			return "fast:" + pw, nil
		}
		lh.links = linking.NewLinkService(h.store, h.store, h.store, linking.LinkServiceOptions{
			DefaultLinkDomain: linkDomain,
			ShortURLBase:      "http://{domain}:8080",
			Clock:             h.clock.Now,
			HashPassword:      hash,
		})
		o.Links = lh.links
		o.Parameters = org.NewParameters(h.store, org.ParametersOptions{Clock: h.clock.Now})
	}))
	return lh
}

// newApp creates an app of orgID on its subdomain {handle}.{linkDomain}
// through the apps repository; change may adjust it first.
func (h *linkHarness) newLinkApp(t testing.TB, orgID uuid.UUID, change func(*linking.App)) *linking.App {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	handle := "app" + strings.ReplaceAll(id.String(), "-", "")[20:]
	now := h.clock.Now()
	a := &linking.App{ID: id, OrgID: orgID, Name: "App", Handle: handle,
		LinkDomain: handle + "." + linkDomain, DefaultLinkDomain: handle + "." + linkDomain, CreatedAt: now, UpdatedAt: now}
	if change != nil {
		change(a)
	}
	require.NoError(t, h.store.CreateApp(context.Background(), a, 1000))
	return a
}

// linkOrg creates an organization with an app.
func (h *linkHarness) linkOrg(t testing.TB, name string) (*testOrg, *linking.App) {
	t.Helper()
	o := h.newOrg(t, name)
	return o, h.newLinkApp(t, o.ID, nil)
}

// linkBody is the Link resource as a test reads it.
type linkBody struct {
	ID                 uuid.UUID       `json:"id"`
	ShortURL           string          `json:"short_url"`
	Slug               string          `json:"slug"`
	Name               *string         `json:"name"`
	Domain             string          `json:"domain"`
	DestinationURL     string          `json:"destination_url"`
	IOSURL             *string         `json:"ios_url"`
	IOSFallbackURL     *string         `json:"ios_fallback_url"`
	AndroidURL         *string         `json:"android_url"`
	AndroidFallbackURL *string         `json:"android_fallback_url"`
	OGTitle            *string         `json:"og_title"`
	OGDescription      *string         `json:"og_description"`
	OGImageURL         *string         `json:"og_image_url"`
	AppID              *uuid.UUID      `json:"app_id"`
	UTMSource          *string         `json:"utm_source"`
	UTMMedium          *string         `json:"utm_medium"`
	UTMCampaign        *string         `json:"utm_campaign"`
	MatchWindowHours   *int            `json:"match_window_hours"`
	ExpiresAt          *time.Time      `json:"expires_at"`
	IsActive           bool            `json:"is_active"`
	Tags               []string        `json:"tags"`
	Parameters         json.RawMessage `json:"parameters"`
	CreatedAt          time.Time       `json:"created_at"`
	UpdatedAt          time.Time       `json:"updated_at"`
	RedirectedFrom     []any           `json:"redirected_from"`
}

func (r *response) link(t testing.TB) linkBody {
	t.Helper()
	var l linkBody
	r.decode(t, &l)
	return l
}

// create posts body to /v1/links and requires 201.
func (h *linkHarness) create(t testing.TB, key, body string) linkBody {
	t.Helper()
	resp := h.post(t, key, "/v1/links", body)
	require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
	return resp.link(t)
}

func (h *linkHarness) patch(t testing.TB, key, path, body string) *response {
	t.Helper()
	return h.do(t, request{method: http.MethodPatch, path: path, key: key, body: body})
}

func linkPath(id uuid.UUID) string { return "/v1/links/" + id.String() }

// details returns the error envelope's details object.
func details(t testing.TB, r *response) map[string]any {
	t.Helper()
	var e struct {
		Error struct {
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	r.decode(t, &e)
	return e.Error.Details
}

func TestCreateLink(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newLinkHarness(t, s, true)
		o, app := h.linkOrg(t, "Acme")

		t.Run("the fewest fields", func(t *testing.T) {
			resp := h.post(t, o.key.raw, "/v1/links", `{"destination_url":"HTTPS://Shop.Example"}`)
			require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
			l := resp.link(t)
			assert.Equal(t, "https://shop.example/", l.DestinationURL, "a bare origin gets a trailing slash")
			assert.Len(t, l.Slug, 7, "a generated slug")
			assert.Equal(t, linkDomain, l.Domain, "a link with no app takes the default link domain")
			assert.Equal(t, "http://"+linkDomain+":8080/"+l.Slug, l.ShortURL)
			assert.Nil(t, l.Name, "null: the dashboard shows the slug")
			assert.Equal(t, []string{}, l.Tags)
			assert.True(t, l.IsActive)
			assert.Equal(t, "null", string(l.Parameters))
			obj := resp.object(t)
			assert.NotContains(t, obj, "redirected_from", "only GET /links/{id} has redirected_from")
			assert.Len(t, obj, 24, "every field of the Link resource, and nothing else")
		})

		t.Run("every field, and the password is never returned", func(t *testing.T) {
			expires := h.clock.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
			body := fmt.Sprintf(`{"destination_url":"https://shop.example/p?id=1","slug":"spring-sale","name":"Spring",
				"app_id":%q,"ios_url":"myapp://open/spring","ios_fallback_url":"https://apps.apple.com/app/id1",
				"android_url":"intent://spring","android_fallback_url":"https://play.google.com/store/apps/details?id=x",
				"og_title":"Spring sale","og_description":"Up to 50%% off","og_image_url":"https://cdn.example/s.png",
				"tags":["spring"," sale ","spring"],"expires_at":%q,"password":"open sesame","utm_source":"newsletter",
				"utm_medium":"email","utm_campaign":"spring","match_window_hours":72,
				"parameters":{"injected":[{"key":"ref","value":"hop","mode":"always"}],"forwarding":null,"defaultMode":null,
				"inheritOrgInjected":true,"suppressedOrgKeys":[]}}`, app.ID, expires)
			resp := h.post(t, o.key.raw, "/v1/links", body)
			require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
			assert.NotContains(t, string(resp.body), "password")
			assert.NotContains(t, string(resp.body), "open sesame")
			l := resp.link(t)
			assert.Equal(t, "spring-sale", l.Slug)
			assert.Equal(t, app.LinkDomain, l.Domain, "a link with an app takes the app's default link domain")
			assert.Equal(t, "http://"+app.LinkDomain+":8080/spring-sale", l.ShortURL)
			assert.Equal(t, "Spring", *l.Name)
			assert.Equal(t, app.ID, *l.AppID)
			assert.Equal(t, "myapp://open/spring", *l.IOSURL)
			assert.Equal(t, []string{"spring", "sale"}, l.Tags)
			assert.Equal(t, expires, l.ExpiresAt.Format(time.RFC3339))
			assert.Equal(t, 72, *l.MatchWindowHours)
			assert.Equal(t, "newsletter", *l.UTMSource)
			assert.JSONEq(t, `{"injected":[{"key":"ref","value":"hop","mode":"always"}],"forwarding":null,"defaultMode":null,
				"inheritOrgInjected":true,"suppressedOrgKeys":[]}`, string(l.Parameters))

			got := h.get(t, o.key.raw, linkPath(l.ID))
			require.Equal(t, http.StatusOK, got.status)
			assert.NotContains(t, string(got.body), "password")

			stored, err := s.LinkByID(context.Background(), o.ID, l.ID)
			require.NoError(t, err)
			require.NotNil(t, stored.PasswordHash)
			assert.True(t, strings.HasPrefix(*stored.PasswordHash, "$argon2id$"), "stored as an argon2id hash")
			ok, err := identity.VerifyPassword(*stored.PasswordHash, "open sesame")
			require.NoError(t, err)
			assert.True(t, ok)
		})

		t.Run("a creator's key records the creator", func(t *testing.T) {
			m := h.newMember(t, o, auth.RoleMember)
			l := h.create(t, h.memberKey(t, m, auth.ScopeLinksWrite).raw, `{"destination_url":"https://example.com"}`)
			stored, err := s.LinkByID(context.Background(), o.ID, l.ID)
			require.NoError(t, err)
			assert.Equal(t, &m.id, stored.CreatedBy)
		})
	})
}

func TestCreateLinkRefusals(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newLinkHarness(t, s, false)
		o, app := h.linkOrg(t, "Acme")
		other, theirApp := h.linkOrg(t, "Other")
		key := h.scopedKey(t, o, auth.ScopeLinksWrite).raw
		past := h.clock.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
		many := make([]string, 51)
		for i := range many {
			many[i] = fmt.Sprintf(`{"key":"k%d","value":"v","mode":null}`, i)
		}
		big := make([]string, 40)
		for i := range big {
			big[i] = fmt.Sprintf(`{"key":"k%d","value":%q,"mode":null}`, i, strings.Repeat("v", 500))
		}
		params := func(injected []string) string {
			return `{"injected":[` + strings.Join(injected, ",") + `],"inheritOrgInjected":true,"suppressedOrgKeys":[]}`
		}

		tests := []struct {
			name   string
			body   string
			off    bool // the document refuses the body too
			status int
			code   errcode.Code
			fields []string
		}{
			{"destination_url is required", `{"slug":"abc"}`, true, 400, errcode.ValidationError, []string{"destination_url"}},
			{"destination_url needs a protocol", `{"destination_url":"example.com"}`, false, 400, errcode.ValidationError, []string{"destination_url"}},
			{"destination_url must be http or https", `{"destination_url":"ftp://example.com/"}`, false, 400, errcode.ValidationError, []string{"destination_url"}},
			{"an unknown field", `{"destination_url":"https://example.com","color":"red"}`, true, 400, errcode.ValidationError, []string{"color"}},
			{"a wrong type", `{"destination_url":"https://example.com","tags":"spring"}`, true, 400, errcode.ValidationError, []string{"tags"}},
			{"a body that is not an object", `[]`, true, 400, errcode.ValidationError, []string{"body"}},
			{"a reserved slug", `{"destination_url":"https://example.com","slug":"admin"}`, false, 400, errcode.ValidationError, []string{"slug"}},
			{"a slug with capitals", `{"destination_url":"https://example.com","slug":"Spring"}`, true, 400, errcode.ValidationError, []string{"slug"}},
			{"a one-character slug", `{"destination_url":"https://example.com","slug":"a"}`, true, 400, errcode.ValidationError, []string{"slug"}},
			{"test on an app subdomain", `{"destination_url":"https://example.com","slug":"test","app_id":"` + app.ID.String() + `"}`, false, 400, errcode.ValidationError, []string{"slug"}},
			{"og_title over 255", `{"destination_url":"https://example.com","og_title":"` + strings.Repeat("t", 256) + `"}`, true, 400, errcode.ValidationError, []string{"og_title"}},
			{"21 tags", `{"destination_url":"https://example.com","tags":["` + strings.Repeat(`t","`, 20) + `t"]}`, true, 400, errcode.ValidationError, []string{"tags"}},
			{"a tag over 50", `{"destination_url":"https://example.com","tags":["` + strings.Repeat("t", 51) + `"]}`, true, 400, errcode.ValidationError, []string{"tags[0]"}},
			{"expires_at in the past", `{"destination_url":"https://example.com","expires_at":"` + past + `"}`, false, 400, errcode.ValidationError, []string{"expires_at"}},
			{"expires_at not a date-time", `{"destination_url":"https://example.com","expires_at":"tomorrow"}`, true, 400, errcode.ValidationError, []string{"expires_at"}},
			{"a password too short", `{"destination_url":"https://example.com","password":"abc"}`, true, 400, errcode.ValidationError, []string{"password"}},
			{"a utm field over 255", `{"destination_url":"https://example.com","utm_source":"` + strings.Repeat("u", 256) + `"}`, true, 400, errcode.ValidationError, []string{"utm_source"}},
			{"match_window_hours 0", `{"destination_url":"https://example.com","match_window_hours":0}`, true, 400, errcode.ValidationError, []string{"match_window_hours"}},
			{"match_window_hours over a year", `{"destination_url":"https://example.com","match_window_hours":8761}`, true, 400, errcode.ValidationError, []string{"match_window_hours"}},
			{"match_window_hours not an integer", `{"destination_url":"https://example.com","match_window_hours":1.5}`, true, 400, errcode.ValidationError, []string{"match_window_hours"}},
			{"app_id not a UUID", `{"destination_url":"https://example.com","app_id":"app-1"}`, true, 400, errcode.ValidationError, []string{"app_id"}},
			{"every bad field at once", `{"destination_url":"x","slug":"api","og_image_url":"javascript:x","name":" "}`, true, 400, errcode.ValidationError, []string{"destination_url", "slug", "og_image_url", "name"}},
			{"a parameter config field", `{"destination_url":"https://example.com","parameters":{"injected":[{"key":"a","value":"b","mode":"sometimes"}],"inheritOrgInjected":true,"suppressedOrgKeys":[]}}`, true, 400, errcode.ValidationError, []string{"parameters.injected[0].mode"}},
			{"a parameter config missing a field", `{"destination_url":"https://example.com","parameters":{"injected":[{"key":"a","value":"b"}],"suppressedOrgKeys":[]}}`, true, 400, errcode.ValidationError, []string{"parameters.injected[0].mode", "parameters.inheritOrgInjected"}},
			{"51 injected parameters", `{"destination_url":"https://example.com","parameters":` + params(many) + `}`, false, 400, errcode.ParamConfigTooLarge, nil},
			{"a parameter config over 16 KiB", `{"destination_url":"https://example.com","parameters":` + params(big) + `}`, false, 400, errcode.ParamConfigTooLarge, nil},
			{"an app of another organization", `{"destination_url":"https://example.com","app_id":"` + theirApp.ID.String() + `"}`, false, 400, errcode.InvalidAppID, []string{"app_id"}},
			{"an unknown app", `{"destination_url":"https://example.com","app_id":"` + uuid.NewString() + `"}`, false, 400, errcode.InvalidAppID, []string{"app_id"}},
			{"rule 4: a new app on the default link domain", `{"destination_url":"https://example.com","app_id":"` + app.ID.String() + `","domain":"` + linkDomain + `"}`, false, 422, errcode.InvalidDomain, nil},
			{"a domain the organization does not have", `{"destination_url":"https://example.com","domain":"evil.example"}`, false, 422, errcode.InvalidDomain, nil},
			{"rule 2: an app subdomain for a link with no app", `{"destination_url":"https://example.com","domain":"` + app.LinkDomain + `"}`, false, 422, errcode.InvalidDomain, nil},
			{"another organization's app subdomain", `{"destination_url":"https://example.com","app_id":"` + app.ID.String() + `","domain":"` + theirApp.LinkDomain + `"}`, false, 422, errcode.InvalidDomain, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				resp := h.do(t, request{method: http.MethodPost, path: "/v1/links", key: key, body: tt.body, off: tt.off})
				e := assertError(t, resp, tt.status, tt.code)
				assertFields(t, e, tt.fields...)
				if tt.code == errcode.InvalidDomain {
					d := details(t, resp)
					assert.Contains(t, d, "domain")
					assert.Contains(t, d, "allowed_link_domains")
				}
			})
		}
		assert.Equal(t, 0, h.count(t, "links", o.ID), "nothing was created")
		assert.Equal(t, 0, h.count(t, "links", other.ID))

		t.Run("a query parameter", func(t *testing.T) {
			resp := h.do(t, request{method: http.MethodPost, path: "/v1/links?x=1", key: key, body: `{"destination_url":"https://example.com"}`, off: true})
			assertError(t, resp, 400, errcode.ValidationError)
		})
		t.Run("401 without a key or with a bad one", func(t *testing.T) {
			assertError(t, h.post(t, "", "/v1/links", `{"destination_url":"https://example.com"}`), 401, errcode.Unauthorized)
			assertError(t, h.post(t, "svc_live_"+strings.Repeat("x", 32), "/v1/links", `{"destination_url":"https://example.com"}`), 401, errcode.Unauthorized)
		})
		t.Run("403 without links:write", func(t *testing.T) {
			read := h.scopedKey(t, o, auth.ScopeLinksRead).raw
			assertError(t, h.post(t, read, "/v1/links", `{"destination_url":"https://example.com"}`), 403, errcode.Forbidden)
		})
		t.Run("403 for an SDK key", func(t *testing.T) {
			assertError(t, h.post(t, h.sdkKey(t, o).raw, "/v1/links", `{"destination_url":"https://example.com"}`), 403, errcode.SDKKeyRouteForbidden)
		})
		t.Run("403 APP_REQUIRED for an organization without an app", func(t *testing.T) {
			bare := h.newOrg(t, "Bare")
			assertError(t, h.post(t, bare.key.raw, "/v1/links", `{"destination_url":"https://example.com"}`), 403, errcode.AppRequired)
			assert.Equal(t, 0, h.count(t, "links", bare.ID))
		})
		t.Run("409 DEFAULT_DOMAIN_UNAVAILABLE when the app's saved default is not live", func(t *testing.T) {
			lost := h.newLinkApp(t, o.ID, func(a *linking.App) { a.DefaultLinkDomain = "gone.acme.example" })
			resp := h.post(t, key, "/v1/links", `{"destination_url":"https://example.com","app_id":"`+lost.ID.String()+`"}`)
			assertError(t, resp, 409, errcode.DefaultDomainUnavailable)
			assert.Equal(t, []any{lost.LinkDomain}, details(t, resp)["allowed_link_domains"])
		})
	})
}

func TestSlugTaken(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newLinkHarness(t, s, false)
		o, app := h.linkOrg(t, "Acme")
		other, _ := h.linkOrg(t, "Other")
		h.create(t, o.key.raw, `{"destination_url":"https://example.com","slug":"spring"}`)

		resp := h.post(t, other.key.raw, "/v1/links", `{"destination_url":"https://example.com","slug":"spring"}`)
		assertError(t, resp, 409, errcode.SlugTaken)
		assert.Equal(t, map[string]any{"slug": "spring", "domain": linkDomain}, details(t, resp),
			"a slug is unique on its domain, whatever the organization")

		l := h.create(t, o.key.raw, `{"destination_url":"https://example.com","slug":"spring","app_id":"`+app.ID.String()+`"}`)
		assert.Equal(t, app.LinkDomain, l.Domain, "the same slug on another domain")
	})
}

// TestConcurrentCreatesOfOneSlug: of 20 concurrent POST /links with one slug
// on one domain, exactly one is created and the others get 409 SLUG_TAKEN.
func TestConcurrentCreatesOfOneSlug(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newLinkHarness(t, s, false)
		o, _ := h.linkOrg(t, "Acme")
		other, _ := h.linkOrg(t, "Other")
		keys := []string{o.key.raw, other.key.raw}
		const n = 20
		statuses := make([]int, n)
		codes := make([]errcode.Code, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				resp, err := h.send(t, request{method: http.MethodPost, path: "/v1/links", key: keys[i%2],
					body: `{"destination_url":"https://example.com","slug":"race"}`})
				if !assert.NoError(t, err) {
					return
				}
				statuses[i] = resp.status
				if resp.status != http.StatusCreated {
					var e envelope
					_ = json.Unmarshal(resp.body, &e)
					codes[i] = e.Error.Code
				}
			}()
		}
		close(start)
		wg.Wait()
		created := 0
		for i := range n {
			if statuses[i] == http.StatusCreated {
				created++
				continue
			}
			assert.Equal(t, http.StatusConflict, statuses[i])
			assert.Equal(t, errcode.SlugTaken, codes[i])
		}
		assert.Equal(t, 1, created)
		assert.Equal(t, 1, h.count(t, "links", o.ID)+h.count(t, "links", other.ID))
	})
}

// TestLinkLimit: the Free plan's links of one billing month, then 403
// LINK_LIMIT_EXCEEDED; a deleted link stops counting; a new month starts afresh.
func TestLinkLimit(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newLinkHarness(t, s, false)
		o, _ := h.linkOrg(t, "Acme")
		owner := testkit.Principal(o.ID, auth.RequestableScopes...)
		limit := org.LimitsOf(org.PlanFree).LinksPerMonth
		var first *linking.Link
		for i := range limit - 1 {
			l, err := h.links.Create(context.Background(), owner, linking.CreateLinkInput{DestinationURL: "https://example.com"})
			require.NoError(t, err, "link %d", i)
			if first == nil {
				first = l
			}
		}
		h.create(t, o.key.raw, `{"destination_url":"https://example.com"}`)
		resp := h.post(t, o.key.raw, "/v1/links", `{"destination_url":"https://example.com"}`)
		assertError(t, resp, 403, errcode.LinkLimitExceeded)

		require.Equal(t, http.StatusOK, h.delete(t, o.key.raw, linkPath(first.ID)).status)
		h.create(t, o.key.raw, `{"destination_url":"https://example.com"}`)
		assertError(t, h.post(t, o.key.raw, "/v1/links", `{"destination_url":"https://example.com"}`), 403, errcode.LinkLimitExceeded)

		h.clock.Advance(31 * 24 * time.Hour)
		h.create(t, o.key.raw, `{"destination_url":"https://example.com"}`)
	})
}

func TestListLinks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newLinkHarness(t, s, false)
		o, _ := h.linkOrg(t, "Acme")
		other, _ := h.linkOrg(t, "Other")
		key := o.key.raw
		h.create(t, key, `{"destination_url":"https://shop.example/a","slug":"alpha","tags":["ios","Spring"]}`)
		h.clock.Advance(time.Millisecond)
		bravo := h.create(t, key, `{"destination_url":"https://shop.example/b","slug":"bravo","name":"Summer SALE"}`)
		h.clock.Advance(time.Millisecond)
		h.create(t, key, `{"destination_url":"https://blog.example/100%25_off","slug":"charlie"}`)
		require.Equal(t, http.StatusOK, h.post(t, key, linkPath(bravo.ID)+"/deactivate", "").status)
		h.create(t, other.key.raw, `{"destination_url":"https://shop.example/a","slug":"other-alpha","tags":["ios"]}`)

		type page struct {
			Data       []linkBody `json:"data"`
			Pagination struct {
				Total   int  `json:"total"`
				Limit   int  `json:"limit"`
				Offset  int  `json:"offset"`
				HasMore bool `json:"has_more"`
			} `json:"pagination"`
		}
		list := func(t *testing.T, k, query string) page {
			t.Helper()
			resp := h.get(t, k, "/v1/links"+query)
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			var p page
			resp.decode(t, &p)
			return p
		}
		slugs := func(p page) []string {
			out := []string{}
			for _, l := range p.Data {
				out = append(out, l.Slug)
			}
			return out
		}

		t.Run("newest first, with the default page", func(t *testing.T) {
			p := list(t, key, "")
			assert.Equal(t, []string{"charlie", "bravo", "alpha"}, slugs(p), "only the organization's own links")
			assert.Equal(t, 3, p.Pagination.Total)
			assert.Equal(t, 20, p.Pagination.Limit)
			assert.Equal(t, 0, p.Pagination.Offset)
			assert.False(t, p.Pagination.HasMore)
			assert.Nil(t, p.Data[0].RedirectedFrom, "no redirected_from in lists")
			assert.Equal(t, "http://"+linkDomain+":8080/charlie", p.Data[0].ShortURL)
		})
		tests := []struct {
			query   string
			want    []string
			total   int
			hasMore bool
		}{
			{"?limit=2", []string{"charlie", "bravo"}, 3, true},
			{"?limit=2&offset=2", []string{"alpha"}, 3, false},
			{"?offset=5", []string{}, 3, false},
			{"?tag=ios", []string{"alpha"}, 1, false},
			{"?tag=IOS", []string{}, 0, false},
			{"?is_active=false", []string{"bravo"}, 1, false},
			{"?is_active=true", []string{"charlie", "alpha"}, 2, false},
			{"?search=LPH", []string{"alpha"}, 1, false},
			{"?search=sale", []string{"bravo"}, 1, false},
			{"?search=blog.EXAMPLE", []string{"charlie"}, 1, false},
			{"?search=spri", []string{"alpha"}, 1, false},
			{"?search=" + url.QueryEscape("%25_o"), []string{"charlie"}, 1, false},
			{"?search=" + url.QueryEscape("0%_"), []string{}, 0, false},
			{"?search=", []string{"charlie", "bravo", "alpha"}, 3, false},
			{"?search=shop&is_active=true&tag=Spring&limit=1", []string{"alpha"}, 1, false},
		}
		for _, tt := range tests {
			t.Run(tt.query, func(t *testing.T) {
				p := list(t, key, tt.query)
				assert.Equal(t, tt.want, slugs(p))
				assert.Equal(t, tt.total, p.Pagination.Total)
				assert.Equal(t, tt.hasMore, p.Pagination.HasMore)
			})
		}

		t.Run("members see every link", func(t *testing.T) {
			m := h.newMember(t, o, auth.RoleMember)
			p := list(t, h.memberKey(t, m, auth.ScopeLinksRead).raw, "")
			assert.Equal(t, []string{"charlie", "bravo", "alpha"}, slugs(p))
		})

		refusals := []struct {
			query  string
			fields []string
		}{
			{"?limit=0", []string{"limit"}},
			{"?limit=101", []string{"limit"}},
			{"?limit=ten", []string{"limit"}},
			{"?offset=-1", []string{"offset"}},
			{"?is_active=yes", []string{"is_active"}},
			{"?tag=", []string{"tag"}},
			{"?search=" + strings.Repeat("s", 201), []string{"search"}},
			{"?limit=1&limit=2", []string{"limit"}},
			{"?page=2", []string{"page"}},
			{"?page=2&limit=0&tag=x&tag=y", []string{"page", "tag"}},
		}
		for _, tt := range refusals {
			t.Run("400 for "+tt.query, func(t *testing.T) {
				resp := h.do(t, request{method: http.MethodGet, path: "/v1/links" + tt.query, key: key, off: true})
				assertFields(t, assertError(t, resp, 400, errcode.ValidationError), tt.fields...)
			})
		}
		t.Run("401 and 403", func(t *testing.T) {
			assertError(t, h.get(t, "", "/v1/links"), 401, errcode.Unauthorized)
			assertError(t, h.get(t, h.scopedKey(t, o, auth.ScopeAppsRead).raw, "/v1/links"), 403, errcode.Forbidden)
		})
	})
}

func TestGetLink(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newLinkHarness(t, s, false)
		o, _ := h.linkOrg(t, "Acme")
		other, _ := h.linkOrg(t, "Other")
		l := h.create(t, o.key.raw, `{"destination_url":"https://example.com","name":"Spring"}`)

		resp := h.get(t, h.scopedKey(t, o, auth.ScopeLinksRead).raw, linkPath(l.ID))
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		got := resp.link(t)
		assert.Equal(t, l.ID, got.ID)
		assert.Equal(t, "Spring", *got.Name)
		assert.Equal(t, []any{}, got.RedirectedFrom, "redirected_from is an empty array until links move")
		assert.Contains(t, resp.object(t), "redirected_from")

		assertError(t, h.do(t, request{method: http.MethodGet, path: "/v1/links/not-a-uuid", key: o.key.raw}), 400, errcode.InvalidID)
		assertError(t, h.get(t, o.key.raw, linkPath(uuid.Must(uuid.NewV7()))), 404, errcode.NotFound)
		assertError(t, h.get(t, other.key.raw, linkPath(l.ID)), 404, errcode.NotFound)
		assertError(t, h.do(t, request{method: http.MethodGet, path: linkPath(l.ID) + "?x=1", key: o.key.raw, off: true}), 400, errcode.ValidationError)
		assertError(t, h.get(t, "", linkPath(l.ID)), 401, errcode.Unauthorized)
		assertError(t, h.get(t, h.scopedKey(t, o, auth.ScopeKeysRead).raw, linkPath(l.ID)), 403, errcode.Forbidden)
	})
}

func TestUpdateLink(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newLinkHarness(t, s, false)
		o, app := h.linkOrg(t, "Acme")
		other, theirApp := h.linkOrg(t, "Other")
		key := o.key.raw
		l := h.create(t, key, `{"destination_url":"https://example.com","slug":"spring","name":"Spring","password":"open sesame",
			"tags":["a"],"utm_source":"news","app_id":"`+app.ID.String()+`","og_title":"Spring",
			"parameters":{"injected":[],"inheritOrgInjected":true,"suppressedOrgKeys":[]}}`)
		h.clock.Advance(time.Second)

		t.Run("fields sent change, absent ones do not", func(t *testing.T) {
			resp := h.patch(t, key, linkPath(l.ID), `{"destination_url":"https://example.com/new","og_description":"Fresh","tags":["b","c"],
				"match_window_hours":24,"utm_campaign":"spring"}`)
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			got := resp.link(t)
			assert.Equal(t, "https://example.com/new", got.DestinationURL)
			assert.Equal(t, "Fresh", *got.OGDescription)
			assert.Equal(t, []string{"b", "c"}, got.Tags)
			assert.Equal(t, 24, *got.MatchWindowHours)
			assert.Equal(t, "spring", *got.UTMCampaign)
			assert.Equal(t, "Spring", *got.Name, "absent: unchanged")
			assert.Equal(t, "news", *got.UTMSource, "absent: unchanged")
			assert.Equal(t, l.Slug, got.Slug)
			assert.Equal(t, l.CreatedAt, got.CreatedAt)
			assert.True(t, got.UpdatedAt.After(l.UpdatedAt))
			assert.NotContains(t, resp.object(t), "redirected_from")
		})
		t.Run("null clears; name null shows the slug again; password null removes protection", func(t *testing.T) {
			resp := h.patch(t, key, linkPath(l.ID), `{"name":null,"password":null,"og_title":null,"utm_source":null,"tags":null,
				"parameters":null,"app_id":null,"match_window_hours":null,"expires_at":null}`)
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			got := resp.link(t)
			assert.Nil(t, got.Name)
			assert.Nil(t, got.OGTitle)
			assert.Nil(t, got.UTMSource)
			assert.Nil(t, got.AppID)
			assert.Nil(t, got.MatchWindowHours)
			assert.Equal(t, []string{}, got.Tags)
			assert.Equal(t, "null", string(got.Parameters))
			assert.Equal(t, app.LinkDomain, got.Domain, "a link's domain never changes")
			stored, err := s.LinkByID(context.Background(), o.ID, l.ID)
			require.NoError(t, err)
			assert.Nil(t, stored.PasswordHash)
		})
		t.Run("a new password is stored hashed and never returned", func(t *testing.T) {
			resp := h.patch(t, key, linkPath(l.ID), `{"password":"new secret"}`)
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.NotContains(t, string(resp.body), "password")
			assert.NotContains(t, string(resp.body), "new secret")
			stored, err := s.LinkByID(context.Background(), o.ID, l.ID)
			require.NoError(t, err)
			assert.Equal(t, "fast:new secret", *stored.PasswordHash)
		})
		t.Run("is_active false pauses, true reactivates", func(t *testing.T) {
			resp := h.patch(t, key, linkPath(l.ID), `{"is_active":false}`)
			require.Equal(t, http.StatusOK, resp.status)
			assert.False(t, resp.link(t).IsActive)
			resp = h.patch(t, key, linkPath(l.ID), `{"is_active":true}`)
			require.Equal(t, http.StatusOK, resp.status)
			assert.True(t, resp.link(t).IsActive)
		})
		t.Run("an app whose domains include the link's", func(t *testing.T) {
			resp := h.patch(t, key, linkPath(l.ID), `{"app_id":"`+app.ID.String()+`"}`)
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Equal(t, app.ID, *resp.link(t).AppID)
		})

		second := h.newLinkApp(t, o.ID, nil)
		refusals := []struct {
			name   string
			body   string
			off    bool
			status int
			code   errcode.Code
			fields []string
		}{
			{"domain is immutable", `{"domain":"` + linkDomain + `"}`, true, 400, errcode.ImmutableField, []string{"domain"}},
			{"slug is immutable", `{"slug":"summer"}`, true, 400, errcode.ImmutableField, []string{"slug"}},
			{"both, even with other fields", `{"slug":"summer","domain":"x","name":"n"}`, true, 400, errcode.ImmutableField, []string{"slug", "domain"}},
			{"an unknown field", `{"colour":"red"}`, true, 400, errcode.ValidationError, []string{"colour"}},
			{"destination_url cannot be null", `{"destination_url":null}`, true, 400, errcode.ValidationError, []string{"destination_url"}},
			{"is_active cannot be null", `{"is_active":null}`, true, 400, errcode.ValidationError, []string{"is_active"}},
			{"a wrong type", `{"is_active":"no"}`, true, 400, errcode.ValidationError, []string{"is_active"}},
			{"an empty name", `{"name":""}`, true, 400, errcode.ValidationError, []string{"name"}},
			{"expires_at in the past", `{"expires_at":"2001-01-01T00:00:00Z"}`, false, 400, errcode.ValidationError, []string{"expires_at"}},
			{"a bad parameter config", `{"parameters":{"injected":[{"key":"","value":"v","mode":null}],"inheritOrgInjected":true,"suppressedOrgKeys":[]}}`, true, 400, errcode.ValidationError, []string{"parameters.injected[0].key"}},
			{"an app of another organization", `{"app_id":"` + theirApp.ID.String() + `"}`, false, 400, errcode.InvalidAppID, []string{"app_id"}},
			{"an app whose domains do not include the link's", `{"app_id":"` + second.ID.String() + `"}`, false, 422, errcode.InvalidDomain, nil},
		}
		for _, tt := range refusals {
			t.Run(tt.name, func(t *testing.T) {
				resp := h.do(t, request{method: http.MethodPatch, path: linkPath(l.ID), key: key, body: tt.body, off: tt.off})
				assertFields(t, assertError(t, resp, tt.status, tt.code), tt.fields...)
			})
		}
		t.Run("nothing changed by the refusals", func(t *testing.T) {
			got := h.get(t, key, linkPath(l.ID)).link(t)
			assert.Equal(t, "spring", got.Slug)
			assert.Equal(t, app.ID, *got.AppID)
		})
		t.Run("404 and 400", func(t *testing.T) {
			assertError(t, h.patch(t, other.key.raw, linkPath(l.ID), `{"name":"x"}`), 404, errcode.NotFound)
			assertError(t, h.patch(t, key, linkPath(uuid.Must(uuid.NewV7())), `{"name":"x"}`), 404, errcode.NotFound)
			assertError(t, h.do(t, request{method: http.MethodPatch, path: "/v1/links/123", key: key, body: `{"name":"x"}`}), 400, errcode.InvalidID)
		})
	})
}

// TestMembersChangeOnlyTheirOwnLinks proves the role matrix on links: a
// member reads and creates every link but changes and deletes only the
// links they created.
func TestMembersChangeOnlyTheirOwnLinks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newLinkHarness(t, s, false)
		o, _ := h.linkOrg(t, "Acme")
		alice := h.memberKey(t, h.newMember(t, o, auth.RoleMember), auth.ScopeLinksWrite).raw
		bob := h.memberKey(t, h.newMember(t, o, auth.RoleMember), auth.ScopeLinksWrite).raw
		admin := h.memberKey(t, h.newMember(t, o, auth.RoleAdmin), auth.ScopeLinksWrite).raw
		mine := h.create(t, alice, `{"destination_url":"https://example.com"}`)
		theirs := h.create(t, o.key.raw, `{"destination_url":"https://example.com"}`)

		for _, l := range []linkBody{mine, theirs} {
			assertError(t, h.patch(t, bob, linkPath(l.ID), `{"name":"x"}`), 403, errcode.Forbidden)
			assertError(t, h.post(t, bob, linkPath(l.ID)+"/deactivate", ""), 403, errcode.Forbidden)
			assertError(t, h.post(t, bob, linkPath(l.ID)+"/activate", ""), 403, errcode.Forbidden)
			assertError(t, h.delete(t, bob, linkPath(l.ID)), 403, errcode.Forbidden)
			assert.Equal(t, http.StatusOK, h.get(t, bob, linkPath(l.ID)).status, "members read every link")
		}
		assert.Equal(t, 2, h.count(t, "links", o.ID), "nothing was deleted")

		resp := h.patch(t, alice, linkPath(mine.ID), `{"name":"Mine"}`)
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		resp = h.patch(t, admin, linkPath(theirs.ID), `{"name":"Admin's"}`)
		require.Equal(t, http.StatusOK, resp.status, "admins change every link")
		require.Equal(t, http.StatusOK, h.post(t, alice, linkPath(mine.ID)+"/deactivate", "").status)
		require.Equal(t, http.StatusOK, h.delete(t, alice, linkPath(mine.ID)).status)
	})
}

func TestDeleteLink(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newLinkHarness(t, s, false)
		o, _ := h.linkOrg(t, "Acme")
		other, _ := h.linkOrg(t, "Other")
		l := h.create(t, o.key.raw, `{"destination_url":"https://example.com","slug":"spring","password":"open sesame"}`)

		assertError(t, h.delete(t, other.key.raw, linkPath(l.ID)), 404, errcode.NotFound)
		assertError(t, h.delete(t, h.scopedKey(t, o, auth.ScopeLinksRead).raw, linkPath(l.ID)), 403, errcode.Forbidden)
		assertError(t, h.do(t, request{method: http.MethodDelete, path: "/v1/links/spring", key: o.key.raw}), 400, errcode.InvalidID)

		resp := h.delete(t, o.key.raw, linkPath(l.ID))
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		deleted := resp.link(t)
		assert.Equal(t, l.ID, deleted.ID, "the deleted link is returned")
		assert.Equal(t, "spring", deleted.Slug)
		assert.NotContains(t, string(resp.body), "password")

		assertError(t, h.get(t, o.key.raw, linkPath(l.ID)), 404, errcode.NotFound)
		assertError(t, h.delete(t, o.key.raw, linkPath(l.ID)), 404, errcode.NotFound)
		again := h.create(t, other.key.raw, `{"destination_url":"https://example.com","slug":"spring"}`)
		assert.Equal(t, linkDomain, again.Domain, "the slug is free again")
	})
}

func TestActivateAndDeactivateLink(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newLinkHarness(t, s, false)
		o, _ := h.linkOrg(t, "Acme")
		other, _ := h.linkOrg(t, "Other")
		l := h.create(t, o.key.raw, `{"destination_url":"https://example.com"}`)

		resp := h.post(t, o.key.raw, linkPath(l.ID)+"/deactivate", "")
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		assert.False(t, resp.link(t).IsActive)
		assert.NotContains(t, resp.object(t), "redirected_from")
		resp = h.post(t, o.key.raw, linkPath(l.ID)+"/deactivate", "")
		require.Equal(t, http.StatusOK, resp.status, "deactivating a paused link changes nothing")
		assert.False(t, h.get(t, o.key.raw, linkPath(l.ID)).link(t).IsActive, "the link data is kept")

		resp = h.post(t, o.key.raw, linkPath(l.ID)+"/activate", "")
		require.Equal(t, http.StatusOK, resp.status)
		assert.True(t, resp.link(t).IsActive)

		assertError(t, h.post(t, other.key.raw, linkPath(l.ID)+"/activate", ""), 404, errcode.NotFound)
		assertError(t, h.post(t, o.key.raw, "/v1/links/x/deactivate", ""), 400, errcode.InvalidID)
	})
}

func TestOrganizationParameters(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newLinkHarness(t, s, false)
		o, _ := h.linkOrg(t, "Acme")
		other, _ := h.linkOrg(t, "Other")
		path := orgPath(o.ID) + "/parameters"

		resp := h.get(t, o.key.raw, path)
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		assert.JSONEq(t, `{"injected":[],"forwarding":null,"defaultMode":null}`, string(resp.body), "none set")

		body := `{"injected":[{"key":"ref","value":"hoplink","mode":null}],"forwarding":{"enabled":true,"allowlist":["utm_source"]},"defaultMode":"always"}`
		resp = h.do(t, request{method: http.MethodPut, path: path, key: o.key.raw, body: body})
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		assert.JSONEq(t, body, string(resp.body))
		member := h.memberKey(t, h.newMember(t, o, auth.RoleMember), auth.ScopeOrgRead, auth.ScopeLinksWrite).raw
		resp = h.get(t, member, path)
		require.Equal(t, http.StatusOK, resp.status, "every role reads them")
		assert.JSONEq(t, body, string(resp.body))

		resp = h.do(t, request{method: http.MethodPut, path: path, key: o.key.raw, body: `{"injected":[]}`})
		require.Equal(t, http.StatusOK, resp.status, "absent forwarding and defaultMode are null")
		assert.JSONEq(t, `{"injected":[],"forwarding":null,"defaultMode":null}`, string(resp.body))

		admin := h.memberKey(t, h.newMember(t, o, auth.RoleAdmin), auth.ScopeLinksWrite).raw
		require.Equal(t, http.StatusOK, h.do(t, request{method: http.MethodPut, path: path, key: admin, body: body}).status, "admins change them")

		many := make([]string, 51)
		for i := range many {
			many[i] = fmt.Sprintf(`{"key":"k%d","value":"v","mode":null}`, i)
		}
		refusals := []struct {
			name   string
			key    string
			path   string
			body   string
			off    bool
			status int
			code   errcode.Code
			fields []string
		}{
			{"a member may not change them", member, path, body, false, 403, errcode.Forbidden, nil},
			{"links:write is needed", h.scopedKey(t, o, auth.ScopeOrgRead).raw, path, body, false, 403, errcode.Forbidden, nil},
			{"another organization", o.key.raw, orgPath(other.ID) + "/parameters", body, false, 404, errcode.NotFound, nil},
			{"an id that is not a UUID", o.key.raw, "/v1/organizations/acme/parameters", body, false, 400, errcode.InvalidID, nil},
			{"field errors name fields from the top", o.key.raw, path, `{"injected":[{"key":"a","value":"v","mode":"never"},{"key":"b","value":"v"}]}`, true, 400, errcode.ValidationError, []string{"injected[0].mode", "injected[1].mode"}},
			{"a blank key", o.key.raw, path, `{"injected":[{"key":" ","value":"v","mode":null}]}`, true, 400, errcode.ValidationError, []string{"injected[0].key"}},
			{"injected is required", o.key.raw, path, `{"defaultMode":null}`, true, 400, errcode.ValidationError, []string{"injected"}},
			{"an unknown field", o.key.raw, path, `{"injected":[],"inheritOrgInjected":true}`, true, 400, errcode.ValidationError, []string{"inheritOrgInjected"}},
			{"no body", o.key.raw, path, ``, true, 400, errcode.ValidationError, []string{"body"}},
			{"too many injected parameters", o.key.raw, path, `{"injected":[` + strings.Join(many, ",") + `]}`, false, 400, errcode.ParamConfigTooLarge, nil},
		}
		for _, tt := range refusals {
			t.Run(tt.name, func(t *testing.T) {
				resp := h.do(t, request{method: http.MethodPut, path: tt.path, key: tt.key, body: tt.body, off: tt.off})
				assertFields(t, assertError(t, resp, tt.status, tt.code), tt.fields...)
			})
		}
		assertError(t, h.get(t, o.key.raw, orgPath(other.ID)+"/parameters"), 404, errcode.NotFound)
		assertError(t, h.get(t, h.scopedKey(t, o, auth.ScopeLinksRead).raw, path), 403, errcode.Forbidden)
		assertError(t, h.get(t, "", path), 401, errcode.Unauthorized)

		resp = h.get(t, o.key.raw, path)
		assert.JSONEq(t, body, string(resp.body), "the refusals changed nothing")
		resp = h.get(t, other.key.raw, orgPath(other.ID)+"/parameters")
		assert.JSONEq(t, `{"injected":[],"forwarding":null,"defaultMode":null}`, string(resp.body), "each organization has its own")
	})
}

// LinkWithRedirects repeats Link's properties (see the comment in
// openapi.yaml): they must stay the same.
func TestLinkWithRedirectsIsLinkPlusRedirectedFrom(t *testing.T) {
	t.Parallel()
	doc, _, err := httpapi.OpenAPI()
	require.NoError(t, err)
	link := doc.Components.Schemas["Link"].Value
	withRedirects := doc.Components.Schemas["LinkWithRedirects"].Value
	assert.Equal(t, append(append([]string{}, link.Required...), "redirected_from"), withRedirects.Required)
	assert.Len(t, withRedirects.Properties, len(link.Properties)+1)
	for name, prop := range link.Properties {
		want, err := json.Marshal(prop)
		require.NoError(t, err)
		got, err := json.Marshal(withRedirects.Properties[name])
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(got), "property %s", name)
	}
}
