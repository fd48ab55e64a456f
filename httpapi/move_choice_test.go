package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// moveChoiceBody is the Move choice resource as a test reads it.
type moveChoiceBody struct {
	LinkID    uuid.UUID `json:"link_id"`
	Choice    string    `json:"choice"`
	NewSlug   *string   `json:"new_slug"`
	ShortURL  string    `json:"short_url"`
	UpdatedAt time.Time `json:"updated_at"`
}

func moveChoicePath(id uuid.UUID) string { return linkPath(id) + "/move-choice" }

// putChoice sends PUT /v1/links/{id}/move-choice; off sends it outside the
// document, for bodies the document refuses.
func (h *domainHarness) putChoice(t testing.TB, key string, id uuid.UUID, body string, off bool) *response {
	t.Helper()
	return h.do(t, request{method: http.MethodPut, path: moveChoicePath(id), key: key, body: body, off: off})
}

// moveSetup is an organization whose app was renamed: its links made before
// the rename are on prev, the app's previous subdomain, and curr is its
// subdomain now.
type moveSetup struct {
	*domainHarness
	org        *testOrg
	app        *linking.App
	prev, curr string
}

func newMoveSetup(t *testing.T, s *store.Store) *moveSetup {
	t.Helper()
	h := newDomainHarness(t, s)
	o := h.newOrg(t, "Acme")
	app := h.newLinkApp(t, o.ID, nil)
	return &moveSetup{domainHarness: h, org: o, app: app, prev: app.LinkDomain, curr: "re" + app.Handle + "." + linkDomain}
}

// link creates a link of the app with slug through POST /v1/links, with key.
func (m *moveSetup) link(t testing.TB, key, slug string) linkBody {
	t.Helper()
	return m.create(t, key, fmt.Sprintf(`{"destination_url":"https://example.com/%s","slug":%q,"app_id":%q}`, slug, slug, m.app.ID))
}

// rename gives the app the subdomain curr and prev as its previous one, as
// a rename would, directly in the database, and empties the resolver cache
// as an app write does.
func (m *moveSetup) rename(t testing.TB) {
	t.Helper()
	_, err := m.store.DB().NewUpdate().Table("apps").
		Set("handle = ?", "re"+m.app.Handle).
		Set("link_domain = ?", m.curr).
		Set("default_link_domain = ?", m.curr).
		Set("previous_link_domain = ?", m.prev).
		Where("id = ?", m.app.ID).Exec(context.Background())
	require.NoError(t, err)
	m.resolver.InvalidateAll()
}

// assertServes checks that a visit of slug on host redirects (302) to the
// destination of the link with slug want.
func (m *moveSetup) assertServes(t testing.TB, host, slug, want string) {
	t.Helper()
	resp := m.visit(t, visit{host: host, path: "/" + slug, ua: uaDesktop})
	if assert.Equal(t, http.StatusFound, resp.status, "%s/%s; body: %s", host, slug, resp.body) {
		assert.Equal(t, "https://example.com/"+want, resp.header.Get("Location"), "%s/%s", host, slug)
	}
}

// assertMovedTo checks that a visit of slug on host is 301 to the short URL
// of newSlug on newHost.
func (m *moveSetup) assertMovedTo(t testing.TB, host, slug, newHost, newSlug string) {
	t.Helper()
	resp := m.visit(t, visit{host: host, path: "/" + slug, ua: uaDesktop})
	if assert.Equal(t, http.StatusMovedPermanently, resp.status, "%s/%s; body: %s", host, slug, resp.body) {
		assert.Equal(t, "https://"+newHost+"/"+newSlug, resp.header.Get("Location"), "%s/%s", host, slug)
	}
}

// assertChoice checks the saved choice of link id: none when want is "".
func (m *moveSetup) assertChoice(t testing.TB, id uuid.UUID, want string) {
	t.Helper()
	c, err := m.store.MoveChoiceOf(context.Background(), m.org.ID, id)
	if want == "" {
		assert.ErrorIs(t, err, errcode.ErrNotFound, "no saved choice")
		return
	}
	require.NoError(t, err)
	assert.Equal(t, want, c.Choice)
}

func TestMoveChoiceNewSlugMovesTheLink(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		m := newMoveSetup(t, s)
		key := m.org.key.raw
		l := m.link(t, key, "spring")
		m.rename(t)
		m.clock.Advance(time.Minute)
		// Both addresses are read, and cached, before the move (the
		// clock stands still: no cache entry expires in this test).
		m.assertServes(t, m.prev, "spring", "spring")
		assert.Equal(t, http.StatusNotFound, m.visit(t, visit{host: m.curr, path: "/spring-sale", ua: uaDesktop}).status)

		resp := m.putChoice(t, key, l.ID, `{"choice":"new_slug","new_slug":"spring-sale"}`, false)
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		var c moveChoiceBody
		resp.decode(t, &c)
		assert.Equal(t, l.ID, c.LinkID)
		assert.Equal(t, linking.MoveChoiceNewSlug, c.Choice)
		if assert.NotNil(t, c.NewSlug) {
			assert.Equal(t, "spring-sale", *c.NewSlug)
		}
		assert.Equal(t, "http://"+m.curr+":8080/spring-sale", c.ShortURL)
		assert.Equal(t, m.clock.Now(), c.UpdatedAt)
		m.assertChoice(t, l.ID, linking.MoveChoiceNewSlug)

		got := m.get(t, key, linkPath(l.ID)).link(t)
		assert.Equal(t, m.curr, got.Domain)
		assert.Equal(t, "spring-sale", got.Slug)
		assert.Equal(t, c.ShortURL, got.ShortURL)
		assert.Equal(t, m.clock.Now(), got.UpdatedAt)
		assert.Equal(t, []any{map[string]any{"url": "http://" + m.prev + ":8080/spring",
			"since": m.clock.Now().Format(time.RFC3339)}}, got.RedirectedFrom)

		// The resolver cache forgot both addresses at once.
		m.assertServes(t, m.curr, "spring-sale", "spring")
		m.assertMovedTo(t, m.prev, "spring", m.curr, "spring-sale")

		// The link no longer uses the previous subdomain.
		assertError(t, m.putChoice(t, key, l.ID, `{"choice":"keep"}`, false), 409, errcode.LinkMoveNotPending)
		assertError(t, m.delete(t, key, moveChoicePath(l.ID)), 409, errcode.LinkMoveNotPending)
		// Its new address is taken for a new link.
		assertError(t, m.post(t, key, "/v1/links", fmt.Sprintf(`{"destination_url":"https://example.com","slug":"spring-sale","app_id":%q}`, m.app.ID)),
			409, errcode.SlugTaken)
	})
}

func TestMoveChoiceKeepLeavesTheLinkAndItsSlugUnheld(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		m := newMoveSetup(t, s)
		key := m.org.key.raw
		summer := m.link(t, key, "summer")
		spring := m.link(t, key, "spring")
		m.rename(t)

		// summer has chosen nothing: its slug is held on curr for it.
		resp := m.putChoice(t, key, spring.ID, `{"choice":"new_slug","new_slug":"summer"}`, false)
		assertError(t, resp, 409, errcode.SlugTaken)
		assert.Equal(t, map[string]any{"slug": "summer", "domain": m.curr,
			"held_by": map[string]any{"domain": m.prev, "slug": "summer"}}, details(t, resp))

		for range 2 { // a second keep replaces the first
			resp = m.putChoice(t, key, summer.ID, `{"choice":"keep","new_slug":null}`, false)
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			var c moveChoiceBody
			resp.decode(t, &c)
			assert.Equal(t, moveChoiceBody{LinkID: summer.ID, Choice: linking.MoveChoiceKeep,
				ShortURL: summer.ShortURL, UpdatedAt: m.clock.Now()}, c)
			m.clock.Advance(time.Second)
		}
		m.assertChoice(t, summer.ID, linking.MoveChoiceKeep)
		got := m.get(t, key, linkPath(summer.ID)).link(t)
		assert.Equal(t, m.prev, got.Domain, "keep leaves the link where it is")
		assert.Equal(t, "summer", got.Slug)
		assert.Empty(t, got.RedirectedFrom)
		m.assertServes(t, m.prev, "summer", "summer")

		// Once summer keeps its place, its slug on curr is free.
		resp = m.putChoice(t, key, spring.ID, `{"choice":"new_slug","new_slug":"summer"}`, false)
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		m.assertServes(t, m.curr, "summer", "spring")
		m.assertServes(t, m.prev, "summer", "summer")
		m.assertMovedTo(t, m.prev, "spring", m.curr, "summer")

		// Clearing summer's choice: its slug is taken on curr now, so it stays.
		resp = m.delete(t, key, moveChoicePath(summer.ID))
		require.Equal(t, http.StatusNoContent, resp.status, "body: %s", resp.body)
		assert.Empty(t, resp.body)
		m.assertChoice(t, summer.ID, "")
		got = m.get(t, key, linkPath(summer.ID)).link(t)
		assert.Equal(t, m.prev, got.Domain, "the slug is taken where it would move")
		m.assertServes(t, m.prev, "summer", "summer")
		// And again, with no choice saved: still pending, still staying.
		require.Equal(t, http.StatusNoContent, m.delete(t, key, moveChoicePath(summer.ID)).status)
	})
}

func TestClearMoveChoiceMovesTheLinkWithItsSlug(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		m := newMoveSetup(t, s)
		key := m.org.key.raw
		kept := m.link(t, key, "autumn")
		plain := m.link(t, key, "winter")
		m.rename(t)
		require.Equal(t, http.StatusOK, m.putChoice(t, key, kept.ID, `{"choice":"keep"}`, false).status)
		// Both addresses of both links are read, and cached, before the
		// moves (the clock stands still: no cache entry expires here).
		for _, slug := range []string{"autumn", "winter"} {
			m.assertServes(t, m.prev, slug, slug)
			assert.Equal(t, http.StatusNotFound, m.visit(t, visit{host: m.curr, path: "/" + slug, ua: uaDesktop}).status)
		}

		for _, l := range []linkBody{kept, plain} { // with a saved choice and without one
			resp := m.delete(t, key, moveChoicePath(l.ID))
			require.Equal(t, http.StatusNoContent, resp.status, "body: %s", resp.body)
			m.assertChoice(t, l.ID, "")
			got := m.get(t, key, linkPath(l.ID)).link(t)
			assert.Equal(t, m.curr, got.Domain, "%s moves with its slug", l.Slug)
			assert.Equal(t, l.Slug, got.Slug)
			assert.Len(t, got.RedirectedFrom, 1)
			m.assertServes(t, m.curr, l.Slug, l.Slug)
			m.assertMovedTo(t, m.prev, l.Slug, m.curr, l.Slug)
			assertError(t, m.delete(t, key, moveChoicePath(l.ID)), 409, errcode.LinkMoveNotPending)
		}
	})
}

func TestMoveChoiceRefusals(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		m := newMoveSetup(t, s)
		key := m.org.key.raw
		l := m.link(t, key, "spring")
		other := m.link(t, key, "other")
		m.rename(t)
		onCurr := m.link(t, key, "taken")
		noApp := m.create(t, key, `{"destination_url":"https://example.com","slug":"no-app"}`)
		_, err := m.links.RecordOldAddress(context.Background(), m.org.ID, other.ID, m.curr, "was-here")
		require.NoError(t, err)
		stranger, _ := m.linkOrg(t, "Other")
		readOnly := m.scopedKey(t, m.org, auth.ScopeLinksRead).raw
		valid := `{"choice":"new_slug","new_slug":"spring-sale"}`

		t.Run("the key", func(t *testing.T) {
			assertError(t, m.putChoice(t, readOnly, l.ID, valid, false), 403, errcode.Forbidden)
			assertError(t, m.delete(t, readOnly, moveChoicePath(l.ID)), 403, errcode.Forbidden)
			assertError(t, m.putChoice(t, readOnly, l.ID, `{}`, true), 403, errcode.Forbidden)
			assertError(t, m.putChoice(t, "", l.ID, valid, false), 401, errcode.Unauthorized)
			assertError(t, m.putChoice(t, m.sdkKey(t, m.org).raw, l.ID, valid, false), 403, errcode.SDKKeyRouteForbidden)
		})
		t.Run("the id", func(t *testing.T) {
			bad := request{method: http.MethodPut, path: "/v1/links/spring/move-choice", key: key, body: valid}
			assertError(t, m.do(t, bad), 400, errcode.InvalidID)
			bad.method, bad.body = http.MethodDelete, ""
			assertError(t, m.do(t, bad), 400, errcode.InvalidID)
		})
		t.Run("the link", func(t *testing.T) {
			for _, id := range []uuid.UUID{uuid.Must(uuid.NewV7()), l.ID} {
				assertError(t, m.putChoice(t, stranger.key.raw, id, valid, false), 404, errcode.NotFound)
				assertError(t, m.putChoice(t, stranger.key.raw, id, `{}`, true), 404, errcode.NotFound)
				assertError(t, m.delete(t, stranger.key.raw, moveChoicePath(id)), 404, errcode.NotFound)
			}
		})
		t.Run("the body", func(t *testing.T) {
			for body, field := range map[string]string{
				``:                  "body",
				`[]`:                "body",
				`{}`:                "choice",
				`{"choice":null}`:   "choice",
				`{"choice":"move"}`: "choice",
				`{"choice":1}`:      "choice",
				`{"choice":"keep","new_slug":"spring-sale"}`: "new_slug",
				`{"choice":"keep","extra":true}`:             "extra",
				`{"choice":"new_slug"}`:                      "new_slug",
				`{"choice":"new_slug","new_slug":null}`:      "new_slug",
				`{"choice":"new_slug","new_slug":"Spring"}`:  "new_slug",
				`{"choice":"new_slug","new_slug":"a"}`:       "new_slug",
				`{"choice":"new_slug","new_slug":"a--b"}`:    "new_slug",
				`{"choice":"new_slug","new_slug":"test"}`:    "new_slug",
				`{"choice":"new_slug","new_slug":"admin"}`:   "new_slug",
			} {
				e := assertError(t, m.putChoice(t, key, l.ID, body, true), 400, errcode.ValidationError)
				assert.Equal(t, []string{field}, e.fields(), "body %s", body)
			}
			e := assertError(t, m.putChoice(t, key, l.ID, `{"choice":"new_slug","new_slug":"spring"}`, false), 400, errcode.SlugUnchanged)
			assert.Equal(t, []string{"new_slug"}, e.fields())
		})
		t.Run("not pending", func(t *testing.T) {
			for _, id := range []uuid.UUID{onCurr.ID, noApp.ID} {
				assertError(t, m.putChoice(t, key, id, valid, false), 409, errcode.LinkMoveNotPending)
				assertError(t, m.putChoice(t, key, id, `{"choice":"keep"}`, false), 409, errcode.LinkMoveNotPending)
				assertError(t, m.delete(t, key, moveChoicePath(id)), 409, errcode.LinkMoveNotPending)
			}
		})
		t.Run("taken", func(t *testing.T) {
			for _, slug := range []string{"taken", "was-here"} { // a link, an old address
				resp := m.putChoice(t, key, l.ID, fmt.Sprintf(`{"choice":"new_slug","new_slug":%q}`, slug), false)
				assertError(t, resp, 409, errcode.SlugTaken)
				assert.Equal(t, map[string]any{"slug": slug, "domain": m.curr}, details(t, resp))
			}
		})
		got := m.get(t, key, linkPath(l.ID)).link(t)
		assert.Equal(t, m.prev, got.Domain, "no refusal moved the link")
		assert.Equal(t, "spring", got.Slug)
		assert.Equal(t, l.UpdatedAt, got.UpdatedAt)
		m.assertChoice(t, l.ID, "")
	})
}

func TestMembersChooseOnlyForTheirOwnLinks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		m := newMoveSetup(t, s)
		alice := m.memberKey(t, m.newMember(t, m.org, auth.RoleMember), auth.ScopeLinksWrite, auth.ScopeLinksRead).raw
		bob := m.memberKey(t, m.newMember(t, m.org, auth.RoleMember), auth.ScopeLinksWrite).raw
		admin := m.memberKey(t, m.newMember(t, m.org, auth.RoleAdmin), auth.ScopeLinksWrite).raw
		mine := m.link(t, alice, "mine")
		theirs := m.link(t, m.org.key.raw, "theirs")
		m.rename(t)

		for _, l := range []linkBody{mine, theirs} {
			assertError(t, m.putChoice(t, bob, l.ID, `{"choice":"keep"}`, false), 403, errcode.Forbidden)
			assertError(t, m.putChoice(t, bob, l.ID, `{"choice":"moved"}`, true), 403, errcode.Forbidden)
			assertError(t, m.delete(t, bob, moveChoicePath(l.ID)), 403, errcode.Forbidden)
		}
		m.assertChoice(t, mine.ID, "")

		require.Equal(t, http.StatusOK, m.putChoice(t, alice, mine.ID, `{"choice":"keep"}`, false).status)
		require.Equal(t, http.StatusOK, m.putChoice(t, admin, theirs.ID, `{"choice":"new_slug","new_slug":"admins"}`, false).status,
			"admins choose for every link")
		require.Equal(t, http.StatusNoContent, m.delete(t, alice, moveChoicePath(mine.ID)).status)
		got := m.get(t, alice, linkPath(mine.ID)).link(t)
		assert.Equal(t, m.curr, got.Domain)
	})
}

func TestCreateRefusesASlugHeldForALinkWaitingToMove(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		m := newMoveSetup(t, s)
		key := m.org.key.raw
		summer := m.link(t, key, "summer")
		m.rename(t)

		for _, domain := range []string{"", fmt.Sprintf(`,"domain":%q`, m.curr)} { // the app's default, named
			resp := m.post(t, key, "/v1/links",
				fmt.Sprintf(`{"destination_url":"https://example.com","slug":"summer","app_id":%q%s}`, m.app.ID, domain))
			assertError(t, resp, 409, errcode.SlugTaken)
			assert.Equal(t, map[string]any{"slug": "summer", "domain": m.curr,
				"held_by": map[string]any{"domain": m.prev, "slug": "summer"}}, details(t, resp))
		}

		require.Equal(t, http.StatusOK, m.putChoice(t, key, summer.ID, `{"choice":"keep"}`, false).status)
		l := m.link(t, key, "summer")
		assert.Equal(t, m.curr, l.Domain, "a link that chose keep holds no slug")
		m.assertServes(t, m.curr, "summer", "summer")
		m.assertServes(t, m.prev, "summer", "summer")
	})
}
