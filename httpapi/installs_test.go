package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/auth"
	listcursor "github.com/hoplink/hoplink/cursor"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// listBody is a page of a cursor list.
type listBody struct {
	Data       []map[string]any `json:"data"`
	Pagination struct {
		NextCursor *string `json:"next_cursor"`
		HasMore    bool    `json:"has_more"`
	} `json:"pagination"`
	Window struct {
		From time.Time `json:"from"`
		To   time.Time `json:"to"`
	} `json:"window"`
}

func (r *response) list(t testing.TB) listBody {
	t.Helper()
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	var b listBody
	r.decode(t, &b)
	return b
}

// ids returns the ids of a page's records, in order.
func (b listBody) ids() []string {
	out := make([]string, len(b.Data))
	for i, d := range b.Data {
		out[i], _ = d["id"].(string)
	}
	return out
}

// install makes one install of link l through a click and a deterministic
// match, a minute after the last, and returns its id. The clock then moves
// on a second, so that the install is inside the default window, which
// ends before now.
func (h *attrHarness) install(t testing.TB, sdk string, l linkBody) string {
	t.Helper()
	h.clock.Advance(time.Minute)
	defer h.clock.Advance(time.Second)
	resp := h.match(t, sdk, "", matchBody(h.click(t, l)))
	require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
	got := resp.object(t)
	require.Equal(t, true, got["matched"], "body: %s", resp.body)
	return got["install_id"].(string)
}

// unmatched records one unmatched attempt, a minute after the last.
func (h *attrHarness) unmatched(t testing.TB, sdk string) {
	t.Helper()
	h.clock.Advance(time.Minute)
	defer h.clock.Advance(time.Second)
	resp := h.match(t, sdk, "", `{"platform":"android","fingerprint_version":"basic","sdk_version":"1.0.0"}`)
	require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
	require.JSONEq(t, `{"matched":false}`, string(resp.body))
}

// query builds a path with query parameters.
func withQuery(path string, kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

func rfc(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func TestListInstalls(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAttrHarness(t, s)
		o, app := h.linkOrg(t, "Acme")
		key := o.key.raw
		sdk := h.sdkKey(t, o).raw
		l := h.create(t, key, `{"destination_url":"https://shop.example/p","slug":"spring","app_id":"`+app.ID.String()+`"}`)
		quiet := h.create(t, key, `{"destination_url":"https://shop.example/q","slug":"quiet","app_id":"`+app.ID.String()+`"}`)
		var made []string
		for range 5 {
			made = append(made, h.install(t, sdk, l))
		}
		newest := reversed(made)
		other, otherApp := h.linkOrg(t, "Other")
		ol := h.create(t, other.key.raw, `{"destination_url":"https://other.example/","slug":"theirs","app_id":"`+otherApp.ID.String()+`"}`)
		h.install(t, h.sdkKey(t, other).raw, ol)

		t.Run("newest first, in the envelope, with the window read", func(t *testing.T) {
			b := h.get(t, key, "/v1/installs").list(t)
			assert.Equal(t, newest, b.ids(), "another organization's install is not listed")
			assert.Nil(t, b.Pagination.NextCursor)
			assert.False(t, b.Pagination.HasMore)
			now := h.clock.Now()
			assert.True(t, now.Equal(b.Window.To), "to defaults to now")
			assert.True(t, now.Add(-30*24*time.Hour).Equal(b.Window.From), "from defaults to the earliest instant Free may read")
			rec := b.Data[0]
			assert.ElementsMatch(t, []string{"id", "click_id", "link_id", "app_id", "match_guaranteed", "is_reinstall",
				"installed_at", "has_device_id", "has_device_fingerprint", "has_matched_payload"}, keysOf(rec),
				"no device id, fingerprint, IP or payload")
			assert.Equal(t, true, rec["match_guaranteed"])
			assert.Equal(t, true, rec["has_device_id"])
		})

		t.Run("paging visits every record once, and records added meanwhile do not move unread pages", func(t *testing.T) {
			first := h.get(t, key, withQuery("/v1/installs", "limit", "2")).list(t)
			assert.Equal(t, newest[:2], first.ids())
			require.True(t, first.Pagination.HasMore)
			require.NotNil(t, first.Pagination.NextCursor)
			added := h.install(t, sdk, l)
			second := h.get(t, key, withQuery("/v1/installs", "limit", "2", "cursor", *first.Pagination.NextCursor)).list(t)
			assert.Equal(t, newest[2:4], second.ids())
			assert.Equal(t, first.Window, second.Window, "every page reads the first page's window")
			third := h.get(t, key, withQuery("/v1/installs", "limit", "3", "cursor", *second.Pagination.NextCursor)).list(t)
			assert.Equal(t, newest[4:], third.ids(), "the page size may change between pages")
			assert.False(t, third.Pagination.HasMore)
			assert.Nil(t, third.Pagination.NextCursor)
			assert.Equal(t, added, h.get(t, key, withQuery("/v1/installs", "limit", "1")).list(t).ids()[0])
			newest = append([]string{added}, newest...)
		})

		t.Run("app_id and link_id filter", func(t *testing.T) {
			assert.Equal(t, newest, h.get(t, key, withQuery("/v1/installs", "app_id", app.ID.String())).list(t).ids())
			assert.Empty(t, h.get(t, key, withQuery("/v1/installs", "app_id", "none")).list(t).Data)
			assert.Empty(t, h.get(t, key, withQuery("/v1/installs", "app_id", otherApp.ID.String())).list(t).Data)
			assert.Equal(t, newest, h.get(t, key, withQuery("/v1/installs", "link_id", l.ID.String())).list(t).ids())
			assert.Empty(t, h.get(t, key, withQuery("/v1/installs", "link_id", quiet.ID.String())).list(t).Data)
			assert.Empty(t, h.get(t, key, withQuery("/v1/installs", "link_id", ol.ID.String())).list(t).Data,
				"another organization's link")
		})

		t.Run("a member's key sees the installs of their own links only", func(t *testing.T) {
			m := h.newMember(t, o, auth.RoleMember)
			mk := h.memberKey(t, m, auth.ScopeLinksWrite, auth.ScopeAnalyticsRead).raw
			ml := h.create(t, mk, `{"destination_url":"https://shop.example/m","slug":"mine","app_id":"`+app.ID.String()+`"}`)
			mine := h.install(t, sdk, ml)
			assert.Equal(t, []string{mine}, h.get(t, mk, "/v1/installs").list(t).ids())
			assert.Equal(t, append([]string{mine}, newest...), h.get(t, key, "/v1/installs").list(t).ids())
			admin := h.newMember(t, o, auth.RoleAdmin)
			assert.Len(t, h.get(t, h.memberKey(t, admin, auth.ScopeAnalyticsRead).raw, "/v1/installs").list(t).Data, len(newest)+1)
		})

		t.Run("analytics:read or links:read is needed", func(t *testing.T) {
			assert.Len(t, h.get(t, h.scopedKey(t, o, auth.ScopeLinksRead).raw, "/v1/installs").list(t).Data, len(newest)+1)
			assert.Len(t, h.get(t, h.scopedKey(t, o, auth.ScopeAnalyticsRead).raw, "/v1/installs").list(t).Data, len(newest)+1)
			assertError(t, h.get(t, h.scopedKey(t, o, auth.ScopeAppsRead).raw, "/v1/installs"), http.StatusForbidden, errcode.Forbidden)
		})

		t.Run("SDK keys get 403 SDK_KEY_ROUTE_FORBIDDEN", func(t *testing.T) {
			assertError(t, h.get(t, sdk, "/v1/installs"), http.StatusForbidden, errcode.SDKKeyRouteForbidden)
		})

		t.Run("without a key: 401", func(t *testing.T) {
			assertError(t, h.get(t, "", "/v1/installs"), http.StatusUnauthorized, errcode.Unauthorized)
		})
	})
}

func TestListQueryValidation(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAttrHarness(t, s)
		o, _ := h.linkOrg(t, "Acme")
		key := o.key.raw
		now := h.clock.Now()
		tests := []struct {
			name   string
			query  string
			fields []string
			lists  []string // both when empty
		}{
			{"an unknown parameter", "offset=0", []string{"offset"}, nil},
			{"a repeated parameter", "limit=1&limit=2", []string{"limit"}, nil},
			{"app_id neither a UUID nor none", "app_id=all", []string{"app_id"}, nil},
			{"limit 0", "limit=0", []string{"limit"}, nil},
			{"limit 501", "limit=501", []string{"limit"}, nil},
			{"limit not an integer", "limit=ten", []string{"limit"}, nil},
			{"from without an offset", "from=2029-12-30T00:00:00", []string{"from"}, nil},
			{"to not an instant", "to=yesterday", []string{"to"}, nil},
			{"from equal to to", "from=" + url.QueryEscape(rfc(now.Add(-time.Hour))) + "&to=" + url.QueryEscape(rfc(now.Add(-time.Hour))), []string{"to"}, nil},
			{"from after to", "from=" + url.QueryEscape(rfc(now.Add(-time.Hour))) + "&to=" + url.QueryEscape(rfc(now.Add(-2*time.Hour))), []string{"to"}, nil},
			{"link_id not a UUID", "link_id=spring", []string{"link_id"}, []string{"/v1/installs"}},
			{"matched on installs", "matched=true", []string{"matched"}, []string{"/v1/installs"}},
			{"matched not a boolean", "matched=yes", []string{"matched"}, []string{"/v1/attribution/attempts"}},
			{"link_id on attempts", "link_id=" + uuid.NewString(), []string{"link_id"}, []string{"/v1/attribution/attempts"}},
		}
		for _, tt := range tests {
			lists := tt.lists
			if lists == nil {
				lists = []string{"/v1/installs", "/v1/attribution/attempts"}
			}
			for _, path := range lists {
				t.Run(tt.name+" "+path, func(t *testing.T) {
					resp := h.do(t, request{method: http.MethodGet, path: path + "?" + tt.query, key: key, off: true})
					e := assertError(t, resp, http.StatusBadRequest, errcode.ValidationError)
					assertFields(t, e, tt.fields...)
				})
			}
		}
		t.Run("a from with an offset other than Z is an instant", func(t *testing.T) {
			from := now.Add(-time.Hour).In(time.FixedZone("", 2*3600)).Format(time.RFC3339)
			b := h.get(t, key, withQuery("/v1/installs", "from", from)).list(t)
			assert.True(t, now.Add(-time.Hour).Equal(b.Window.From))
		})
	})
}

func TestListCursors(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAttrHarness(t, s)
		o, app := h.linkOrg(t, "Acme")
		key := o.key.raw
		sdk := h.sdkKey(t, o).raw
		l := h.create(t, key, `{"destination_url":"https://shop.example/p","slug":"spring","app_id":"`+app.ID.String()+`"}`)
		for range 3 {
			h.install(t, sdk, l)
		}
		installs := h.get(t, key, withQuery("/v1/installs", "limit", "1")).list(t)
		require.NotNil(t, installs.Pagination.NextCursor)
		cursor := *installs.Pagination.NextCursor
		attempts := h.get(t, key, withQuery("/v1/attribution/attempts", "limit", "1")).list(t)
		require.NotNil(t, attempts.Pagination.NextCursor)

		other := h.newOrg(t, "Other")
		tampered := []byte(cursor)
		tampered[len(tampered)/2] ^= 1
		for name, path := range map[string]string{
			"garbage":                                 withQuery("/v1/installs", "cursor", "not-a-cursor"),
			"a tampered cursor":                       withQuery("/v1/installs", "cursor", string(tampered)),
			"the attempts list's cursor":              withQuery("/v1/installs", "cursor", *attempts.Pagination.NextCursor),
			"an installs cursor on the attempts list": withQuery("/v1/attribution/attempts", "cursor", cursor),
			"changed app_id":                          withQuery("/v1/installs", "cursor", cursor, "app_id", app.ID.String()),
			"changed link_id":                         withQuery("/v1/installs", "cursor", cursor, "link_id", l.ID.String()),
			"an added from":                           withQuery("/v1/installs", "cursor", cursor, "from", rfc(h.clock.Now().Add(-time.Hour))),
			"an added matched filter": withQuery("/v1/attribution/attempts", "cursor", *attempts.Pagination.NextCursor,
				"matched", "true"),
		} {
			t.Run(name, func(t *testing.T) {
				assertError(t, h.get(t, key, path), http.StatusBadRequest, errcode.CursorInvalid)
			})
		}
		t.Run("another organization's key", func(t *testing.T) {
			assertError(t, h.get(t, other.key.raw, withQuery("/v1/installs", "cursor", cursor)), http.StatusBadRequest, errcode.CursorInvalid)
		})
		t.Run("a cursor signed with another secret", func(t *testing.T) {
			h2 := newAttrHarness(t, s, withAPI(func(h *harness, o *httpapi.Options) {
				o.Lists = attribution.NewLists(h.store, o.Orgs, attribution.ListsOptions{
					Secret: []byte("another secret of thirty-two bytes"), Clock: h.clock.Now})
			}))
			assertError(t, h2.get(t, key, withQuery("/v1/installs", "cursor", cursor)), http.StatusBadRequest, errcode.CursorInvalid)
		})
		t.Run("a to far in the future pages", func(t *testing.T) {
			query := []string{"to", "9999-12-31T23:59:59.999999999Z", "limit", "1"}
			first := h.get(t, key, withQuery("/v1/installs", query...)).list(t)
			require.NotNil(t, first.Pagination.NextCursor)
			next := h.get(t, key, withQuery("/v1/installs", append(query, "cursor", *first.Pagination.NextCursor)...)).list(t)
			assert.Len(t, next.Data, 1)
			assert.Equal(t, first.Window, next.Window)
		})
		t.Run("the same filters continue", func(t *testing.T) {
			assert.Len(t, h.get(t, key, withQuery("/v1/installs", "cursor", cursor)).list(t).Data, 2)
		})
		t.Run("a from at the edge of the look-back keeps paging as time passes", func(t *testing.T) {
			from := rfc(h.clock.Now().Add(-30 * 24 * time.Hour))
			first := h.get(t, key, withQuery("/v1/installs", "from", from, "limit", "1")).list(t)
			require.NotNil(t, first.Pagination.NextCursor)
			h.clock.Advance(time.Hour)
			assertError(t, h.get(t, key, withQuery("/v1/installs", "from", from)), http.StatusForbidden, errcode.LookbackExceeded)
			next := h.get(t, key, withQuery("/v1/installs", "from", from, "limit", "1", "cursor", *first.Pagination.NextCursor)).list(t)
			assert.Len(t, next.Data, 1)
			assert.Equal(t, first.Window, next.Window)
		})
		t.Run("a cursor expires after a day", func(t *testing.T) {
			page := h.get(t, key, withQuery("/v1/installs", "limit", "1")).list(t)
			require.NotNil(t, page.Pagination.NextCursor)
			h.clock.Advance(listcursor.Lifetime)
			assert.Len(t, h.get(t, key, withQuery("/v1/installs", "limit", "1", "cursor", *page.Pagination.NextCursor)).list(t).Data, 1)
			h.clock.Advance(time.Second)
			assertError(t, h.get(t, key, withQuery("/v1/installs", "limit", "1", "cursor", *page.Pagination.NextCursor)),
				http.StatusBadRequest, errcode.CursorInvalid)
		})
	})
}

func TestListAttempts(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAttrHarness(t, s)
		o, app := h.linkOrg(t, "Acme")
		key := o.key.raw
		sdk := h.sdkKey(t, o).raw
		l := h.create(t, key, `{"destination_url":"https://shop.example/p","slug":"spring","app_id":"`+app.ID.String()+`"}`)
		h.install(t, sdk, l)
		h.unmatched(t, sdk)
		h.install(t, sdk, l)
		h.unmatched(t, sdk)
		other, _ := h.linkOrg(t, "Other")
		h.unmatched(t, h.sdkKey(t, other).raw)

		t.Run("every attempt, newest first, without personal data", func(t *testing.T) {
			b := h.get(t, key, "/v1/attribution/attempts").list(t)
			require.Len(t, b.Data, 4)
			matched := []bool{}
			for _, a := range b.Data {
				matched = append(matched, a["matched"].(bool))
				for _, k := range keysOf(a) {
					assert.NotContains(t, []string{"ip", "fingerprint", "device_id"}, k)
				}
			}
			assert.Equal(t, []bool{false, true, false, true}, matched)
			assert.Equal(t, "claim", b.Data[1]["match_source"])
			assert.Equal(t, "ipv4", b.Data[1]["ip_class"])
			var prev time.Time
			for i, a := range b.Data {
				at, err := time.Parse(time.RFC3339Nano, a["created_at"].(string))
				require.NoError(t, err)
				if i > 0 {
					assert.True(t, at.Before(prev), "newest first")
				}
				prev = at
			}
		})

		t.Run("matched filters", func(t *testing.T) {
			for _, a := range h.get(t, key, withQuery("/v1/attribution/attempts", "matched", "true")).list(t).Data {
				assert.Equal(t, true, a["matched"])
			}
			b := h.get(t, key, withQuery("/v1/attribution/attempts", "matched", "false")).list(t)
			assert.Len(t, b.Data, 2)
			for _, a := range b.Data {
				assert.Equal(t, false, a["matched"])
			}
		})

		t.Run("paging", func(t *testing.T) {
			all := h.get(t, key, "/v1/attribution/attempts").list(t).ids()
			var seen []string
			path := withQuery("/v1/attribution/attempts", "limit", "3")
			for {
				b := h.get(t, key, path).list(t)
				seen = append(seen, b.ids()...)
				if !b.Pagination.HasMore {
					break
				}
				path = withQuery("/v1/attribution/attempts", "limit", "3", "cursor", *b.Pagination.NextCursor)
			}
			assert.Equal(t, all, seen)
		})

		t.Run("a member's key is refused (rule 8)", func(t *testing.T) {
			m := h.newMember(t, o, auth.RoleMember)
			resp := h.get(t, h.memberKey(t, m, auth.ScopeAnalyticsRead).raw, "/v1/attribution/attempts")
			assertError(t, resp, http.StatusForbidden, errcode.Forbidden)
			admin := h.newMember(t, o, auth.RoleAdmin)
			assert.Len(t, h.get(t, h.memberKey(t, admin, auth.ScopeAnalyticsRead).raw, "/v1/attribution/attempts").list(t).Data, 4)
		})

		t.Run("scopes and SDK keys", func(t *testing.T) {
			assert.Len(t, h.get(t, h.scopedKey(t, o, auth.ScopeLinksRead).raw, "/v1/attribution/attempts").list(t).Data, 4)
			assertError(t, h.get(t, h.scopedKey(t, o, auth.ScopeKeysRead).raw, "/v1/attribution/attempts"), http.StatusForbidden, errcode.Forbidden)
			assertError(t, h.get(t, sdk, "/v1/attribution/attempts"), http.StatusForbidden, errcode.SDKKeyRouteForbidden)
		})
	})
}

func TestListWindows(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAttrHarness(t, s)
		o, app := h.linkOrg(t, "Acme")
		key := o.key.raw
		sdk := h.sdkKey(t, o).raw
		l := h.create(t, key, `{"destination_url":"https://shop.example/p","slug":"spring","app_id":"`+app.ID.String()+`"}`)
		old := h.install(t, sdk, l)
		h.clock.Advance(40 * 24 * time.Hour)
		recent := h.install(t, sdk, l)
		now := h.clock.Now()
		day := 24 * time.Hour
		paths := []string{"/v1/installs", "/v1/attribution/attempts"}

		t.Run("Free: the last 30 days by default", func(t *testing.T) {
			b := h.get(t, key, "/v1/installs").list(t)
			assert.Equal(t, []string{recent}, b.ids())
			assert.True(t, now.Add(-30*day).Equal(b.Window.From))
		})

		t.Run("Free: a from older than 30 days is 403 LOOKBACK_EXCEEDED with earliest_allowed (rule 3)", func(t *testing.T) {
			for _, p := range paths {
				resp := h.get(t, key, withQuery(p, "from", rfc(now.Add(-31*day))))
				assertError(t, resp, http.StatusForbidden, errcode.LookbackExceeded)
				got, err := time.Parse(time.RFC3339Nano, details(t, resp)["earliest_allowed"].(string))
				require.NoError(t, err)
				assert.True(t, now.Add(-30*day).Equal(got), "earliest_allowed %s", got)
				resp = h.get(t, key, withQuery(p, "to", rfc(now.Add(-31*day))))
				assertError(t, resp, http.StatusForbidden, errcode.LookbackExceeded)
			}
			b := h.get(t, key, withQuery("/v1/installs", "from", rfc(now.Add(-30*day)))).list(t)
			assert.Equal(t, []string{recent}, b.ids(), "exactly 30 days is allowed")
		})

		t.Run("a paid plan reads its whole retention", func(t *testing.T) {
			_, err := h.orgs.SetPlan(context.Background(), o.ID, org.PlanStarter)
			require.NoError(t, err)
			b := h.get(t, key, withQuery("/v1/installs", "from", rfc(now.Add(-45*day)))).list(t)
			assert.Equal(t, []string{recent, old}, b.ids())
			b = h.get(t, key, "/v1/installs").list(t)
			assert.Equal(t, []string{recent, old}, b.ids())
			assert.True(t, now.Add(-365*day).Equal(b.Window.From), "from defaults to the start of retention")
		})

		t.Run("a from before retention is raised to its start (rule 4)", func(t *testing.T) {
			for _, p := range paths {
				b := h.get(t, key, withQuery(p, "from", rfc(now.Add(-500*day)))).list(t)
				assert.True(t, now.Add(-365*day).Equal(b.Window.From), "window.from %s", b.Window.From)
				assert.True(t, now.Equal(b.Window.To))
			}
		})

		t.Run("a window wholly before retention is 422 RETENTION_WINDOW_UNAVAILABLE (rule 5)", func(t *testing.T) {
			for _, p := range paths {
				resp := h.get(t, key, withQuery(p, "from", rfc(now.Add(-800*day)), "to", rfc(now.Add(-400*day))))
				assertError(t, resp, http.StatusUnprocessableEntity, errcode.RetentionWindowUnavailable)
				resp = h.get(t, key, withQuery(p, "to", rfc(now.Add(-365*day))))
				assertError(t, resp, http.StatusUnprocessableEntity, errcode.RetentionWindowUnavailable)
			}
		})

		t.Run("the lists keep working past the click limit (rule 6)", func(t *testing.T) {
			_, err := h.orgs.SetPlan(context.Background(), o.ID, org.PlanFree)
			require.NoError(t, err)
			o2, err := h.orgs.ByID(context.Background(), o.ID)
			require.NoError(t, err)
			row := map[string]any{"org_id": o.ID, "period_start": org.PeriodStart(o2.BillingPeriodStart, now),
				"count": int64(o2.MonthlyClickLimit) + 1}
			// The month's clicks are counted already (the test's clicks).
			_, err = s.DB().NewInsert().Model(&row).TableExpr("click_counts").
				On("CONFLICT (org_id, period_start) DO UPDATE").Set("count = EXCLUDED.count").Exec(context.Background())
			require.NoError(t, err)
			assert.Equal(t, []string{recent}, h.get(t, key, "/v1/installs").list(t).ids())
			assert.NotEmpty(t, h.get(t, key, "/v1/attribution/attempts").list(t).Data)
		})
	})
}
