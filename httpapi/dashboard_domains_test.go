package httpapi_test

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func domainsPath(orgID uuid.UUID) string { return "/dashboard/o/" + orgID.String() + "/domains" }

var domainPagePath = regexp.MustCompile(`^/dashboard/o/[0-9a-f-]{36}/domains/([0-9a-f-]{36})\?done=added$`)

// storedDomain reads domain id of the harness's organization as the API would.
func (h *appsDash) storedDomain(t testing.TB, id uuid.UUID) *linking.Domain {
	t.Helper()
	d, err := h.domains.Get(t.Context(), orgPrincipal(h.org), id)
	require.NoError(t, err)
	return d
}

// The verification runs against the DNS server on loopback: each answer
// the server gives (no record, a wrong one, none at all, the right one)
// is explained on the domain's page.
func TestDashboardDomainsJourney(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAppsDash(t, s)
		h.growth(t)
		owner := h.member(t, auth.RoleOwner)
		b := h.signedIn(t, owner, "198.51.100.80")
		list := domainsPath(h.org.ID)

		p := b.get(list)
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Contains(t, p.body, `id="empty">No custom domains yet. Add one below`)
		assert.Contains(t, p.body, `id="domain-plan">The Growth plan allows 5 custom domains; the organization has 0.`)

		p = b.post(list, url.Values{"domain": {"https://links.acme.example/<x>"}})
		require.Equal(t, http.StatusUnprocessableEntity, p.status, "INVALID_DOMAIN")
		assert.Regexp(t, `id="f-domain-error">[^<]+`, p.body)
		assert.Contains(t, p.body, `value="https://links.acme.example/&lt;x&gt;"`, "the form keeps what was typed, escaped")
		p = b.post(list, url.Values{"domain": {" "}})
		require.Equal(t, http.StatusBadRequest, p.status)
		assert.Contains(t, p.body, `id="f-domain-error">Type the domain to add`)
		assert.Zero(t, h.count(t, "domains", h.org.ID), "nothing was added")

		p = b.post(list, url.Values{"domain": {"Links.Acme.Example."}})
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		match := domainPagePath.FindStringSubmatch(p.location())
		require.NotNil(t, match, p.location())
		id := uuid.MustParse(match[1])
		assert.Equal(t, "links.acme.example", h.storedDomain(t, id).Domain)
		page := list + "/" + id.String()

		p = b.get(p.location())
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="notice">The domain was added.`)
		assert.Contains(t, p.body, `id="domain-state">Pending verification<`)
		assert.Contains(t, p.body, `<code id="dns-type">CNAME</code>`)
		assert.Contains(t, p.body, `<code id="dns-name">links.acme.example</code> <button type="button" class="copy" data-copy="dns-name" hidden>Copy</button>`)
		assert.Contains(t, p.body, `<code id="dns-value">`+cnameTarget+`</code>`)
		assert.Contains(t, p.body, `id="verify"`)
		assert.Contains(t, p.body, "<script>", "the copy buttons' script")

		p = b.post(list, url.Values{"domain": {"links.acme.example"}})
		require.Equal(t, http.StatusConflict, p.status, "DUPLICATE_DOMAIN")
		assert.Regexp(t, `id="f-domain-error">This organization already has the domain links.acme.example`, p.body)

		verify := page + "/verify"
		h.dns.SetNoCNAME("links.acme.example")
		p = b.post(verify, url.Values{})
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Contains(t, p.body, `id="check-explanation">The DNS lookup found no CNAME record for links.acme.example.`)
		assert.Contains(t, p.body, `id="check-found">No CNAME record.<`)
		assert.Contains(t, p.body, `<dt>Expected</dt><dd>A CNAME to <code>`+cnameTarget+`</code>`)
		assert.Contains(t, p.body, `id="check-message">The verification said: Links.acme.example has no CNAME record`)

		h.dns.SetCNAME("links.acme.example", "old-provider.example.net")
		p = b.post(verify, url.Values{})
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="check-explanation">The DNS lookup found a CNAME record for links.acme.example, but it points at old-provider.example.net instead of `+cnameTarget+`.`)
		assert.Contains(t, p.body, `id="check-found">A CNAME to old-provider.example.net.<`)

		slow, err := h.domains.Create(t.Context(), orgPrincipal(h.org), linking.CreateDomainInput{Domain: apitype.Some("slow.acme.example")})
		require.NoError(t, err)
		h.dns.Drop("slow.acme.example")
		b.get(list)
		p = b.post(list+"/"+slow.ID.String()+"/verify", url.Values{})
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="check-explanation">The DNS server gave no answer`)
		assert.Contains(t, p.body, `id="check-found">No answer: the DNS lookup failed.<`)
		assert.Contains(t, p.body, "it timed out", "the verification's own message")
		assert.False(t, h.storedDomain(t, slow.ID).Verified, "still pending")
		assert.False(t, h.storedDomain(t, id).Verified)

		h.dns.SetCNAME("links.acme.example", cnameTarget+".")
		p = b.post(verify, url.Values{})
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		assert.Equal(t, page+"?done=verified", p.location())
		d := h.storedDomain(t, id)
		assert.True(t, d.Verified)
		p = b.get(p.location())
		assert.Contains(t, p.body, `id="notice">The domain is verified`)
		assert.Contains(t, p.body, `id="domain-state">Verified<`)
		assert.NotContains(t, p.body, `id="verify"`, "a verified domain is not verified again")
		assert.NotContains(t, p.body, `id="dns-record"`)
		assert.NotContains(t, p.body, "<script")
		p = b.get(list)
		assert.Contains(t, p.body, `<td data-label="State">Verified</td>`)

		p = b.get(page + "/delete")
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, "also deletes every link of the organization on it")
		p = b.post(page+"/delete", url.Values{})
		assert.Equal(t, http.StatusBadRequest, p.status, "no confirmation")
		assert.Equal(t, 2, h.count(t, "domains", h.org.ID))
		p = b.post(page+"/delete", url.Values{"confirm": {"yes"}})
		require.Equal(t, http.StatusSeeOther, p.status)
		assert.Equal(t, list+"?done=deleted", p.location())
		assert.Equal(t, 1, h.count(t, "domains", h.org.ID))
		assert.Equal(t, http.StatusNotFound, b.get(page).status)
	})
}

func TestDashboardDomainSuspension(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAppsDash(t, s)
		h.growth(t)
		admin := h.member(t, auth.RoleAdmin)
		b := h.signedIn(t, admin, "198.51.100.81")
		live := h.liveDomainOf(t, "go.acme.example")
		pending, err := h.domains.Create(t.Context(), orgPrincipal(h.org), linking.CreateDomainInput{Domain: apitype.Some("wait.acme.example")})
		require.NoError(t, err)
		list := domainsPath(h.org.ID)

		_, err = h.orgs.SetPlan(t.Context(), h.org.ID, org.PlanFree)
		require.NoError(t, err)
		p := b.get(list)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="domain-plan">The Free plan has no custom domains.`)
		assert.NotContains(t, p.body, `id="add-domain"`, "no form that the plan would refuse")
		assert.Contains(t, p.body, `<td data-label="State">Suspended</td><td data-label="Links">Its links answer 404: the plan has no custom domains.</td>`)
		p = b.post(list, url.Values{"domain": {"more.acme.example"}})
		assert.Equal(t, http.StatusForbidden, p.status, "PLAN_UPGRADE_REQUIRED")
		assert.Contains(t, p.body, "has no custom domains")
		assert.Equal(t, 2, h.count(t, "domains", h.org.ID))

		var id uuid.UUID
		page, err := h.domains.List(t.Context(), orgPrincipal(h.org), nil, nil)
		require.NoError(t, err)
		for _, d := range page.Data {
			if d.Domain == live {
				id = d.ID
			}
		}
		p = b.get(list + "/" + id.String())
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="domain-state">Suspended<`)
		assert.Contains(t, p.body, `id="suspended-why">The domain is suspended because the organization&#39;s plan, Free, has no custom domains.`)
		assert.Contains(t, p.body, "restores it, verified as before")
		p = b.get(list + "/" + pending.ID.String())
		assert.Contains(t, p.body, "restores it, as it was", "a pending domain comes back pending")
		assert.Contains(t, p.body, `id="verify"`, "and may still be verified")

		_, err = h.orgs.SetPlan(t.Context(), h.org.ID, org.PlanStarter)
		require.NoError(t, err)
		p = b.get(list + "/" + id.String())
		assert.Contains(t, p.body, `id="domain-state">Verified<`, "an upgrade restores it")
		assert.NotContains(t, p.body, `id="suspended-why"`)
	})
}

func TestDashboardDomainsRolesIsolationAndCSRF(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAppsDash(t, s)
		h.growth(t)
		d, err := h.domains.Create(t.Context(), orgPrincipal(h.org), linking.CreateDomainInput{Domain: apitype.Some("links.acme.example")})
		require.NoError(t, err)
		h.dns.SetCNAME("links.acme.example", cnameTarget)
		other := h.newOrg(t, "Beta")
		_, err = h.orgs.SetPlan(t.Context(), other.ID, org.PlanGrowth)
		require.NoError(t, err)
		foreign, err := h.domains.Create(t.Context(), orgPrincipal(other), linking.CreateDomainInput{Domain: apitype.Some("links.beta.example")})
		require.NoError(t, err)
		h.dns.SetCNAME("links.beta.example", cnameTarget)
		list := domainsPath(h.org.ID)
		page := list + "/" + d.ID.String()

		member := h.member(t, auth.RoleMember)
		b := h.signedIn(t, member, "198.51.100.82")
		p := b.get(list)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `<a href="`+list+`" aria-current="page">Domains</a>`, "a member reads the domains")
		assert.NotContains(t, p.body, `id="add-domain"`, "and is offered no form")
		p = b.get(page)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="dns-name"`, "the record is shown")
		assert.NotContains(t, p.body, `id="verify"`)
		assert.NotContains(t, p.body, `id="delete-domain"`)
		assert.Equal(t, http.StatusForbidden, b.get(page+"/delete").status)
		for path, form := range map[string]url.Values{list: {"domain": {"more.acme.example"}}, page + "/verify": {},
			page + "/delete": {"confirm": {"yes"}}} {
			b.get(list)
			assert.Equal(t, http.StatusForbidden, b.post(path, form).status, "POST %s", path)
		}
		assert.False(t, h.storedDomain(t, d.ID).Verified, "not verified by a member")
		assert.Equal(t, 1, h.count(t, "domains", h.org.ID), "nothing added or deleted")

		theirs := list + "/" + foreign.ID.String()
		admin := h.member(t, auth.RoleAdmin)
		ab := h.signedIn(t, admin, "198.51.100.83")
		for _, path := range []string{theirs, theirs + "/delete", list + "/not-an-id"} {
			assert.Equal(t, http.StatusNotFound, ab.get(path).status, "GET %s", path)
		}
		for _, path := range []string{theirs + "/verify", theirs + "/delete"} {
			ab.get(list)
			assert.Equal(t, http.StatusNotFound, ab.post(path, url.Values{"confirm": {"yes"}}).status, "POST %s", path)
		}
		got, err := h.domains.Get(t.Context(), orgPrincipal(other), foreign.ID)
		require.NoError(t, err)
		assert.False(t, got.Verified, "another organization's domain is untouched")
		assert.Equal(t, http.StatusNotFound, ab.get(domainsPath(other.ID)).status)

		for _, path := range []string{list, page + "/verify", page + "/delete"} {
			form := url.Values{"domain": {"csrf.acme.example"}, "confirm": {"yes"}}
			assert.Equal(t, http.StatusForbidden, ab.do(http.MethodPost, path, form, nil).status, "POST %s without a token", path)
		}
		assert.False(t, h.storedDomain(t, d.ID).Verified)
		assert.Equal(t, 1, h.count(t, "domains", h.org.ID))

		ab.get(page)
		p = ab.post(page+"/verify", url.Values{})
		require.Equal(t, http.StatusSeeOther, p.status, "an admin verifies")
		assert.True(t, h.storedDomain(t, d.ID).Verified)
	})
}

func TestDashboardDomainsOnAPlanWithout(t *testing.T) {
	t.Parallel()
	h := newAppsDash(t, storetest.SQLite(t))
	owner := h.member(t, auth.RoleOwner)
	b := h.signedIn(t, owner, "198.51.100.84")
	p := b.get(domainsPath(h.org.ID))
	require.Equal(t, http.StatusOK, p.status)
	assert.Contains(t, p.body, `id="empty">No custom domains. The organization's plan has none`, "the empty state says what to do")
	assert.NotContains(t, p.body, `id="add-domain"`)
}
