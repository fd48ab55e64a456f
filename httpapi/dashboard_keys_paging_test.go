package httpapi_test

import (
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/store/storetest"
)

var keyRowName = regexp.MustCompile(`<tr><td data-label="Name">([^<]+) <span`)

// keyNames returns the names of a key list page's rows, in order.
func keyNames(body string) []string {
	out := []string{}
	for _, m := range keyRowName.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestDashboardKeysPaging proves that the key list is paged as the links
// list is: twenty a page in the service's order, Previous and Next links,
// a count, a page past the end that says so, and a bad page number as a
// 400 page that shows the first page; a member's pages hold their own keys.
func TestDashboardKeysPaging(t *testing.T) {
	t.Parallel()
	h := newDashHarness(t, storetest.SQLite(t))
	owner := h.member(t, auth.RoleOwner)
	member := h.member(t, auth.RoleMember)
	for range 24 {
		h.memberKey(t, owner, auth.ScopeLinksRead)
	}
	h.memberKey(t, member, auth.ScopeLinksRead)
	// With the organization's own key: 26 keys, the member's last.
	b := h.signedIn(t, owner, "198.51.100.90")
	keys := keysPath(h)

	p := b.get(keys)
	require.Equal(t, http.StatusOK, p.status, p.body)
	assert.Len(t, keyNames(p.body), 20)
	assert.Contains(t, p.body, `id="count">1 to 20 of 26 keys`)
	assert.Contains(t, p.body, `<a href="`+keys+`?page=2" rel="next" id="next-page">`)
	assert.NotContains(t, p.body, `id="prev-page"`)
	assert.Contains(t, p.body, `id="create-key"`, "the create form is on every page")

	p = b.get(keys + "?page=2")
	require.Equal(t, http.StatusOK, p.status)
	assert.Len(t, keyNames(p.body), 6)
	assert.Contains(t, p.body, `id="count">21 to 26 of 26 keys`)
	assert.Contains(t, p.body, `<a href="`+keys+`?page=1" rel="prev" id="prev-page">`)
	assert.NotContains(t, p.body, `id="next-page"`)

	p = b.get(keys + "?page=3")
	require.Equal(t, http.StatusOK, p.status)
	assert.Contains(t, p.body, `id="empty">No keys on this page. <a href="`+keys+`?page=1">Back to the first page</a>`)

	for _, q := range []string{"?page=0", "?page=x", fmt.Sprintf("?page=%d", 100001)} {
		p = b.get(keys + q)
		assert.Equal(t, http.StatusBadRequest, p.status, "GET keys%s", q)
		assert.Contains(t, p.body, `id="error">The page must be a number from 1 to 100000.`)
		assert.Contains(t, p.body, `id="count">1 to 20 of 26 keys`, "the first page, under the error")
	}

	mb := h.signedIn(t, member, "198.51.100.91")
	p = mb.get(keys)
	require.Equal(t, http.StatusOK, p.status)
	assert.Equal(t, []string{"member key"}, keyNames(p.body), "a member's pages hold their own keys")
	assert.Contains(t, p.body, `id="count">1 to 1 of 1 keys`)
	assert.NotContains(t, p.body, `id="next-page"`)
}
