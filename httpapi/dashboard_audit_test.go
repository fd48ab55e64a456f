package httpapi_test

import (
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func auditPath(o *testOrg) string { return "/dashboard/o/" + o.ID.String() + "/audit" }

var auditRow = regexp.MustCompile(`<tr><td data-label="Time">`)

// TestDashboardAuditLog proves the audit log page: the organization's
// events newest first with the actor, the action and the target in words,
// the window filter with its refusals, pages through the cursors, the page
// refused to a member and not offered them, and no other organization's
// events.
func TestDashboardAuditLog(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newRecHarness(t, s)
		owner := h.member(t, auth.RoleOwner)
		member := h.member(t, auth.RoleMember)
		other := h.newOrg(t, "Beta")
		resp := h.post(t, other.key.raw, "/v1/keys", `{"name":"theirs","scopes":["links:read"]}`)
		require.Equal(t, http.StatusCreated, resp.status, resp.body)
		resp = h.post(t, h.org.key.raw, "/v1/keys", `{"name":"ci <deploy>","scopes":["links:read"]}`)
		require.Equal(t, http.StatusCreated, resp.status, resp.body)
		h.clock.Advance(time.Minute)

		b := h.signedIn(t, owner, "198.51.100.70")
		audit := auditPath(h.org)
		p := b.get(linksPath(h.org.ID))
		assert.Contains(t, p.body, `<a href="`+audit+`">Audit log</a>`, "an owner is offered the audit log")
		p = b.get(audit)
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Equal(t, 2, len(auditRow.FindAllString(p.body, -1)), "the sign-in and the key: %s", p.body)
		assert.Regexp(t, `<td data-label="Who">`+regexp.QuoteMeta(owner.email)+`</td><td data-label="What">Signed in`, p.body,
			"a member by their email, newest first")
		assert.Contains(t, p.body, `<td data-label="Who">The key Bootstrap key</td><td data-label="What">Created a key <span class="muted">(key ci &lt;deploy&gt;)</span>`,
			"a key by its name, the target in words, escaped")
		assert.Contains(t, p.body, "scopes: links:read")
		assert.NotContains(t, p.body, "theirs", "no other organization's events")

		p = b.get(audit + "?from=" + h.clock.Now().Add(time.Hour).Format("2006-01-02T15:04"))
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="empty">No event in this window.`)
		for _, bad := range []string{"?from=soon", "?app=x", "?to=a&to=b", "?cursor=nonsense"} {
			p = b.get(audit + bad)
			assert.Equal(t, http.StatusBadRequest, p.status, "GET %s", bad)
			assert.Contains(t, p.body, `id="error">`, "GET %s", bad)
		}
		p = b.get(audit + "?from=soon")
		assert.Contains(t, p.body, `id="from" name="from" type="datetime-local" value="soon"`, "the form keeps what was typed")

		for i := range 49 {
			if i%25 == 24 {
				h.clock.Advance(time.Minute)
			}
			resp := h.post(t, h.org.key.raw, "/v1/keys", `{"name":"key `+strconv.Itoa(i)+`","scopes":["links:read"]}`)
			require.Equal(t, http.StatusCreated, resp.status, resp.body)
		}
		p = b.get(audit)
		require.Len(t, auditRow.FindAllString(p.body, -1), 50, "fifty a page")
		assert.Contains(t, p.body, "key 48", "newest first")
		next := pageLink(t, p.body, "next-page")
		p = b.get(next)
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Len(t, auditRow.FindAllString(p.body, -1), 1)
		assert.Contains(t, p.body, "Signed in", "the oldest event")
		assert.Equal(t, audit, pageLink(t, p.body, "prev-page"))

		mb := h.signedIn(t, member, "198.51.100.71")
		p = mb.get(linksPath(h.org.ID))
		assert.NotContains(t, p.body, audit, "a member is not offered the audit log")
		p = mb.get(audit)
		assert.Equal(t, http.StatusForbidden, p.status, "and the page refuses them")
		assert.Empty(t, auditRow.FindAllString(p.body, -1))
		assert.Equal(t, http.StatusNotFound, b.get(auditPath(other)).status, "another organization's log")
	})
}
