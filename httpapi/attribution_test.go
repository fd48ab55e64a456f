package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// attrHarness serves the links, the attribution match and the installs and
// attempts lists over one store, with the matcher on the harness clock.
type attrHarness struct {
	*linkHarness
	matcher *attribution.Matcher
}

// cursorSecret is the harness's server secret.
var cursorSecret = []byte("0123456789abcdef0123456789abcdef")

func newAttrHarness(t *testing.T, s *store.Store, opts ...option) *attrHarness {
	t.Helper()
	ah := &attrHarness{linkHarness: &linkHarness{}}
	lh := ah.linkHarness
	opts = append([]option{withAPI(func(h *harness, o *httpapi.Options) {
		lh.links = linking.NewLinkService(h.store, h.store, h.store, linking.LinkServiceOptions{
			DefaultLinkDomain: linkDomain,
			ShortURLBase:      "http://{domain}:8080",
			Clock:             h.clock.Now,
			HashPassword:      func(pw string) (string, error) { return "fast:" + pw, nil },
		})
		ah.matcher = attribution.NewMatcher(h.store, attribution.MatcherOptions{Clock: h.clock.Now})
		// As the server wires it: app writes empty the matcher's apps cache.
		h.appListeners = append(h.appListeners, func(uuid.UUID) { ah.matcher.InvalidateAll() })
		o.Links = lh.links
		o.Attribution = ah.matcher
		o.Lists = attribution.NewLists(h.store, o.Orgs, attribution.ListsOptions{Secret: cursorSecret, Clock: h.clock.Now})
		o.Clock = h.clock.Now
	})}, opts...)
	lh.harness = newHarness(t, s, opts...)
	return ah
}

// click writes a redirect click of link l from an Android phone at the
// harness's time, as the click recorder's store writes it, and returns its id.
func (h *attrHarness) click(t testing.TB, l linkBody) uuid.UUID {
	t.Helper()
	id := testkit.IDAt(h.clock.Now())
	d := linking.ClassifyDevice(uaAndroid)
	c := analytics.Click{ID: id, Domain: l.Domain, Slug: l.Slug, LinkID: l.ID, AppID: l.AppID,
		OccurredAt: h.clock.Now(), Source: analytics.SourceRedirect, Platform: string(d.Platform), OS: d.OS,
		OSVersion: d.OSVersion, DeviceModel: d.Model, IP: "198.51.100.20", UserAgent: uaAndroid}
	var orgID uuid.UUID
	require.NoError(t, h.store.DB().NewSelect().Table("links").Column("org_id").Where("id = ?", l.ID).
		Scan(context.Background(), &orgID))
	c.OrgID = orgID
	n, err := h.store.InsertClicks(context.Background(), []analytics.Click{c})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	return id
}

// matchBody is an Android install whose Play Store referrer names click.
func matchBody(click uuid.UUID) string {
	return `{"platform":"android","fingerprint_version":"basic","sdk_version":"1.0.0",
		"device_id":"` + uuid.NewString() + `","referrer":"hop_click_id=` + click.String() + `"}`
}

// match posts body with key and the app header (when not empty).
func (h *attrHarness) match(t testing.TB, key, appHeader, body string) *response {
	t.Helper()
	headers := map[string]string{}
	if appHeader != "" {
		headers[httpapi.AppIDHeader] = appHeader
	}
	return h.do(t, request{method: http.MethodPost, path: "/v1/attribution/match", key: key, body: body, headers: headers})
}

func TestAttributionMatch(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAttrHarness(t, s)
		o, app := h.linkOrg(t, "Acme")
		key := o.key.raw
		sdk := h.sdkKey(t, o).raw
		l := h.create(t, key, `{"destination_url":"https://shop.example/p?id=7","slug":"spring","app_id":"`+app.ID.String()+`",
			"android_url":"https://shop.example/android/7"}`)

		t.Run("a referrer naming a click matches deterministically", func(t *testing.T) {
			click := h.click(t, l)
			resp := h.match(t, sdk, "", matchBody(click))
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			got := resp.object(t)
			assert.Equal(t, true, got["matched"])
			assert.Equal(t, "deterministic", got["match_type"])
			assert.Equal(t, 1.0, got["match_confidence"])
			assert.Equal(t, l.ID.String(), got["link_id"])
			assert.Equal(t, app.ID.String(), got["app_id"])
			assert.Equal(t, "https://shop.example/android/7", got["deep_link_url"])
			assert.Equal(t, map[string]any{"id": "7"}, got["custom_params"])
			_, err := uuid.Parse(got["install_id"].(string))
			assert.NoError(t, err)
			assert.Equal(t, 1, h.count(t, "installs", o.ID))
		})

		t.Run("no match answers matched false alone", func(t *testing.T) {
			resp := h.match(t, sdk, "", `{"platform":"ios","fingerprint_version":"enriched","sdk_version":"1.0.0"}`)
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.JSONEq(t, `{"matched":false}`, string(resp.body))
		})

		t.Run("an API key is 403 FORBIDDEN and records nothing", func(t *testing.T) {
			before := h.count(t, "attribution_attempts", o.ID)
			resp := h.match(t, key, "", matchBody(h.click(t, l)))
			assertError(t, resp, http.StatusForbidden, errcode.Forbidden)
			assert.Equal(t, before, h.count(t, "attribution_attempts", o.ID))
		})

		t.Run("a tied SDK key used for another app, or for an app unknown to the organization: one 403 KEY_APP_MISMATCH", func(t *testing.T) {
			other := h.newLinkApp(t, o.ID, func(a *linking.App) { pkg := "com.example.other"; a.AndroidPackageName = &pkg })
			tied := h.orgKey(t, o, auth.CreateKeyInput{Name: "tied", Type: auth.KeyTypeSDK, AppID: &app.ID}).raw
			first := h.match(t, tied, other.ID.String(), matchBody(h.click(t, l)))
			e1 := assertError(t, first, http.StatusForbidden, errcode.KeyAppMismatch)
			second := h.match(t, tied, "com.unknown.app", matchBody(h.click(t, l)))
			e2 := assertError(t, second, http.StatusForbidden, errcode.KeyAppMismatch)
			assert.Equal(t, e1.Error.Message, e2.Error.Message, "one message for both")
			resp := h.match(t, tied, app.ID.String(), matchBody(h.click(t, l)))
			require.Equal(t, http.StatusOK, resp.status, "its own app: body: %s", resp.body)
		})

		t.Run("invalid bodies are 400 VALIDATION_ERROR naming every field", func(t *testing.T) {
			tests := []struct {
				name   string
				body   string
				fields []string
			}{
				{"required fields missing", `{}`, []string{"platform", "fingerprint_version", "sdk_version"}},
				{"an unknown field", `{"platform":"ios","fingerprint_version":"basic","sdk_version":"1","ip":"1.2.3.4"}`, []string{"ip"}},
				{"enums", `{"platform":"web","fingerprint_version":"full","sdk_version":"1"}`, []string{"platform", "fingerprint_version"}},
				{"a fingerprint that is not 64 lowercase hex characters", `{"platform":"ios","fingerprint_version":"basic","sdk_version":"1",
					"fingerprint":"ABCDEF"}`, []string{"fingerprint"}},
				{"a device_id that is not a UUID", `{"platform":"ios","fingerprint_version":"basic","sdk_version":"1","device_id":"x"}`, []string{"device_id"}},
				{"a negative screen", `{"platform":"ios","fingerprint_version":"basic","sdk_version":"1","screen_width":-1}`, []string{"screen_width"}},
				{"wrong types", `{"platform":"ios","fingerprint_version":"basic","sdk_version":1,"screen_height":"tall","timezone_offset":1.5}`,
					[]string{"sdk_version", "screen_height", "timezone_offset"}},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					resp := h.do(t, request{method: http.MethodPost, path: "/v1/attribution/match", key: sdk, body: tt.body, off: true})
					e := assertError(t, resp, http.StatusBadRequest, errcode.ValidationError)
					assertFields(t, e, tt.fields...)
				})
			}
			resp := h.do(t, request{method: http.MethodPost, path: "/v1/attribution/match", key: sdk, body: `[1]`, off: true})
			assertError(t, resp, http.StatusBadRequest, errcode.ValidationError)
			resp = h.do(t, request{method: http.MethodPost, path: "/v1/attribution/match?debug=1", key: sdk,
				body: `{"platform":"ios","fingerprint_version":"basic","sdk_version":"1"}`, off: true})
			assertError(t, resp, http.StatusBadRequest, errcode.ValidationError)
		})

		t.Run("without a key: 401", func(t *testing.T) {
			resp := h.do(t, request{method: http.MethodPost, path: "/v1/attribution/match",
				body: `{"platform":"ios","fingerprint_version":"basic","sdk_version":"1"}`, off: true})
			assertError(t, resp, http.StatusUnauthorized, errcode.Unauthorized)
		})

		t.Run("an SDK key whose creator left the organization: 403 FORBIDDEN", func(t *testing.T) {
			m := h.newMember(t, o, auth.RoleMember)
			k, err := h.keys.CreateFor(context.Background(), o.ID, &m.id, m.role, auth.CreateKeyInput{Name: "sdk", Type: auth.KeyTypeSDK})
			require.NoError(t, err)
			require.NoError(t, h.orgs.RemoveMember(context.Background(), o.ID, m.email))
			h.clock.Advance(time.Minute) // past the authentication cache
			resp := h.match(t, k.RawKey, "", `{"platform":"ios","fingerprint_version":"basic","sdk_version":"1"}`)
			assertError(t, resp, http.StatusForbidden, errcode.Forbidden)
		})
	})
}

// TestAttributionMatchConcurrentClaims sends concurrent matches naming one
// click from different devices: exactly one claims it.
func TestAttributionMatchConcurrentClaims(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAttrHarness(t, s)
		o, app := h.linkOrg(t, "Acme")
		sdk := h.sdkKey(t, o).raw
		l := h.create(t, o.key.raw, `{"destination_url":"https://shop.example/p","slug":"spring","app_id":"`+app.ID.String()+`"}`)
		click := h.click(t, l)
		const n = 8
		var wg sync.WaitGroup
		results := make(chan string, n)
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := h.send(t, request{method: http.MethodPost, path: "/v1/attribution/match", key: sdk, body: matchBody(click)})
				if err != nil || resp.status != http.StatusOK {
					results <- "error"
					return
				}
				var m map[string]any
				if json.Unmarshal(resp.body, &m) != nil {
					results <- "error"
					return
				}
				results <- fmt.Sprint(m["matched"])
			}()
		}
		wg.Wait()
		close(results)
		counts := map[string]int{}
		for r := range results {
			counts[r]++
		}
		assert.Equal(t, map[string]int{"true": 1, "false": n - 1}, counts)
		assert.Equal(t, 1, h.count(t, "installs", o.ID))
		assert.Equal(t, n, h.count(t, "attribution_attempts", o.ID))
	})
}
