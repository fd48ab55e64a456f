package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/strictjson"
)

func TestCreateKey(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)

		t.Run("an API key is created with its raw value once, normalized scopes and only its hash stored", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			resp := h.post(t, o.key.raw, "/v1/keys", `{"name":"ci","scopes":["analytics:read","links:write"]}`)
			require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
			k := resp.key(t)
			assert.Equal(t, "api", k.Type)
			assert.Equal(t, "ci", k.Name)
			assert.Equal(t, auth.LivePrefix, k.KeyPrefix)
			prefix, ok := auth.KeyPrefix(k.RawKey)
			assert.True(t, ok, "raw key %q has the key format", k.RawKey)
			assert.Equal(t, auth.LivePrefix, prefix)
			assert.Equal(t, []auth.Scope{auth.ScopeLinksRead, auth.ScopeLinksWrite, auth.ScopeAnalyticsRead}, k.Scopes,
				"links:write adds links:read, in SPEC.md's order")
			assert.Nil(t, k.AppID)
			assert.Nil(t, k.ExpiresAt)
			assert.Nil(t, k.LastUsedAt)
			assert.Nil(t, k.CreatedBy, "a key made by a key without a creator has none")
			assert.True(t, h.clock.Now().Equal(k.CreatedAt), "created_at %s", k.CreatedAt)

			// The new key works.
			assert.Equal(t, http.StatusOK, h.get(t, k.RawKey, "/v1/sdk/validate").status)

			// Only the SHA-256 is stored: no column holds the raw key.
			row := map[string]any{}
			require.NoError(t, s.DB().NewSelect().Table("api_keys").Where("id = ?", k.ID).Scan(context.Background(), &row))
			assert.Equal(t, auth.HashKey(k.RawKey), row["key_hash"])
			for col, v := range row {
				if str, ok := v.(string); ok {
					assert.NotContains(t, str, k.RawKey[len(auth.LivePrefix):], "column %s", col)
				}
			}

			// The raw key is never shown again.
			for _, path := range []string{"/v1/keys", keyPath(k.ID)} {
				resp := h.get(t, o.key.raw, path)
				require.Equal(t, http.StatusOK, resp.status, path)
				assert.NotContains(t, string(resp.body), k.RawKey, path)
				assert.NotContains(t, string(resp.body), "raw_key", path)
			}
		})

		t.Run("an SDK key has the fixed scopes and never expires", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			for _, body := range []string{
				`{"name":"ios","type":"sdk"}`,
				`{"name":"ios","type":"sdk","scopes":["attribution:write","links:read"]}`,
			} {
				resp := h.post(t, o.key.raw, "/v1/keys", body)
				require.Equal(t, http.StatusCreated, resp.status, "%s: %s", body, resp.body)
				k := resp.key(t)
				assert.Equal(t, "sdk", k.Type, body)
				assert.Equal(t, auth.SDKScopes, k.Scopes, body)
				assert.Nil(t, k.ExpiresAt, body)
				assert.Nil(t, k.AppID, body)
				assert.Equal(t, auth.LivePrefix, k.KeyPrefix, body)
			}
		})

		t.Run("an SDK key may be tied to an app of the organization", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			app := h.newApp(t, o.ID)
			resp := h.post(t, o.key.raw, "/v1/keys", `{"name":"ios","type":"sdk","app_id":"`+app.String()+`"}`)
			require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
			k := resp.key(t)
			require.NotNil(t, k.AppID)
			assert.Equal(t, app, *k.AppID)
			got := h.get(t, o.key.raw, keyPath(k.ID)).key(t)
			require.NotNil(t, got.AppID)
			assert.Equal(t, app, *got.AppID)
		})

		t.Run("a name of 100 characters is accepted", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			name := strings.Repeat("é", 100)
			resp := h.post(t, o.key.raw, "/v1/keys", `{"name":"`+name+`","scopes":["links:read"]}`)
			require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
			assert.Equal(t, name, resp.key(t).Name)
		})

		t.Run("a key never carries a scope the creating key lacks", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			k := h.scopedKey(t, o, auth.ScopeKeysWrite, auth.ScopeLinksRead)
			before := h.count(t, "api_keys", o.ID)
			resp := h.post(t, k.raw, "/v1/keys", `{"name":"wider","scopes":["org:delete"]}`)
			assertError(t, resp, http.StatusForbidden, errcode.Forbidden)
			assert.Equal(t, before, h.count(t, "api_keys", o.ID))
			resp = h.post(t, k.raw, "/v1/keys", `{"name":"same","scopes":["links:read"]}`)
			assert.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
		})

		t.Run("a key made with a member's key has that member as creator", func(t *testing.T) {
			for _, role := range []auth.Role{auth.RoleOwner, auth.RoleAdmin, auth.RoleMember} {
				m := h.newMember(t, h.newOrg(t, "Acme"), role)
				mk := h.memberKey(t, m, auth.ScopeKeysWrite, auth.ScopeLinksWrite)
				resp := h.post(t, mk.raw, "/v1/keys", `{"name":"mine","scopes":["links:write","keys:write"]}`)
				require.Equal(t, http.StatusCreated, resp.status, "%s: %s", role, resp.body)
				k := resp.key(t)
				require.NotNil(t, k.CreatedBy, role)
				assert.Equal(t, m.id, *k.CreatedBy, role)

				// The new key acts for the same member, and so does a key it makes.
				resp = h.post(t, k.RawKey, "/v1/keys", `{"name":"nested","scopes":["links:read"]}`)
				require.Equal(t, http.StatusCreated, resp.status, "%s: %s", role, resp.body)
				nested := resp.key(t)
				require.NotNil(t, nested.CreatedBy, role)
				assert.Equal(t, m.id, *nested.CreatedBy, role)
			}
		})
	})
}

// TestCreateKeyRefusals runs every refusal of POST /v1/keys, each in an
// organization of its own; none of them creates a key.
func TestCreateKeyRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// body may use {own_app}, {other_app}, {unknown_app}, {past}, {now}
		// and {future}.
		body   string
		off    bool // outside the OpenAPI document on purpose
		key    string
		status int
		code   errcode.Code
		fields []string
	}{
		{name: "name may not be empty", body: `{"name":"","scopes":["links:read"]}`, off: true, fields: []string{"name"}},
		{name: "name is required", body: `{"scopes":["links:read"]}`, off: true, fields: []string{"name"}},
		{name: "name may not exceed 100 characters", body: `{"name":"` + strings.Repeat("a", 101) + `","scopes":["links:read"]}`, off: true, fields: []string{"name"}},
		{name: "an API key needs scopes", body: `{"name":"ci"}`, fields: []string{"scopes"}},
		{name: "scopes needs at least one item", body: `{"name":"ci","scopes":[]}`, off: true, fields: []string{"scopes"}},
		{name: "an unknown scope is refused", body: `{"name":"ci","scopes":["links:read","links:delete"]}`, off: true, fields: []string{"scopes"}},
		{name: "attribution:write is refused on an API key", body: `{"name":"ci","scopes":["attribution:write"]}`, fields: []string{"scopes"}},
		{name: "app_id is refused on an API key", body: `{"name":"ci","scopes":["links:read"],"app_id":"{own_app}"}`, fields: []string{"app_id"}},
		{name: "explicit type api with app_id is refused too", body: `{"name":"ci","type":"api","scopes":["links:read"],"app_id":"{own_app}"}`, fields: []string{"app_id"}},
		{name: "expires_at in the past is refused", body: `{"name":"ci","scopes":["links:read"],"expires_at":"{past}"}`, fields: []string{"expires_at"}},
		{name: "expires_at now is not in the future", body: `{"name":"ci","scopes":["links:read"],"expires_at":"{now}"}`, fields: []string{"expires_at"}},
		{name: "an SDK key may not expire", body: `{"name":"ios","type":"sdk","expires_at":"{future}"}`, fields: []string{"expires_at"}},
		{name: "an SDK key has only its fixed scopes", body: `{"name":"ios","type":"sdk","scopes":["links:write"]}`, fields: []string{"scopes"}},
		{name: "an unknown type is refused", body: `{"name":"ci","type":"admin","scopes":["links:read"]}`, off: true, fields: []string{"type"}},
		{name: "an app of another organization is a validation error", body: `{"name":"ios","type":"sdk","app_id":"{other_app}"}`, fields: []string{"app_id"}},
		{name: "an unknown app is a validation error", body: `{"name":"ios","type":"sdk","app_id":"{unknown_app}"}`, fields: []string{"app_id"}},
		{name: "every invalid field is named", body: `{"name":"","scopes":[],"app_id":"{own_app}","expires_at":"{past}"}`, off: true, fields: []string{"name", "scopes", "app_id", "expires_at"}},
		{name: "an unknown body field is refused", body: `{"name":"ci","scopes":["links:read"],"owner":"me"}`, off: true, fields: []string{"owner"}},
		{name: "wrong types are refused field by field", body: `{"name":5,"scopes":"links:read","expires_at":true,"type":1,"app_id":7}`, off: true, fields: []string{"name", "scopes", "expires_at", "type", "app_id"}},
		{name: "a wrongly typed scope item is refused", body: `{"name":"ci","scopes":["links:read",3]}`, off: true, fields: []string{"scopes"}},
		{name: "expires_at must be a date-time", body: `{"name":"ci","scopes":["links:read"],"expires_at":"tomorrow"}`, off: true, fields: []string{"expires_at"}},
		{name: "app_id must be a UUID", body: `{"name":"ios","type":"sdk","app_id":"nope"}`, off: true, fields: []string{"app_id"}},
		{name: "malformed JSON is refused", body: `{"name":`, off: true, fields: []string{"body"}},
		{name: "the body must be an object", body: `["ci"]`, off: true, fields: []string{"body"}},
		{name: "the body must be one object", body: `{"name":"ci","scopes":["links:read"]} {}`, off: true, fields: []string{"body"}},
		{name: "a null body is refused", body: `null`, off: true, fields: []string{"body"}},
		{name: "a missing body is refused", body: ``, off: true, fields: []string{"body"}},
		{name: "a body of exactly 1 MiB is read", body: `{"name":"` + strings.Repeat("a", strictjson.MaxBodyBytes-len(`{"name":"","scopes":["links:read"]}`)) + `","scopes":["links:read"]}`, off: true, fields: []string{"name"}},
		{name: "a body over 1 MiB is too large", body: `{"name":"` + strings.Repeat("a", strictjson.MaxBodyBytes) + `","scopes":["links:read"]}`, off: true, status: http.StatusRequestEntityTooLarge, code: errcode.PayloadTooLarge},
		{name: "a request without a key is 401", key: "none", body: `{"name":"ci","scopes":["links:read"]}`, status: http.StatusUnauthorized, code: errcode.Unauthorized},
		{name: "a key without keys:write is 403", key: "keys:read", body: `{"name":"ci","scopes":["links:read"]}`, status: http.StatusForbidden, code: errcode.Forbidden},
		{name: "a member's key may not give a scope the member role lacks", key: "member", body: `{"name":"ci","scopes":["links:read","apps:write"]}`, status: http.StatusForbidden, code: errcode.Forbidden},
		{name: "a member's key may not give domains:write", key: "member", body: `{"name":"ci","scopes":["domains:write"]}`, status: http.StatusForbidden, code: errcode.Forbidden},
		{name: "a member's key may not give team:write", key: "member", body: `{"name":"ci","scopes":["team:write"]}`, status: http.StatusForbidden, code: errcode.Forbidden},
		{name: "an admin's key may not give org:delete", key: "admin", body: `{"name":"ci","scopes":["org:delete"]}`, status: http.StatusForbidden, code: errcode.Forbidden},
	}
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				o := h.newOrg(t, "Acme")
				other := h.newOrg(t, "Other")
				now := h.clock.Now()
				body := strings.NewReplacer(
					"{own_app}", h.newApp(t, o.ID).String(),
					"{other_app}", h.newApp(t, other.ID).String(),
					"{unknown_app}", uuid.Must(uuid.NewV7()).String(),
					"{past}", now.Add(-time.Hour).Format(time.RFC3339Nano),
					"{now}", now.Format(time.RFC3339Nano),
					"{future}", now.Add(time.Hour).Format(time.RFC3339Nano),
				).Replace(tt.body)

				key := o.key.raw
				switch tt.key {
				case "none":
					key = ""
				case "keys:read":
					key = h.scopedKey(t, o, auth.ScopeKeysRead).raw
				case "member", "admin":
					m := h.newMember(t, o, auth.Role(tt.key))
					key = h.memberKey(t, m, auth.ScopeKeysWrite, auth.ScopeLinksWrite).raw
				}
				before := h.count(t, "api_keys", o.ID)

				resp := h.do(t, request{method: http.MethodPost, path: "/v1/keys", key: key, body: body, off: tt.off})
				status, code := tt.status, tt.code
				if status == 0 {
					status, code = http.StatusBadRequest, errcode.ValidationError
				}
				e := assertError(t, resp, status, code)
				assertFields(t, e, tt.fields...)
				assert.Equal(t, before, h.count(t, "api_keys", o.ID), "no key is created")
			})
		}
	})
}

func TestListKeys(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)

		t.Run("every key of the organization, oldest first, without raw values or pagination", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			other := h.newOrg(t, "Other")
			want := []uuid.UUID{o.key.id}
			var raws []string
			for _, body := range []string{`{"name":"a","scopes":["links:read"]}`, `{"name":"b","type":"sdk"}`} {
				h.clock.Advance(time.Second)
				resp := h.post(t, o.key.raw, "/v1/keys", body)
				require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
				k := resp.key(t)
				want = append(want, k.ID)
				raws = append(raws, k.RawKey)
			}

			resp := h.get(t, o.key.raw, "/v1/keys")
			require.Equal(t, http.StatusOK, resp.status)
			top := resp.object(t)
			assert.Len(t, top, 1, "only data, no pagination object: %s", resp.body)
			var list struct {
				Data []map[string]any `json:"data"`
			}
			resp.decode(t, &list)
			var got []uuid.UUID
			for _, item := range list.Data {
				got = append(got, uuid.MustParse(item["id"].(string)))
				assert.NotContains(t, item, "raw_key")
			}
			assert.Equal(t, want, got)
			for _, raw := range append(raws, o.key.raw) {
				assert.NotContains(t, string(resp.body), raw)
			}
			assert.NotContains(t, string(resp.body), other.key.id.String(), "another organization's keys are not listed")
		})

		t.Run("a member sees only the keys they created", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			owner := h.newMember(t, o, auth.RoleOwner)
			ownerKey := h.memberKey(t, owner, auth.ScopeKeysRead)
			m := h.newMember(t, o, auth.RoleMember)
			mk := h.memberKey(t, m, auth.ScopeKeysRead, auth.ScopeKeysWrite, auth.ScopeLinksRead)
			resp := h.post(t, mk.raw, "/v1/keys", `{"name":"second","scopes":["links:read"]}`)
			require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
			second := resp.key(t)

			ids := func(key string) []uuid.UUID {
				t.Helper()
				resp := h.get(t, key, "/v1/keys")
				require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
				var list struct {
					Data []apiKey `json:"data"`
				}
				resp.decode(t, &list)
				var out []uuid.UUID
				for _, k := range list.Data {
					out = append(out, k.ID)
				}
				return out
			}
			assert.ElementsMatch(t, []uuid.UUID{mk.id, second.ID}, ids(mk.raw), "the member's own keys only")
			assert.ElementsMatch(t, []uuid.UUID{o.key.id, ownerKey.id, mk.id, second.ID}, ids(ownerKey.raw), "an owner sees every key")
		})

		t.Run("refusals", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			tests := []struct {
				name   string
				req    request
				status int
				code   errcode.Code
				fields []string
			}{
				{"an unknown query parameter is refused", request{path: "/v1/keys?limit=10", key: o.key.raw, off: true}, 400, errcode.ValidationError, []string{"limit"}},
				{"a key without keys:read is 403", request{path: "/v1/keys", key: h.scopedKey(t, o, auth.ScopeKeysWrite).raw}, 403, errcode.Forbidden, nil},
				{"a request without a key is 401", request{path: "/v1/keys"}, 401, errcode.Unauthorized, nil},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					tt.req.method = http.MethodGet
					e := assertError(t, h.do(t, tt.req), tt.status, tt.code)
					assertFields(t, e, tt.fields...)
				})
			}
		})
	})
}

func TestGetKey(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		o := h.newOrg(t, "Acme")
		other := h.newOrg(t, "Other")
		id := o.key.id.String()

		t.Run("a key of the organization", func(t *testing.T) {
			resp := h.get(t, o.key.raw, keyPath(o.key.id))
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			k := resp.key(t)
			assert.Equal(t, o.key.id, k.ID)
			assert.Equal(t, "Bootstrap key", k.Name)
			assert.Equal(t, auth.RequestableScopes, k.Scopes)
			assert.Empty(t, k.RawKey)
		})

		t.Run("last_used_at shows that the key was used", func(t *testing.T) {
			used := h.scopedKey(t, o, auth.ScopeKeysRead)
			assert.Nil(t, h.get(t, o.key.raw, keyPath(used.id)).key(t).LastUsedAt)
			// Used at a time with micro- and nanoseconds: the API, like every
			// timestamp it returns, shows milliseconds.
			h.clock.Advance(1234567 * time.Nanosecond)
			require.Equal(t, http.StatusOK, h.get(t, used.raw, "/v1/keys").status)
			require.NoError(t, h.auth.Flush(context.Background()))
			resp := h.get(t, o.key.raw, keyPath(used.id))
			k := resp.key(t)
			require.NotNil(t, k.LastUsedAt)
			assert.True(t, h.clock.Now().Truncate(time.Millisecond).Equal(*k.LastUsedAt), "last_used_at %s", k.LastUsedAt)
			var raw map[string]any
			resp.decode(t, &raw)
			assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$`, raw["last_used_at"], "at most milliseconds")
		})

		tests := []struct {
			name   string
			path   string
			off    bool
			status int
			code   errcode.Code
		}{
			{"an id that is not a UUID is 400 INVALID_ID", "/v1/keys/abc", false, 400, errcode.InvalidID},
			{"a UUID without hyphens is not canonical", "/v1/keys/" + strings.ReplaceAll(id, "-", ""), false, 400, errcode.InvalidID},
			{"a UUID in braces is not canonical", "/v1/keys/%7B" + id + "%7D", false, 400, errcode.InvalidID},
			{"a URN is not canonical", "/v1/keys/urn:uuid:" + id, false, 400, errcode.InvalidID},
			{"an unknown id is 404", keyPath(uuid.Must(uuid.NewV7())), false, 404, errcode.NotFound},
			{"another organization's key is 404", keyPath(other.key.id), false, 404, errcode.NotFound},
			{"a query parameter is refused", keyPath(o.key.id) + "?fields=name", true, 400, errcode.ValidationError},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				resp := h.do(t, request{method: http.MethodGet, path: tt.path, key: o.key.raw, off: tt.off})
				assertError(t, resp, tt.status, tt.code)
				assert.NotContains(t, string(resp.body), other.key.raw)
			})
		}
	})
}

func TestDeleteKey(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)

		t.Run("a revoked key is refused at once and forever", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			victim := h.scopedKey(t, o, auth.ScopeKeysRead)
			require.Equal(t, http.StatusOK, h.get(t, victim.raw, "/v1/keys").status, "the key works, and is now cached")

			resp := h.delete(t, o.key.raw, keyPath(victim.id))
			require.Equal(t, http.StatusNoContent, resp.status, "body: %s", resp.body)
			assert.Empty(t, resp.body)

			assertError(t, h.get(t, victim.raw, "/v1/keys"), 401, errcode.Unauthorized)
			h.clock.Advance(auth.DefaultCacheTTL + time.Second)
			assertError(t, h.get(t, victim.raw, "/v1/keys"), 401, errcode.Unauthorized)
			h.clock.Advance(24 * time.Hour)
			assertError(t, h.get(t, victim.raw, "/v1/keys"), 401, errcode.Unauthorized)

			assertError(t, h.get(t, o.key.raw, keyPath(victim.id)), 404, errcode.NotFound)
			assertError(t, h.delete(t, o.key.raw, keyPath(victim.id)), 404, errcode.NotFound)
			assert.Equal(t, http.StatusOK, h.get(t, o.key.raw, "/v1/keys").status, "the revoking key still works")
		})

		t.Run("a key may revoke itself", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			self := h.scopedKey(t, o, auth.ScopeKeysWrite)
			require.Equal(t, http.StatusNoContent, h.delete(t, self.raw, keyPath(self.id)).status)
			assertError(t, h.delete(t, self.raw, keyPath(self.id)), 401, errcode.Unauthorized)
		})

		t.Run("another organization's key is 404 and keeps working", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			other := h.newOrg(t, "Other")
			assertError(t, h.delete(t, o.key.raw, keyPath(other.key.id)), 404, errcode.NotFound)
			assert.Equal(t, http.StatusOK, h.get(t, other.key.raw, "/v1/keys").status)
			assert.Equal(t, http.StatusOK, h.get(t, other.key.raw, keyPath(other.key.id)).status)
		})

		t.Run("refusals", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			readOnly := h.scopedKey(t, o, auth.ScopeKeysRead)
			tests := []struct {
				name   string
				req    request
				status int
				code   errcode.Code
			}{
				{"an id that is not a UUID is 400 INVALID_ID", request{path: "/v1/keys/abc", key: o.key.raw}, 400, errcode.InvalidID},
				{"an unknown id is 404", request{path: keyPath(uuid.Must(uuid.NewV7())), key: o.key.raw}, 404, errcode.NotFound},
				{"a key without keys:write is 403", request{path: keyPath(readOnly.id), key: readOnly.raw}, 403, errcode.Forbidden},
				{"a request without a key is 401", request{path: keyPath(readOnly.id)}, 401, errcode.Unauthorized},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					tt.req.method = http.MethodDelete
					assertError(t, h.do(t, tt.req), tt.status, tt.code)
				})
			}
			assert.Equal(t, http.StatusOK, h.get(t, readOnly.raw, "/v1/keys").status, "nothing was revoked")
		})
	})
}

func TestKeyExpiry(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		o := h.newOrg(t, "Acme")
		expires := h.clock.Now().Add(time.Hour)
		resp := h.post(t, o.key.raw, "/v1/keys", bodyJSON(t, map[string]any{
			"name": "temporary", "scopes": []string{"keys:read"}, "expires_at": expires.Format(time.RFC3339),
		}))
		require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
		k := resp.key(t)
		require.NotNil(t, k.ExpiresAt)
		assert.True(t, expires.Equal(*k.ExpiresAt), "expires_at %s", k.ExpiresAt)

		assert.Equal(t, http.StatusOK, h.get(t, k.RawKey, "/v1/keys").status, "a fresh key works")
		h.clock.Advance(time.Hour - time.Millisecond)
		assert.Equal(t, http.StatusOK, h.get(t, k.RawKey, "/v1/keys").status, "a millisecond before expires_at it works")
		h.clock.Advance(time.Millisecond)
		assertError(t, h.get(t, k.RawKey, "/v1/keys"), 401, errcode.Unauthorized)
		h.clock.Advance(auth.DefaultCacheTTL + time.Second)
		assertError(t, h.get(t, k.RawKey, "/v1/keys"), 401, errcode.Unauthorized)
		assert.Equal(t, http.StatusOK, h.get(t, o.key.raw, keyPath(k.ID)).status, "the expired key is still listed")
	})
}

// TestUnauthorizedSaysWhichOfThree proves SPEC.md's Authentication rule 2
// as we keep it: a bad credential gets 401 with a bearer challenge (RFC
// 6750) and one of three bodies, missing, malformed or not valid, and an
// unknown, a revoked and an expired key get the very same answer.
func TestUnauthorizedSaysWhichOfThree(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		o := h.newOrg(t, "Acme")

		revoked := h.scopedKey(t, o, auth.ScopeKeysRead)
		require.Equal(t, http.StatusOK, h.get(t, revoked.raw, "/v1/keys").status)
		require.Equal(t, http.StatusNoContent, h.delete(t, o.key.raw, keyPath(revoked.id)).status)

		exp := h.clock.Now().Add(time.Minute)
		expired := h.orgKey(t, o, auth.CreateKeyInput{Scopes: []auth.Scope{auth.ScopeKeysRead}, ExpiresAt: &exp})
		require.Equal(t, http.StatusOK, h.get(t, expired.raw, "/v1/keys").status)
		h.clock.Advance(time.Minute)

		unknown, err := auth.GenerateKey(nil, auth.LivePrefix)
		require.NoError(t, err)
		unknownTest, err := auth.GenerateKey(nil, auth.TestPrefix)
		require.NoError(t, err)

		const (
			missing   = "missing API key: send the header Authorization: Bearer <API_KEY>"
			malformed = "malformed Authorization header: expected Bearer followed by a key that starts with svc_live_ or svc_test_"
			invalid   = "the API key is not valid: it is unknown, revoked or expired"
			realm     = `Bearer realm="hoplink"`
		)
		tests := []struct {
			name      string
			header    string // Authorization; none when empty
			message   string
			challenge string
		}{
			{"missing header", "", missing, realm},
			{"another scheme", "Token x", malformed, realm + `, error="invalid_request"`},
			{"Basic credentials", "Basic dXNlcjpjb3JyZWN0IGhvcnNl", malformed, realm + `, error="invalid_request"`},
			{"Bearer without a token", "Bearer", malformed, realm + `, error="invalid_request"`},
			{"two tokens", "Bearer " + o.key.raw + " " + o.key.raw, malformed, realm + `, error="invalid_request"`},
			{"a token that is not a key", "Bearer not-a-key", malformed, realm + `, error="invalid_token"`},
			{"a key that is too short", "Bearer svc_live_abc", malformed, realm + `, error="invalid_token"`},
			{"a key with a bad character", "Bearer " + unknown[:len(unknown)-1] + "!", malformed, realm + `, error="invalid_token"`},
			{"an unknown key", "Bearer " + unknown, invalid, realm + `, error="invalid_token"`},
			{"an unknown test key", "Bearer " + unknownTest, invalid, realm + `, error="invalid_token"`},
			{"a revoked key", "Bearer " + revoked.raw, invalid, realm + `, error="invalid_token"`},
			{"an expired key", "Bearer " + expired.raw, invalid, realm + `, error="invalid_token"`},
		}
		bodies := map[string]string{}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				req := request{method: http.MethodGet, path: "/v1/keys"}
				if tt.header != "" {
					req.headers = map[string]string{"Authorization": tt.header}
				}
				resp := h.do(t, req)
				assertError(t, resp, http.StatusUnauthorized, errcode.Unauthorized)
				var env struct {
					Error struct {
						Message string `json:"message"`
					} `json:"error"`
				}
				resp.decode(t, &env)
				assert.Equal(t, tt.message, env.Error.Message)
				assert.Equal(t, tt.challenge, resp.header.Get("WWW-Authenticate"))
				if first, ok := bodies[tt.message]; ok {
					assert.Equal(t, first, string(resp.body), "the same body within one kind")
				}
				bodies[tt.message] = string(resp.body)
			})
		}

		t.Run("the scheme is case-insensitive", func(t *testing.T) {
			resp := h.do(t, request{method: http.MethodGet, path: "/v1/keys", headers: map[string]string{"Authorization": "bearer " + o.key.raw}})
			assert.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		})
	})
}
