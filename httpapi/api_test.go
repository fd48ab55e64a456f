package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/version"
)

// TestSDKKeyRoutes proves SPEC.md's Authentication rule 4: an SDK key may call
// only the SDK routes.
func TestSDKKeyRoutes(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		o := h.newOrg(t, "Acme")
		sdk := h.sdkKey(t, o)

		t.Run("an SDK key validates", func(t *testing.T) {
			resp := h.get(t, sdk.raw, "/v1/sdk/validate")
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Equal(t, map[string]any{"valid": true, "org_id": o.ID.String()}, resp.object(t))
		})

		t.Run("an SDK key tied to an app validates", func(t *testing.T) {
			tied := h.orgKey(t, o, auth.CreateKeyInput{Type: auth.KeyTypeSDK, AppID: ptr(h.newApp(t, o.ID))})
			resp := h.get(t, tied.raw, "/v1/sdk/validate")
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Equal(t, o.ID.String(), resp.object(t)["org_id"])
		})

		t.Run("an API key may call /sdk/validate", func(t *testing.T) {
			resp := h.get(t, h.scopedKey(t, o, auth.ScopeLinksRead).raw, "/v1/sdk/validate")
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Equal(t, map[string]any{"valid": true, "org_id": o.ID.String()}, resp.object(t))
		})

		tests := []struct {
			name string
			req  request
		}{
			{"POST /keys", request{method: http.MethodPost, path: "/v1/keys", body: `{"name":"x","type":"sdk"}`}},
			{"GET /keys", request{method: http.MethodGet, path: "/v1/keys"}},
			{"GET /keys/{id}", request{method: http.MethodGet, path: keyPath(sdk.id)}},
			{"DELETE /keys/{id}", request{method: http.MethodDelete, path: keyPath(sdk.id)}},
			{"GET /organizations/{id}", request{method: http.MethodGet, path: orgPath(o.ID)}},
			{"DELETE /organizations/{id}", request{method: http.MethodDelete, path: orgPath(o.ID), headers: map[string]string{"X-Confirmation-Name": o.Name}}},
		}
		before := h.count(t, "api_keys", o.ID)
		for _, tt := range tests {
			t.Run("an SDK key is refused on "+tt.name, func(t *testing.T) {
				tt.req.key = sdk.raw
				assertError(t, h.do(t, tt.req), http.StatusForbidden, errcode.SDKKeyRouteForbidden)
			})
		}

		// Nothing was done.
		assert.Equal(t, http.StatusOK, h.get(t, sdk.raw, "/v1/sdk/validate").status, "the SDK key was not revoked")
		assert.Equal(t, http.StatusOK, h.get(t, o.key.raw, orgPath(o.ID)).status, "the organization was not deleted")
		assert.Equal(t, before, h.count(t, "api_keys", o.ID), "no key was created")
	})
}

// TestRoleLayer proves SPEC.md's Authentication rule 8(b): a key with a
// creator is checked against the creator's current role on every request.
func TestRoleLayer(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)

		t.Run("a removed member's key is refused at once", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			m := h.newMember(t, o, auth.RoleAdmin)
			k := h.memberKey(t, m, auth.ScopeKeysRead, auth.ScopeOrgRead)
			require.Equal(t, http.StatusOK, h.get(t, k.raw, "/v1/keys").status, "the key works, and is now cached")
			require.Equal(t, http.StatusOK, h.get(t, k.raw, "/v1/sdk/validate").status)

			require.NoError(t, h.orgs.RemoveMember(context.Background(), o.ID, m.email))
			assertError(t, h.get(t, k.raw, "/v1/keys"), http.StatusForbidden, errcode.Forbidden)
			assertError(t, h.get(t, k.raw, orgPath(o.ID)), http.StatusForbidden, errcode.Forbidden)
			assertError(t, h.get(t, k.raw, "/v1/sdk/validate"), http.StatusForbidden, errcode.Forbidden)
			assert.Equal(t, http.StatusOK, h.get(t, o.key.raw, "/v1/keys").status, "keys without a creator are not affected")
		})

		t.Run("a removed member's SDK key no longer validates", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			m := h.newMember(t, o, auth.RoleMember)
			k, err := h.keys.CreateFor(context.Background(), o.ID, &m.id, m.role, auth.CreateKeyInput{Name: "ios", Type: auth.KeyTypeSDK})
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, h.get(t, k.RawKey, "/v1/sdk/validate").status)
			require.NoError(t, h.orgs.RemoveMember(context.Background(), o.ID, m.email))
			assertError(t, h.get(t, k.RawKey, "/v1/sdk/validate"), http.StatusForbidden, errcode.Forbidden)
		})

		t.Run("an owner demoted to admin may no longer delete the organization", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			m := h.newMember(t, o, auth.RoleOwner)
			k := h.memberKey(t, m, auth.ScopeOrgDelete, auth.ScopeOrgRead)
			// As owner the key passes both layers and reaches the confirmation check.
			wrong := request{method: http.MethodDelete, path: orgPath(o.ID), key: k.raw, headers: map[string]string{"X-Confirmation-Name": "ACME"}}
			assertError(t, h.do(t, wrong), http.StatusForbidden, errcode.ConfirmationMismatch)

			require.NoError(t, h.orgs.RemoveMember(context.Background(), o.ID, m.email))
			_, err := h.orgs.AddMember(context.Background(), o.ID, m.email, auth.RoleAdmin)
			require.NoError(t, err)

			right := request{method: http.MethodDelete, path: orgPath(o.ID), key: k.raw, headers: map[string]string{"X-Confirmation-Name": o.Name}}
			assertError(t, h.do(t, right), http.StatusForbidden, errcode.Forbidden)
			assert.Equal(t, http.StatusOK, h.get(t, k.raw, orgPath(o.ID)).status, "an admin may still read the organization")
			assert.Equal(t, http.StatusOK, h.get(t, o.key.raw, orgPath(o.ID)).status, "the organization was not deleted")
		})

		t.Run("an admin's key may not delete the organization", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			m := h.newMember(t, o, auth.RoleAdmin)
			k := h.memberKey(t, m, auth.ScopeOrgRead, auth.ScopeKeysWrite)
			right := request{method: http.MethodDelete, path: orgPath(o.ID), key: k.raw, headers: map[string]string{"X-Confirmation-Name": o.Name}}
			assertError(t, h.do(t, right), http.StatusForbidden, errcode.Forbidden)
			assert.Equal(t, http.StatusOK, h.get(t, o.key.raw, orgPath(o.ID)).status)
		})

		t.Run("a member manages only the keys they created", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			m1 := h.newMember(t, o, auth.RoleMember)
			m2 := h.newMember(t, o, auth.RoleMember)
			k1 := h.memberKey(t, m1, auth.ScopeKeysRead, auth.ScopeKeysWrite)
			spare1 := h.memberKey(t, m1, auth.ScopeLinksRead)
			k2 := h.memberKey(t, m2, auth.ScopeKeysRead)

			assertError(t, h.delete(t, k1.raw, keyPath(k2.id)), http.StatusForbidden, errcode.Forbidden)
			assertError(t, h.delete(t, k1.raw, keyPath(o.key.id)), http.StatusForbidden, errcode.Forbidden)
			assertError(t, h.get(t, k1.raw, keyPath(k2.id)), http.StatusForbidden, errcode.Forbidden)
			assert.Equal(t, http.StatusOK, h.get(t, k2.raw, "/v1/keys").status, "the other member's key still works")

			assert.Equal(t, http.StatusOK, h.get(t, k1.raw, keyPath(spare1.id)).status)
			assert.Equal(t, http.StatusNoContent, h.delete(t, k1.raw, keyPath(spare1.id)).status, "their own key")

			admin := h.newMember(t, o, auth.RoleAdmin)
			ak := h.memberKey(t, admin, auth.ScopeKeysWrite)
			assert.Equal(t, http.StatusNoContent, h.delete(t, ak.raw, keyPath(k2.id)).status, "an admin manages every key")
			assertError(t, h.get(t, k2.raw, "/v1/keys"), http.StatusUnauthorized, errcode.Unauthorized)
		})

		t.Run("keys without a creator are authorized on scope alone", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			m := h.newMember(t, o, auth.RoleOwner)
			mk := h.memberKey(t, m, auth.ScopeKeysRead)

			ops := h.scopedKey(t, o, auth.ScopeKeysWrite, auth.ScopeOrgDelete)
			right := request{method: http.MethodDelete, path: orgPath(o.ID), key: ops.raw, headers: map[string]string{"X-Confirmation-Name": "acme"}}
			assertError(t, h.do(t, right), http.StatusForbidden, errcode.ConfirmationMismatch) // past both layers
			assert.Equal(t, http.StatusNoContent, h.delete(t, ops.raw, keyPath(mk.id)).status, "any key of the organization")

			reader := h.scopedKey(t, o, auth.ScopeOrgRead)
			assert.Equal(t, http.StatusOK, h.get(t, reader.raw, orgPath(o.ID)).status)
			del := request{method: http.MethodDelete, path: orgPath(o.ID), key: reader.raw, headers: map[string]string{"X-Confirmation-Name": o.Name}}
			assertError(t, h.do(t, del), http.StatusForbidden, errcode.Forbidden)
		})
	})
}

func TestGetOrganization(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		o := h.newOrg(t, "Acme Widgets")
		other := h.newOrg(t, "Other")

		t.Run("the key's own organization", func(t *testing.T) {
			resp := h.get(t, o.key.raw, orgPath(o.ID))
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			got := resp.object(t)
			now := h.clock.Now()
			for _, field := range []string{"billing_period_start", "created_at", "updated_at"} {
				str, _ := got[field].(string)
				at, err := time.Parse(time.RFC3339Nano, str)
				if assert.NoError(t, err, field) {
					assert.True(t, now.Equal(at), "%s is %s", field, str)
				}
				delete(got, field)
			}
			assert.Equal(t, map[string]any{
				"id":                  o.ID.String(),
				"name":                "Acme Widgets",
				"slug":                "acme-widgets",
				"plan":                "free",
				"monthly_click_limit": float64(10000),
			}, got, "the Organization fields and no others")
		})

		t.Run("a member of any role reads it", func(t *testing.T) {
			for _, role := range []auth.Role{auth.RoleOwner, auth.RoleAdmin, auth.RoleMember} {
				mine := h.newOrg(t, "Mine")
				k := h.memberKey(t, h.newMember(t, mine, role), auth.ScopeOrgRead)
				assert.Equal(t, http.StatusOK, h.get(t, k.raw, orgPath(mine.ID)).status, role)
				assertError(t, h.get(t, k.raw, orgPath(o.ID)), http.StatusNotFound, errcode.NotFound)
			}
		})

		tests := []struct {
			name   string
			req    request
			status int
			code   errcode.Code
		}{
			{"another organization is 404", request{path: orgPath(other.ID), key: o.key.raw}, 404, errcode.NotFound},
			{"an unknown organization is 404", request{path: orgPath(uuid.Must(uuid.NewV7())), key: o.key.raw}, 404, errcode.NotFound},
			{"a key without org:read is 403", request{path: orgPath(o.ID), key: h.scopedKey(t, o, auth.ScopeKeysRead).raw}, 403, errcode.Forbidden},
			{"an id that is not a UUID is 400 INVALID_ID", request{path: "/v1/organizations/abc", key: o.key.raw}, 400, errcode.InvalidID},
			{"a query parameter is refused", request{path: orgPath(o.ID) + "?expand=keys", key: o.key.raw, off: true}, 400, errcode.ValidationError},
			{"a request without a key is 401", request{path: orgPath(o.ID)}, 401, errcode.Unauthorized},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				tt.req.method = http.MethodGet
				resp := h.do(t, tt.req)
				assertError(t, resp, tt.status, tt.code)
				assert.NotContains(t, string(resp.body), other.Name)
			})
		}
	})
}

func TestDeleteOrganization(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)

		tests := []struct {
			name string
			// confirm is X-Confirmation-Name; nil sends none.
			confirm func(o, other *testOrg) *string
			// key is the bootstrap key when empty, none for "none", and a
			// key with org:read and keys:write for "org:read".
			key    string
			id     func(o, other *testOrg) string
			status int
			code   errcode.Code
		}{
			{
				name:   "no confirmation is 400 MISSING_CONFIRMATION",
				status: 400, code: errcode.MissingConfirmation,
			},
			{
				name:    "an empty confirmation is 400 MISSING_CONFIRMATION",
				confirm: func(o, _ *testOrg) *string { return ptr("") },
				status:  400, code: errcode.MissingConfirmation,
			},
			{
				name:    "a name that differs in case is 403 CONFIRMATION_MISMATCH",
				confirm: func(o, _ *testOrg) *string { return ptr(strings.ToUpper(o.Name)) },
				status:  403, code: errcode.ConfirmationMismatch,
			},
			{
				name:    "another organization's name is 403 CONFIRMATION_MISMATCH",
				confirm: func(_, other *testOrg) *string { return ptr(other.Name) },
				status:  403, code: errcode.ConfirmationMismatch,
			},
			{
				name:    "a key without org:delete is 403",
				confirm: func(o, _ *testOrg) *string { return ptr(o.Name) },
				key:     "org:read",
				status:  403, code: errcode.Forbidden,
			},
			{
				name:    "another organization is 404, even with its right name",
				confirm: func(_, other *testOrg) *string { return ptr(other.Name) },
				id:      func(_, other *testOrg) string { return other.ID.String() },
				status:  404, code: errcode.NotFound,
			},
			{
				name:    "an unknown organization is 404",
				confirm: func(o, _ *testOrg) *string { return ptr(o.Name) },
				id:      func(_, _ *testOrg) string { return uuid.Must(uuid.NewV7()).String() },
				status:  404, code: errcode.NotFound,
			},
			{
				name:    "an id that is not a UUID is 400 INVALID_ID",
				confirm: func(o, _ *testOrg) *string { return ptr(o.Name) },
				id:      func(_, _ *testOrg) string { return "abc" },
				status:  400, code: errcode.InvalidID,
			},
			{
				name:    "a request without a key is 401",
				confirm: func(o, _ *testOrg) *string { return ptr(o.Name) },
				key:     "none",
				status:  401, code: errcode.Unauthorized,
			},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				o := h.newOrg(t, "Acme Widgets")
				other := h.newOrg(t, "Other Things")
				req := request{method: http.MethodDelete, path: "/v1/organizations/" + o.ID.String(), key: o.key.raw}
				if tt.id != nil {
					req.path = "/v1/organizations/" + tt.id(o, other)
				}
				switch tt.key {
				case "none":
					req.key = ""
				case "org:read":
					req.key = h.scopedKey(t, o, auth.ScopeOrgRead, auth.ScopeKeysWrite).raw
				}
				if tt.confirm != nil {
					req.headers = map[string]string{"X-Confirmation-Name": *tt.confirm(o, other)}
				}
				assertError(t, h.do(t, req), tt.status, tt.code)
				for _, x := range []*testOrg{o, other} {
					assert.Equal(t, http.StatusOK, h.get(t, x.key.raw, orgPath(x.ID)).status, "%s was not deleted", x.Name)
				}
			})
		}

		t.Run("the organization and everything in it is deleted", func(t *testing.T) {
			build := func(name string) (*testOrg, []testKey) {
				o := h.newOrg(t, name)
				m := h.newMember(t, o, auth.RoleMember)
				app := h.newApp(t, o.ID)
				keys := []testKey{
					o.key,
					h.memberKey(t, m, auth.ScopeKeysRead),
					h.orgKey(t, o, auth.CreateKeyInput{Type: auth.KeyTypeSDK, AppID: &app}),
				}
				h.newApp(t, o.ID)
				return o, keys
			}
			o, keys := build("Acme Widgets")
			other, otherKeys := build("Other Things")
			for _, k := range append(keys, otherKeys...) {
				require.Equal(t, http.StatusOK, h.get(t, k.raw, "/v1/sdk/validate").status, "every key works, and is now cached")
			}
			before := h.get(t, o.key.raw, orgPath(o.ID))
			require.Equal(t, http.StatusOK, before.status)
			tables := []string{"memberships", "apps", "api_keys"}
			otherCounts := map[string]int{}
			for _, table := range tables {
				otherCounts[table] = h.count(t, table, other.ID)
			}

			resp := h.do(t, request{method: http.MethodDelete, path: orgPath(o.ID), key: o.key.raw,
				headers: map[string]string{"X-Confirmation-Name": o.Name}})
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.JSONEq(t, string(before.body), string(resp.body), "the deleted Organization is returned")

			for _, k := range keys {
				assertError(t, h.get(t, k.raw, "/v1/sdk/validate"), http.StatusUnauthorized, errcode.Unauthorized)
			}
			h.clock.Advance(auth.DefaultCacheTTL)
			assertError(t, h.get(t, o.key.raw, "/v1/keys"), http.StatusUnauthorized, errcode.Unauthorized)

			for _, table := range tables {
				assert.Zero(t, h.count(t, table, o.ID), "rows of the deleted organization in %s", table)
				assert.Equal(t, otherCounts[table], h.count(t, table, other.ID), "rows of another organization in %s", table)
				assert.NotZero(t, otherCounts[table], table)
			}
			n, err := s.DB().NewSelect().Table("organizations").Where("id = ?", o.ID).Count(context.Background())
			require.NoError(t, err)
			assert.Zero(t, n)
			for _, k := range otherKeys {
				assert.Equal(t, http.StatusOK, h.get(t, k.raw, "/v1/sdk/validate").status, "another organization's keys still work")
			}
			assert.Equal(t, http.StatusOK, h.get(t, other.key.raw, orgPath(other.ID)).status)
		})
	})
}

// TestErrorEnvelope proves that every error, including those of no handler,
// is the SPEC.md envelope with its code.
func TestErrorEnvelope(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		o := h.newOrg(t, "Acme")
		id := o.key.id.String()

		tests := []struct {
			name   string
			method string
			path   string
			key    bool
			status int
			code   errcode.Code
			allow  []string
		}{
			{name: "an unknown route under /v1 is 404", method: "GET", path: "/v1/no-such-thing", status: 404, code: errcode.NotFound},
			{name: "an unknown route with a key is 404", method: "GET", path: "/v1/no-such-thing", key: true, status: 404, code: errcode.NotFound},
			{name: "a deeper unknown route is 404", method: "GET", path: "/v1/keys/" + id + "/scopes", key: true, status: 404, code: errcode.NotFound},
			{name: "/v1 itself is 404", method: "GET", path: "/v1", key: true, status: 404, code: errcode.NotFound},
			{name: "an unknown version is 404", method: "GET", path: "/v2/keys", key: true, status: 404, code: errcode.NotFound},
			{name: "a trailing slash is 404, not a redirect", method: "GET", path: "/v1/keys/" + id + "/", key: true, status: 404, code: errcode.NotFound},
			{name: "a trailing slash on a DELETE is 404, not a redirect", method: "DELETE", path: "/v1/keys/" + id + "/", key: true, status: 404, code: errcode.NotFound},
			{name: "a trailing slash after an id is 404", method: "GET", path: "/v1/organizations/" + o.ID.String() + "/", key: true, status: 404, code: errcode.NotFound},
			{name: "/v1/ is 404", method: "GET", path: "/v1/", key: true, status: 404, code: errcode.NotFound},
			{name: "a double slash is 404, not a redirect", method: "GET", path: "/v1//keys", key: true, status: 404, code: errcode.NotFound},
			{name: "PUT /keys is 405", method: "PUT", path: "/v1/keys", key: true, status: 405, code: errcode.MethodNotAllowed, allow: []string{"GET", "HEAD", "POST"}},
			{name: "a wrong method without a key is 405 too", method: "PATCH", path: "/v1/keys", status: 405, code: errcode.MethodNotAllowed, allow: []string{"GET", "HEAD", "POST"}},
			{name: "PATCH /keys/{id} is 405", method: "PATCH", path: "/v1/keys/" + id, key: true, status: 405, code: errcode.MethodNotAllowed, allow: []string{"GET", "HEAD", "DELETE"}},
			{name: "POST /organizations/{id} is 405", method: "POST", path: "/v1/organizations/" + o.ID.String(), key: true, status: 405, code: errcode.MethodNotAllowed, allow: []string{"GET", "HEAD", "DELETE"}},
			{name: "POST /sdk/validate is 405", method: "POST", path: "/v1/sdk/validate", key: true, status: 405, code: errcode.MethodNotAllowed, allow: []string{"GET", "HEAD"}},
			{name: "DELETE /openapi.json is 405", method: "DELETE", path: "/v1/openapi.json", status: 405, code: errcode.MethodNotAllowed, allow: []string{"GET", "HEAD"}},
			{name: "POST /healthz is 405", method: "POST", path: "/healthz", status: 405, code: errcode.MethodNotAllowed, allow: []string{"GET", "HEAD"}},
			{name: "an unknown path outside /v1 is 404", method: "GET", path: "/admin", status: 404, code: errcode.NotFound},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				req := request{method: tt.method, path: tt.path, off: true}
				if tt.key {
					req.key = o.key.raw
				}
				resp := h.do(t, req)
				assertError(t, resp, tt.status, tt.code)
				assert.Empty(t, resp.header.Get("Location"))
				if tt.allow != nil {
					var got []string
					for _, m := range strings.Split(resp.header.Get("Allow"), ",") {
						got = append(got, strings.TrimSpace(m))
					}
					assert.ElementsMatch(t, tt.allow, got, "Allow: %q", resp.header.Get("Allow"))
				}
			})
		}
	})

	t.Run("a panic is 500 INTERNAL_ERROR without internals", func(t *testing.T) {
		for _, where := range []string{"authentication", "handler"} {
			t.Run(where, func(t *testing.T) {
				s := storetest.SQLite(t)
				h := newHarness(t, s, withKeyStore(func(s *store.Store) auth.KeyStore {
					return &faultyStore{Store: s, where: where, panicking: true}
				}))
				o := h.newOrg(t, "Acme")
				resp := h.get(t, o.key.raw, "/v1/keys")
				assertError(t, resp, http.StatusInternalServerError, errcode.InternalError)
				assert.NotContains(t, string(resp.body), secret)
				assert.NotContains(t, string(resp.body), "goroutine")
				assert.NotEmpty(t, resp.header.Get("X-Request-Id"))
				assert.Equal(t, http.StatusOK, h.get(t, "", "/healthz").status, "the server survives")
			})
		}
	})

	t.Run("an unexpected store error is 500 INTERNAL_ERROR without its text", func(t *testing.T) {
		for _, where := range []string{"authentication", "handler"} {
			t.Run(where, func(t *testing.T) {
				s := storetest.SQLite(t)
				h := newHarness(t, s, withKeyStore(func(s *store.Store) auth.KeyStore {
					return &faultyStore{Store: s, where: where}
				}))
				o := h.newOrg(t, "Acme")
				resp := h.get(t, o.key.raw, "/v1/keys")
				assertError(t, resp, http.StatusInternalServerError, errcode.InternalError)
				assert.NotContains(t, string(resp.body), secret)
				assert.Empty(t, resp.header.Get("Retry-After"))
			})
		}
	})
}

// secret is the text of the failures faultyStore makes; no response may show it.
const secret = "pq: relation secret_internal_table exploded"

// faultyStore is the store with KeyByHash ("authentication") or ListKeys
// ("handler") failing with an unexpected error, or panicking.
type faultyStore struct {
	*store.Store
	where     string
	panicking bool
}

func (f *faultyStore) fail() error {
	if f.panicking {
		panic(secret)
	}
	return fmt.Errorf("store: %w", fmt.Errorf("%s", secret))
}

func (f *faultyStore) KeyByHash(ctx context.Context, hash string) (*auth.Key, auth.Role, error) {
	if f.where == "authentication" {
		return nil, "", f.fail()
	}
	return f.Store.KeyByHash(ctx, hash)
}

func (f *faultyStore) ListKeys(ctx context.Context, orgID uuid.UUID, createdBy *uuid.UUID) ([]auth.Key, error) {
	if f.where == "handler" {
		return nil, f.fail()
	}
	return f.Store.ListKeys(ctx, orgID, createdBy)
}

func TestOpenAPIAndHealth(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)

		t.Run("GET /v1/openapi.json is served without a key", func(t *testing.T) {
			resp := h.get(t, "", "/v1/openapi.json")
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.True(t, strings.HasPrefix(resp.header.Get("Content-Type"), "application/json"))
			var doc struct {
				OpenAPI string         `json:"openapi"`
				Paths   map[string]any `json:"paths"`
			}
			require.NoError(t, json.Unmarshal(resp.body, &doc))
			assert.Equal(t, "3.0.3", doc.OpenAPI)
			assert.Contains(t, doc.Paths, "/keys")
			assert.Equal(t, "60", resp.header.Get("X-RateLimit-Limit"), "limited per client IP")
		})

		t.Run("HEAD answers like GET without a body", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			resp := h.do(t, request{method: http.MethodHead, path: "/v1/organizations/" + o.ID.String(), key: o.key.raw, off: true})
			assert.Equal(t, http.StatusOK, resp.status)
			assert.Empty(t, resp.body)
			assert.Equal(t, "59", resp.header.Get("X-RateLimit-Remaining"))
			resp = h.do(t, request{method: http.MethodHead, path: "/healthz", off: true})
			assert.Equal(t, http.StatusOK, resp.status)
		})

		t.Run("healthz and readyz answer, without rate limits", func(t *testing.T) {
			for path, want := range map[string]string{"/healthz": "ok", "/readyz": "ready"} {
				resp := h.get(t, "", path)
				require.Equal(t, http.StatusOK, resp.status, path)
				body := resp.object(t)
				assert.Equal(t, want, body["status"], path)
				if path == "/healthz" {
					v := version.Get()
					assert.Equal(t, map[string]any{"version": v.Version}, body["version"], "the running build, without VCS data under go test")
				} else {
					assert.NotContains(t, body, "version", path)
				}
				assert.Empty(t, resp.header.Get("X-RateLimit-Limit"), path)
				assert.NotEmpty(t, resp.header.Get("X-Request-Id"), path)
			}
		})
	})
}

// TestConcurrentRequests runs many clients at once: authentications (cached
// and not), key creations, reads and revocations, and last_used_at flushes.
// Run it with -race.
func TestConcurrentRequests(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		o := h.newOrg(t, "Acme")
		const workers, rounds = 16, 3
		keys := make([]testKey, workers)
		for i := range keys {
			keys[i] = h.scopedKey(t, o, auth.ScopeKeysRead, auth.ScopeKeysWrite)
		}

		var wg sync.WaitGroup
		created := make(chan uuid.UUID, workers*rounds)
		for i := range workers {
			wg.Go(func() {
				for r := range rounds {
					resp, err := h.send(t, request{method: http.MethodPost, path: "/v1/keys", key: keys[i].raw,
						body: fmt.Sprintf(`{"name":"w%d-r%d","scopes":["keys:read"]}`, i, r)})
					if !assert.NoError(t, err) || !assert.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body) {
						return
					}
					var k apiKey
					if !assert.NoError(t, json.Unmarshal(resp.body, &k)) {
						return
					}
					created <- k.ID
					// The new key authenticates at once, on another goroutine's heels.
					resp, err = h.send(t, request{method: http.MethodGet, path: keyPath(k.ID), key: k.RawKey})
					if assert.NoError(t, err) {
						assert.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
					}
					resp, err = h.send(t, request{method: http.MethodGet, path: "/v1/sdk/validate", key: o.key.raw})
					if assert.NoError(t, err) {
						assert.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
					}
				}
				resp, err := h.send(t, request{method: http.MethodDelete, path: keyPath(keys[i].id), key: keys[i].raw})
				if assert.NoError(t, err) {
					assert.Equal(t, http.StatusNoContent, resp.status, "body: %s", resp.body)
				}
			})
		}
		wg.Go(func() {
			for range workers {
				assert.NoError(t, h.auth.Flush(context.Background()))
			}
		})
		wg.Wait()
		close(created)
		require.NoError(t, h.auth.Flush(context.Background()))

		resp := h.get(t, o.key.raw, "/v1/keys")
		require.Equal(t, http.StatusOK, resp.status)
		var list struct {
			Data []apiKey `json:"data"`
		}
		resp.decode(t, &list)
		got := map[uuid.UUID]bool{}
		for _, k := range list.Data {
			got[k.ID] = true
		}
		assert.Len(t, list.Data, 1+workers*rounds, "the bootstrap key and every created key; the workers' own keys are revoked")
		for id := range created {
			assert.True(t, got[id], "created key %s is listed", id)
		}
		for _, k := range keys {
			assert.False(t, got[k.id], "revoked key %s is not listed", k.id)
		}
	})
}

func ptr[T any](v T) *T { return &v }
