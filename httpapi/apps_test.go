package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func appPath(id uuid.UUID) string { return "/v1/apps/" + id.String() }

// appFields are the members of the App resource, every one always present.
var appFields = []string{
	"id", "org_id", "name", "ios_bundle_id", "ios_team_id", "ios_app_store_id", "ios_app_store_url",
	"ios_universal_link_paths", "android_package_name", "android_sha256_fingerprints",
	"android_play_store_url", "android_app_links_paths", "handle", "default_link_domain",
	"legacy_apex_enabled", "link_domain", "previous_link_domain", "created_at", "updated_at",
}

// app decodes an App body.
func (r *response) app(t testing.TB) linking.App {
	t.Helper()
	var a linking.App
	r.decode(t, &a)
	return a
}

// createApp creates an app through the API and returns it.
func (h *harness) createApp(t testing.TB, key, body string) linking.App {
	t.Helper()
	resp := h.post(t, key, "/v1/apps", body)
	require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
	return resp.app(t)
}

func (h *harness) patchApp(t testing.TB, key string, id uuid.UUID, body string) *response {
	t.Helper()
	return h.do(t, request{method: http.MethodPatch, path: appPath(id), key: key, body: body})
}

// scaleOrg creates an organization on the Scale plan, so that its app limit
// does not get in the way.
func (h *harness) scaleOrg(t testing.TB, name string) *testOrg {
	t.Helper()
	o := h.newOrg(t, name)
	_, err := h.orgs.SetPlan(t.Context(), o.ID, org.PlanScale)
	require.NoError(t, err)
	return o
}

// duplicateField asserts r is 409 DUPLICATE_APP naming field in details.field.
func duplicateField(t testing.TB, r *response, field string) {
	t.Helper()
	assertError(t, r, http.StatusConflict, errcode.DuplicateApp)
	details, _ := r.object(t)["error"].(map[string]any)["details"].(map[string]any)
	assert.Equal(t, field, details["field"], "details.field; body: %s", r.body)
}

const fp = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"

func TestCreateApp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)

		t.Run("201 with every field, a handle, its subdomain and the defaults", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			resp := h.post(t, o.key.raw, "/v1/apps", `{
				"name": "Acme Shop",
				"ios_bundle_id": "com.acme.shop",
				"ios_team_id": "ABCDE12345",
				"ios_app_store_id": "1234567890",
				"ios_app_store_url": "https://apps.apple.com/app/id1234567890",
				"ios_universal_link_paths": ["/products/*", "*"],
				"android_package_name": "com.acme.shop",
				"android_sha256_fingerprints": ["`+strings.ToLower(fp)+`"],
				"android_play_store_url": "https://play.google.com/store/apps/details?id=com.acme.shop",
				"android_app_links_paths": []
			}`)
			require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
			obj := resp.object(t)
			assert.ElementsMatch(t, appFields, keysOf(obj), "every field is present")
			a := resp.app(t)
			assert.Equal(t, o.ID, a.OrgID)
			assert.Equal(t, "Acme Shop", a.Name)
			assert.Equal(t, "com.acme.shop", *a.IOSBundleID)
			assert.Equal(t, "ABCDE12345", *a.IOSTeamID)
			assert.Equal(t, "1234567890", *a.IOSAppStoreID)
			assert.Equal(t, "https://apps.apple.com/app/id1234567890", *a.IOSAppStoreURL)
			assert.Equal(t, []string{"/products/*", "*"}, a.IOSUniversalLinkPaths)
			assert.Equal(t, "com.acme.shop", *a.AndroidPackageName)
			assert.Equal(t, []string{fp}, a.AndroidSHA256Fingerprints, "fingerprints are uppercased")
			assert.Equal(t, "https://play.google.com/store/apps/details?id=com.acme.shop", *a.AndroidPlayStoreURL)
			assert.Equal(t, []any{}, obj["android_app_links_paths"], "[] stays []")
			assert.Equal(t, "acme-shop", a.Handle)
			assert.Equal(t, "acme-shop."+defaultLinkDomain, a.LinkDomain)
			assert.Equal(t, a.LinkDomain, a.DefaultLinkDomain, "a new app's default link domain is its subdomain")
			assert.False(t, a.LegacyApexEnabled)
			assert.Nil(t, obj["previous_link_domain"])
			assert.True(t, h.clock.Now().Equal(a.CreatedAt), "created_at %s", a.CreatedAt)
			assert.Equal(t, a.CreatedAt, a.UpdatedAt)

			got := h.get(t, o.key.raw, appPath(a.ID))
			require.Equal(t, http.StatusOK, got.status)
			assert.JSONEq(t, string(resp.body), string(got.body), "read back as created")
		})

		t.Run("only the name is required; the rest is null", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			resp := h.post(t, o.key.raw, "/v1/apps", `{"name":"Bare","ios_bundle_id":null}`)
			require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
			obj := resp.object(t)
			for _, f := range []string{"ios_bundle_id", "ios_team_id", "ios_app_store_id", "ios_app_store_url",
				"ios_universal_link_paths", "android_package_name", "android_sha256_fingerprints",
				"android_play_store_url", "android_app_links_paths", "previous_link_domain"} {
				assert.Nil(t, obj[f], f)
			}
		})

		t.Run("handles are unique across the service and never reserved", func(t *testing.T) {
			a, b := h.newOrg(t, "A"), h.newOrg(t, "B")
			first := h.createApp(t, a.key.raw, `{"name":"Globex"}`)
			second := h.createApp(t, b.key.raw, `{"name":"Globex"}`)
			assert.Equal(t, "globex", first.Handle)
			assert.Regexp(t, `^globex-[a-z0-9]{7}$`, second.Handle, "the second gets a suffix")
			assert.Equal(t, second.Handle+"."+defaultLinkDomain, second.LinkDomain)
			for _, name := range []string{"www", "API", "mcp", "cname"} {
				c := h.newOrg(t, name)
				app := h.createApp(t, c.key.raw, `{"name":"`+name+`"}`)
				assert.Regexp(t, `^`+strings.ToLower(name)+`-[a-z0-9]{7}$`, app.Handle, name)
			}
		})

		t.Run("the Free plan allows one app: 403 APP_LIMIT_EXCEEDED", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			require.Equal(t, org.PlanFree, o.Plan)
			h.createApp(t, o.key.raw, `{"name":"One"}`)
			assertError(t, h.post(t, o.key.raw, "/v1/apps", `{"name":"Two"}`), http.StatusForbidden, errcode.AppLimitExceeded)
			assert.Equal(t, 1, h.count(t, "apps", o.ID))

			_, err := h.orgs.SetPlan(t.Context(), o.ID, org.PlanStarter)
			require.NoError(t, err)
			h.createApp(t, o.key.raw, `{"name":"Two"}`)
		})

		t.Run("409 DUPLICATE_APP for a bundle id or package name of another app of the organization", func(t *testing.T) {
			o := h.scaleOrg(t, "Acme")
			h.createApp(t, o.key.raw, `{"name":"A","ios_bundle_id":"com.acme.a","android_package_name":"com.acme.a"}`)
			duplicateField(t, h.post(t, o.key.raw, "/v1/apps", `{"name":"B","ios_bundle_id":"com.acme.a"}`), "ios_bundle_id")
			duplicateField(t, h.post(t, o.key.raw, "/v1/apps", `{"name":"B","android_package_name":"com.acme.a"}`), "android_package_name")
			assert.Equal(t, 1, h.count(t, "apps", o.ID))

			other := h.newOrg(t, "Other")
			h.createApp(t, other.key.raw, `{"name":"A","ios_bundle_id":"com.acme.a","android_package_name":"com.acme.a"}`)
		})
	})
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestCreateAppRefusals(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		o := h.scaleOrg(t, "Acme")
		long := strings.Repeat("a", 256)
		tests := []struct {
			name   string
			body   string
			fields []string
		}{
			{"name is required", `{"ios_bundle_id":"com.acme.a"}`, []string{"name"}},
			{"name may not be null", `{"name":null}`, []string{"name"}},
			{"name may not be empty", `{"name":""}`, []string{"name"}},
			{"name may not be blank", `{"name":"   "}`, []string{"name"}},
			{"name of 256 characters", `{"name":"` + long + `"}`, []string{"name"}},
			{"bundle id not in reverse-domain notation", `{"name":"A","ios_bundle_id":"acme"}`, []string{"ios_bundle_id"}},
			{"team id of lowercase letters", `{"name":"A","ios_team_id":"abcde12345"}`, []string{"ios_team_id"}},
			{"App Store id not numeric", `{"name":"A","ios_app_store_id":"id123"}`, []string{"ios_app_store_id"}},
			{"App Store URL without a protocol", `{"name":"A","ios_app_store_url":"apps.apple.com/app/id1"}`, []string{"ios_app_store_url"}},
			{"universal link path without a leading slash", `{"name":"A","ios_universal_link_paths":["/a","b"]}`, []string{"ios_universal_link_paths[1]"}},
			{"51 universal link paths", `{"name":"A","ios_universal_link_paths":[` + strings.TrimSuffix(strings.Repeat(`"/a",`, 51), ",") + `]}`, []string{"ios_universal_link_paths"}},
			{"package name that is not a Java package name", `{"name":"A","android_package_name":"com.acme-app"}`, []string{"android_package_name"}},
			{"fingerprint of another shape", `{"name":"A","android_sha256_fingerprints":["AB:CD"]}`, []string{"android_sha256_fingerprints[0]"}},
			{"Play Store URL of another scheme", `{"name":"A","android_play_store_url":"market://details?id=com.acme"}`, []string{"android_play_store_url"}},
			{"app links path of 256 characters", `{"name":"A","android_app_links_paths":["/` + long[1:] + `x"]}`, []string{"android_app_links_paths[0]"}},
			{"every invalid field is named", `{"name":"","ios_team_id":"x","android_package_name":"x"}`, []string{"name", "ios_team_id", "android_package_name"}},
			{"an unknown field", `{"name":"A","ios_bundle":"com.acme.a"}`, []string{"ios_bundle"}},
			{"wrong types, field by field", `{"name":5,"ios_bundle_id":true,"ios_universal_link_paths":"/a","android_sha256_fingerprints":{}}`,
				[]string{"name", "ios_bundle_id", "ios_universal_link_paths", "android_sha256_fingerprints"}},
			{"not an object", `["name"]`, []string{"body"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				before := h.count(t, "apps", o.ID)
				resp := h.do(t, request{method: http.MethodPost, path: "/v1/apps", key: o.key.raw, body: tt.body, off: true})
				assertFields(t, assertError(t, resp, http.StatusBadRequest, errcode.ValidationError), tt.fields...)
				assert.Equal(t, before, h.count(t, "apps", o.ID), "nothing was created")
			})
		}

		t.Run("a query parameter is refused", func(t *testing.T) {
			resp := h.do(t, request{method: http.MethodPost, path: "/v1/apps?x=1", key: o.key.raw, body: `{"name":"A"}`, off: true})
			assertFields(t, assertError(t, resp, http.StatusBadRequest, errcode.ValidationError), "x")
		})
	})
}

func TestListApps(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		o := h.scaleOrg(t, "Acme")
		var names []string
		for i := range 5 {
			name := fmt.Sprintf("App %d", i)
			h.createApp(t, o.key.raw, `{"name":"`+name+`","ios_bundle_id":"com.acme.app`+fmt.Sprint(i)+`"}`)
			names = append(names, name)
			h.clock.Advance(time.Millisecond)
		}
		h.createApp(t, o.key.raw, `{"name":"Shop","android_package_name":"io.shop.Android"}`)
		names = append(names, "Shop")
		other := h.newOrg(t, "Other")
		h.createApp(t, other.key.raw, `{"name":"Shop"}`)

		type page struct {
			Data       []linking.App      `json:"data"`
			Pagination apitype.Pagination `json:"pagination"`
		}
		list := func(t *testing.T, key, query string) page {
			t.Helper()
			resp := h.get(t, key, "/v1/apps"+query)
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			var p page
			resp.decode(t, &p)
			return p
		}
		namesOf := func(apps []linking.App) []string {
			out := []string{}
			for _, a := range apps {
				out = append(out, a.Name)
			}
			return out
		}

		tests := []struct {
			name  string
			query string
			want  []string
			pag   apitype.Pagination
		}{
			{"every app of the organization, oldest first, 20 by default", "", names, apitype.Pagination{Total: 6, Limit: 20, Offset: 0}},
			{"a first page", "?limit=2", names[:2], apitype.Pagination{Total: 6, Limit: 2, Offset: 0, HasMore: true}},
			{"a middle page", "?limit=2&offset=2", names[2:4], apitype.Pagination{Total: 6, Limit: 2, Offset: 2, HasMore: true}},
			{"the last page", "?limit=2&offset=4", names[4:], apitype.Pagination{Total: 6, Limit: 2, Offset: 4}},
			{"past the end", "?offset=10", []string{}, apitype.Pagination{Total: 6, Limit: 20, Offset: 10}},
			{"limit 100", "?limit=100", names, apitype.Pagination{Total: 6, Limit: 100, Offset: 0}},
			{"search the name, ignoring case", "?search=sHoP", []string{"Shop"}, apitype.Pagination{Total: 1, Limit: 20}},
			{"search the bundle id", "?search=acme.app3", []string{"App 3"}, apitype.Pagination{Total: 1, Limit: 20}},
			{"search the package name, ignoring case", "?search=" + url.QueryEscape("SHOP.android"), []string{"Shop"}, apitype.Pagination{Total: 1, Limit: 20}},
			{"search and page", "?search=app&limit=2&offset=1", names[1:3], apitype.Pagination{Total: 5, Limit: 2, Offset: 1, HasMore: true}},
			{"search of 200 characters", "?search=" + strings.Repeat("x", 200), []string{}, apitype.Pagination{Total: 0, Limit: 20}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				p := list(t, o.key.raw, tt.query)
				assert.Equal(t, tt.want, namesOf(p.Data))
				assert.Equal(t, tt.pag, p.Pagination)
			})
		}

		refusals := []struct {
			name   string
			query  string
			fields []string
		}{
			{"an unknown parameter", "?page=2", []string{"page"}},
			{"a repeated parameter", "?limit=1&limit=2", []string{"limit"}},
			{"limit not an integer", "?limit=ten", []string{"limit"}},
			{"limit 0", "?limit=0", []string{"limit"}},
			{"limit 101", "?limit=101", []string{"limit"}},
			{"a negative offset", "?offset=-1", []string{"offset"}},
			{"offset not an integer", "?offset=1.5", []string{"offset"}},
			{"search of 201 characters", "?search=" + strings.Repeat("x", 201), []string{"search"}},
			{"every problem is named", "?limit=0&offset=-1&search=" + strings.Repeat("x", 201), []string{"limit", "offset", "search"}},
		}
		for _, tt := range refusals {
			t.Run("400 for "+tt.name, func(t *testing.T) {
				resp := h.do(t, request{method: http.MethodGet, path: "/v1/apps" + tt.query, key: o.key.raw, off: true})
				assertFields(t, assertError(t, resp, http.StatusBadRequest, errcode.ValidationError), tt.fields...)
			})
		}

		t.Run("another organization sees only its own", func(t *testing.T) {
			p := list(t, other.key.raw, "")
			assert.Equal(t, []string{"Shop"}, namesOf(p.Data))
			assert.Equal(t, 1, p.Pagination.Total)
		})
	})
}

func TestGetUpdateDeleteAppRefusals(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		o, other := h.newOrg(t, "Acme"), h.newOrg(t, "Other")
		theirs := h.createApp(t, other.key.raw, `{"name":"Theirs"}`)
		for _, method := range []string{http.MethodGet, http.MethodPatch, http.MethodDelete} {
			body := ""
			if method == http.MethodPatch {
				body = `{"name":"Mine"}`
			}
			t.Run(method+": 400 INVALID_ID", func(t *testing.T) {
				resp := h.do(t, request{method: method, path: "/v1/apps/nope", key: o.key.raw, body: body})
				assertError(t, resp, http.StatusBadRequest, errcode.InvalidID)
			})
			t.Run(method+": 404 for an app that does not exist", func(t *testing.T) {
				resp := h.do(t, request{method: method, path: appPath(uuid.Must(uuid.NewV7())), key: o.key.raw, body: body})
				assertError(t, resp, http.StatusNotFound, errcode.NotFound)
			})
			t.Run(method+": 404 for another organization's app", func(t *testing.T) {
				resp := h.do(t, request{method: method, path: appPath(theirs.ID), key: o.key.raw, body: body})
				assertError(t, resp, http.StatusNotFound, errcode.NotFound)
			})
			t.Run(method+": 401 without a key", func(t *testing.T) {
				resp := h.do(t, request{method: method, path: appPath(theirs.ID), body: body})
				assertError(t, resp, http.StatusUnauthorized, errcode.Unauthorized)
			})
		}
		got := h.get(t, other.key.raw, appPath(theirs.ID))
		require.Equal(t, http.StatusOK, got.status)
		assert.Equal(t, "Theirs", got.app(t).Name, "unchanged")
	})
}

func TestUpdateApp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		o := h.scaleOrg(t, "Acme")
		a := h.createApp(t, o.key.raw, `{
			"name": "Acme",
			"ios_bundle_id": "com.acme.app",
			"ios_team_id": "ABCDE12345",
			"ios_universal_link_paths": ["/a"],
			"android_package_name": "com.acme.app",
			"android_sha256_fingerprints": ["`+fp+`"]
		}`)
		h.clock.Advance(time.Second)

		t.Run("absent fields are kept, null clears, values change", func(t *testing.T) {
			resp := h.patchApp(t, o.key.raw, a.ID, `{"name":"Acme Store","ios_team_id":null,"android_sha256_fingerprints":[],"android_app_links_paths":["/x/*"]}`)
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			got := resp.app(t)
			assert.Equal(t, "Acme Store", got.Name)
			assert.Nil(t, got.IOSTeamID, "null clears")
			assert.Equal(t, []string{}, got.AndroidSHA256Fingerprints, "[] empties")
			assert.Equal(t, []string{"/x/*"}, got.AndroidAppLinksPaths)
			assert.Equal(t, a.IOSBundleID, got.IOSBundleID, "absent keeps")
			assert.Equal(t, a.IOSUniversalLinkPaths, got.IOSUniversalLinkPaths, "absent keeps")
			assert.Equal(t, a.AndroidPackageName, got.AndroidPackageName, "absent keeps")
			assert.Equal(t, a.Handle, got.Handle, "a new name keeps the handle")
			assert.Equal(t, a.LinkDomain, got.LinkDomain)
			assert.Equal(t, a.DefaultLinkDomain, got.DefaultLinkDomain)
			assert.Equal(t, a.CreatedAt, got.CreatedAt)
			assert.True(t, h.clock.Now().Equal(got.UpdatedAt), "updated_at %s", got.UpdatedAt)

			read := h.get(t, o.key.raw, appPath(a.ID))
			assert.JSONEq(t, string(resp.body), string(read.body), "stored")
		})

		t.Run("every nullable field clears", func(t *testing.T) {
			resp := h.patchApp(t, o.key.raw, a.ID, `{"ios_bundle_id":null,"ios_team_id":null,"ios_app_store_id":null,
				"ios_app_store_url":null,"ios_universal_link_paths":null,"android_package_name":null,
				"android_sha256_fingerprints":null,"android_play_store_url":null,"android_app_links_paths":null}`)
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			obj := resp.object(t)
			for _, f := range []string{"ios_bundle_id", "ios_team_id", "ios_app_store_id", "ios_app_store_url",
				"ios_universal_link_paths", "android_package_name", "android_sha256_fingerprints",
				"android_play_store_url", "android_app_links_paths"} {
				assert.Nil(t, obj[f], f)
			}
			assert.Equal(t, "Acme Store", obj["name"])
		})

		t.Run("an empty body changes nothing", func(t *testing.T) {
			before := h.get(t, o.key.raw, appPath(a.ID)).app(t)
			resp := h.patchApp(t, o.key.raw, a.ID, `{}`)
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			got := resp.app(t)
			got.UpdatedAt = before.UpdatedAt
			assert.Equal(t, before, got)
		})

		refusals := []struct {
			name   string
			body   string
			fields []string
		}{
			{"name null", `{"name":null}`, []string{"name"}},
			{"name empty", `{"name":""}`, []string{"name"}},
			{"an invalid team id", `{"ios_team_id":"nope"}`, []string{"ios_team_id"}},
			{"an invalid path", `{"android_app_links_paths":["x"]}`, []string{"android_app_links_paths[0]"}},
			{"an unknown field", `{"handle":"mine"}`, []string{"handle"}},
			{"a wrong type", `{"ios_universal_link_paths":[1]}`, []string{"ios_universal_link_paths"}},
		}
		for _, tt := range refusals {
			t.Run("400 for "+tt.name, func(t *testing.T) {
				before := h.get(t, o.key.raw, appPath(a.ID))
				resp := h.do(t, request{method: http.MethodPatch, path: appPath(a.ID), key: o.key.raw, body: tt.body, off: true})
				assertFields(t, assertError(t, resp, http.StatusBadRequest, errcode.ValidationError), tt.fields...)
				assert.JSONEq(t, string(before.body), string(h.get(t, o.key.raw, appPath(a.ID)).body), "unchanged")
			})
		}

		t.Run("409 DUPLICATE_APP for another app's bundle id or package name", func(t *testing.T) {
			b := h.createApp(t, o.key.raw, `{"name":"B","ios_bundle_id":"com.acme.b","android_package_name":"com.acme.b"}`)
			duplicateField(t, h.patchApp(t, o.key.raw, a.ID, `{"ios_bundle_id":"com.acme.b"}`), "ios_bundle_id")
			duplicateField(t, h.patchApp(t, o.key.raw, a.ID, `{"android_package_name":"com.acme.b"}`), "android_package_name")
			resp := h.patchApp(t, o.key.raw, b.ID, `{"ios_bundle_id":"com.acme.b","android_package_name":"com.acme.b"}`)
			assert.Equal(t, http.StatusOK, resp.status, "an app keeps its own values; body: %s", resp.body)
		})
	})
}

func TestDeleteApp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		o := h.newOrg(t, "Acme")
		a := h.createApp(t, o.key.raw, `{"name":"Acme","ios_bundle_id":"com.acme.app"}`)
		tied := h.orgKey(t, o, auth.CreateKeyInput{Type: auth.KeyTypeSDK, AppID: &a.ID})
		untied := h.sdkKey(t, o)
		// The tied key is in the authentication cache now.
		require.Equal(t, http.StatusOK, h.get(t, tied.raw, "/v1/sdk/validate").status)

		resp := h.delete(t, o.key.raw, appPath(a.ID))
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		assert.Equal(t, a, resp.app(t), "the deleted app")

		assertError(t, h.get(t, tied.raw, "/v1/sdk/validate"), http.StatusUnauthorized, errcode.Unauthorized)
		assert.Equal(t, http.StatusOK, h.get(t, untied.raw, "/v1/sdk/validate").status, "an untied SDK key keeps working")
		assertError(t, h.get(t, o.key.raw, appPath(a.ID)), http.StatusNotFound, errcode.NotFound)
		assertError(t, h.delete(t, o.key.raw, appPath(a.ID)), http.StatusNotFound, errcode.NotFound)

		// The Free plan's one app is free again, and so is the bundle id.
		again := h.createApp(t, o.key.raw, `{"name":"Acme","ios_bundle_id":"com.acme.app"}`)
		assert.Equal(t, "acme", again.Handle, "the handle is free again")
	})
}

func TestAppsAuthorization(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		o := h.scaleOrg(t, "Acme")
		a := h.createApp(t, o.key.raw, `{"name":"Acme"}`)
		member := h.memberKey(t, h.newMember(t, o, auth.RoleMember), auth.ScopeAppsRead)
		admin := h.memberKey(t, h.newMember(t, o, auth.RoleAdmin), auth.ScopeAppsRead, auth.ScopeAppsWrite)
		readOnly := h.scopedKey(t, o, auth.ScopeAppsRead)
		noApps := h.scopedKey(t, o, auth.ScopeLinksRead)
		sdk := h.sdkKey(t, o)

		reads := []request{
			{method: http.MethodGet, path: "/v1/apps"},
			{method: http.MethodGet, path: appPath(a.ID)},
		}
		writes := []request{
			{method: http.MethodPost, path: "/v1/apps", body: `{"name":"New"}`},
			{method: http.MethodPatch, path: appPath(a.ID), body: `{"name":"Renamed"}`},
			{method: http.MethodDelete, path: appPath(a.ID)},
		}
		for _, req := range reads {
			name := req.method + " " + req.path
			for _, key := range []testKey{member, readOnly, admin} {
				req.key = key.raw
				assert.Equal(t, http.StatusOK, h.do(t, req).status, "%s reads", name)
			}
			req.key = noApps.raw
			assertError(t, h.do(t, req), http.StatusForbidden, errcode.Forbidden)
			req.key = sdk.raw
			assertError(t, h.do(t, req), http.StatusForbidden, errcode.SDKKeyRouteForbidden)
		}
		for _, req := range writes {
			for _, key := range []testKey{member, readOnly, noApps} {
				req.key = key.raw
				assertError(t, h.do(t, req), http.StatusForbidden, errcode.Forbidden)
			}
			req.key = sdk.raw
			assertError(t, h.do(t, req), http.StatusForbidden, errcode.SDKKeyRouteForbidden)
		}
		got := h.get(t, o.key.raw, appPath(a.ID))
		require.Equal(t, http.StatusOK, got.status)
		assert.Equal(t, "Acme", got.app(t).Name, "no refused write changed anything")
		assert.Equal(t, 1, h.count(t, "apps", o.ID))

		// An admin writes.
		req := writes[1]
		req.key = admin.raw
		assert.Equal(t, http.StatusOK, h.do(t, req).status)
		req = writes[2]
		req.key = admin.raw
		assert.Equal(t, http.StatusOK, h.do(t, req).status)
	})
}
