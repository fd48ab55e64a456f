package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/internal/dnstest"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// cnameTarget is the harness's --cname-target.
const cnameTarget = "cname." + defaultLinkDomain

// customHarness serves /v1/domains and /v1/links with custom domains live
// for links, a DNS server on loopback for verification, and the link-domain
// handler over the same resolver; organizations' plan changes suspend and
// restore their domains.
type customHarness struct {
	*linkHarness
	dns      *dnstest.Server
	domains  *linking.DomainService
	resolver *linking.Resolver
	site     *httptest.Server
}

func newCustomHarness(t *testing.T, s *store.Store, opts ...option) *customHarness {
	t.Helper()
	ch := &customHarness{linkHarness: &linkHarness{}, dns: dnstest.Start(t)}
	lookup, err := linking.NewDNSLookup(ch.dns.Addr)
	require.NoError(t, err)
	opts = append(opts, withAPI(func(h *harness, o *httpapi.Options) {
		ch.resolver = linking.NewResolver(h.store, linking.ResolverOptions{DefaultLinkDomain: linkDomain, Clock: h.clock.Now})
		h.appListeners = append(h.appListeners, func(uuid.UUID) { ch.resolver.InvalidateAll() })
		ch.domains = linking.NewDomainService(h.store, h.store, linking.DomainServiceOptions{
			Reserved: linking.ReservedDomains{
				DefaultLinkDomain: linkDomain,
				ServiceHosts:      []string{"api.hoplink.test", "localhost", "127.0.0.1"},
				CNAMETarget:       cnameTarget,
			},
			Lookup:        lookup,
			VerifyTimeout: 300 * time.Millisecond,
			Cache:         ch.resolver,
			Clock:         h.clock.Now,
		})
		h.planListener = ch.domains
		ch.links = linking.NewLinkService(h.store, h.store, h.store, linking.LinkServiceOptions{
			DefaultLinkDomain: linkDomain,
			ShortURLBase:      "http://{domain}:8080",
			Clock:             h.clock.Now,
			HashPassword:      func(pw string) (string, error) { return "fast:" + pw, nil },
			Cache:             ch.resolver,
			CustomDomains:     ch.domains,
		})
		o.Links = ch.links
		o.Domains = ch.domains
	}))
	ch.harness = newHarness(t, s, opts...)
	ch.site = httptest.NewServer(httpapi.NewLinkDomain(httpapi.LinkDomainOptions{Resolver: ch.resolver, Clock: ch.clock.Now}))
	t.Cleanup(ch.site.Close)
	return ch
}

// planOrg creates an organization on plan.
func (h *customHarness) planOrg(t testing.TB, name string, plan org.Plan) *testOrg {
	t.Helper()
	o := h.newOrg(t, name)
	h.setPlan(t, o, plan)
	return o
}

func (h *customHarness) setPlan(t testing.TB, o *testOrg, plan org.Plan) {
	t.Helper()
	_, err := h.orgs.SetPlan(context.Background(), o.ID, plan)
	require.NoError(t, err)
}

// domainBody is the Domain resource as a test reads it.
type domainBody struct {
	ID                uuid.UUID  `json:"id"`
	OrgID             uuid.UUID  `json:"org_id"`
	Domain            string     `json:"domain"`
	Verified          bool       `json:"verified"`
	SSLStatus         string     `json:"ssl_status"`
	VerificationToken string     `json:"verification_token"`
	VerifiedAt        *time.Time `json:"verified_at"`
	SuspendedAt       *time.Time `json:"suspended_at"`
	CreatedAt         time.Time  `json:"created_at"`
	UpdatedAt         time.Time  `json:"updated_at"`
}

func (r *response) domain(t testing.TB) domainBody {
	t.Helper()
	var d domainBody
	r.decode(t, &d)
	return d
}

func domainPath(id uuid.UUID) string { return "/v1/domains/" + id.String() }

// addDomain creates name through the API and requires 201.
func (h *customHarness) addDomain(t testing.TB, key, name string) domainBody {
	t.Helper()
	resp := h.post(t, key, "/v1/domains", bodyJSON(t, map[string]string{"domain": name}))
	require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
	return resp.domain(t)
}

// liveDomain adds name, points its CNAME at the target and verifies it.
func (h *customHarness) liveDomain(t testing.TB, key, name string) domainBody {
	t.Helper()
	return h.verifyDomain(t, key, h.addDomain(t, key, name))
}

// verifyDomain points d's CNAME at the target and verifies it.
func (h *customHarness) verifyDomain(t testing.TB, key string, d domainBody) domainBody {
	t.Helper()
	h.dns.SetCNAME(d.Domain, cnameTarget)
	resp := h.post(t, key, domainPath(d.ID)+"/verify", "")
	require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
	var v struct {
		Verified bool       `json:"verified"`
		Domain   domainBody `json:"domain"`
	}
	resp.decode(t, &v)
	require.True(t, v.Verified, "body: %s", resp.body)
	return v.Domain
}

func TestCreateDomain(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newCustomHarness(t, s)

		t.Run("201: unverified, ssl pending, a token, every field", func(t *testing.T) {
			o := h.planOrg(t, "Acme", org.PlanStarter)
			resp := h.post(t, o.key.raw, "/v1/domains", `{"domain":"Links.Acme.com."}`)
			require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
			assert.ElementsMatch(t, []string{"id", "org_id", "domain", "verified", "ssl_status", "verification_token",
				"verified_at", "suspended_at", "created_at", "updated_at"}, keysOf(resp.object(t)))
			d := resp.domain(t)
			assert.Equal(t, o.ID, d.OrgID)
			assert.Equal(t, "links.acme.com", d.Domain, "lowercase, no trailing dot")
			assert.False(t, d.Verified)
			assert.Equal(t, "pending", d.SSLStatus)
			assert.Regexp(t, `^hoplink-verify-[0-9a-f]{32}$`, d.VerificationToken)
			assert.Nil(t, d.VerifiedAt)
			assert.Nil(t, d.SuspendedAt)
			assert.True(t, h.clock.Now().Equal(d.CreatedAt))
			assert.Equal(t, d.CreatedAt, d.UpdatedAt)

			got := h.get(t, o.key.raw, domainPath(d.ID))
			require.Equal(t, http.StatusOK, got.status)
			assert.JSONEq(t, string(resp.body), string(got.body), "read back as created")
		})

		t.Run("a Unicode name is stored in punycode", func(t *testing.T) {
			o := h.planOrg(t, "Bücher", org.PlanStarter)
			d := h.addDomain(t, o.key.raw, "links.bücher.example")
			assert.Equal(t, "links.xn--bcher-kva.example", d.Domain)
		})

		t.Run("400: missing, null, not a string, unknown field, a query", func(t *testing.T) {
			o := h.planOrg(t, "Bad bodies", org.PlanScale)
			for _, tt := range []struct{ name, path, body, field string }{
				{"missing", "/v1/domains", `{}`, "domain"},
				{"null", "/v1/domains", `{"domain":null}`, "domain"},
				{"a number", "/v1/domains", `{"domain":42}`, "domain"},
				{"an unknown field", "/v1/domains", `{"domain":"a.example.com","verified":true}`, "verified"},
				{"a query parameter", "/v1/domains?x=1", `{"domain":"a.example.com"}`, "x"},
			} {
				t.Run(tt.name, func(t *testing.T) {
					resp := h.do(t, request{method: http.MethodPost, path: tt.path, key: o.key.raw, body: tt.body, off: true})
					e := assertError(t, resp, http.StatusBadRequest, errcode.ValidationError)
					assertFields(t, e, tt.field)
				})
			}
			assert.Zero(t, h.count(t, "domains", o.ID))
		})

		t.Run("422 INVALID_DOMAIN with details.domain", func(t *testing.T) {
			o := h.planOrg(t, "Invalid names", org.PlanScale)
			for _, name := range []string{
				"a.b", strings.Repeat("a", 250) + ".com", "example", "192.0.2.1", "2001:db8::1", "[::1]",
				"localhost", "shop.localhost", linkDomain, "acme." + linkDomain, "api.hoplink.test", cnameTarget,
				"under_score.example.com", "-a.example.com", "a..example.com", "example.com:443", "https://example.com",
				"links.123",
			} {
				resp := h.post(t, o.key.raw, "/v1/domains", bodyJSON(t, map[string]string{"domain": name}))
				assertError(t, resp, http.StatusUnprocessableEntity, errcode.InvalidDomain)
				assert.Equal(t, name, details(t, resp)["domain"], "details.domain for %q", name)
			}
			assert.Zero(t, h.count(t, "domains", o.ID))
		})

		t.Run("403 PLAN_UPGRADE_REQUIRED on the Free plan, after the name check", func(t *testing.T) {
			o := h.newOrg(t, "Free")
			resp := h.post(t, o.key.raw, "/v1/domains", `{"domain":"links.free.example"}`)
			assertError(t, resp, http.StatusForbidden, errcode.PlanUpgradeRequired)
			resp = h.post(t, o.key.raw, "/v1/domains", `{"domain":"127.0.0.1"}`)
			assertError(t, resp, http.StatusUnprocessableEntity, errcode.InvalidDomain)
		})

		t.Run("403 DOMAIN_LIMIT_EXCEEDED past the plan's number", func(t *testing.T) {
			o := h.planOrg(t, "Starter", org.PlanStarter)
			h.addDomain(t, o.key.raw, "one.starter.example")
			resp := h.post(t, o.key.raw, "/v1/domains", `{"domain":"two.starter.example"}`)
			assertError(t, resp, http.StatusForbidden, errcode.DomainLimitExceeded)
			h.setPlan(t, o, org.PlanGrowth)
			h.addDomain(t, o.key.raw, "two.starter.example")
			assert.Equal(t, 2, h.count(t, "domains", o.ID))
		})

		t.Run("409 DUPLICATE_DOMAIN, whatever the case sent", func(t *testing.T) {
			o := h.planOrg(t, "Dup", org.PlanScale)
			h.addDomain(t, o.key.raw, "dup.example.com")
			resp := h.post(t, o.key.raw, "/v1/domains", `{"domain":"DUP.example.com"}`)
			assertError(t, resp, http.StatusConflict, errcode.DuplicateDomain)
			assert.Equal(t, "dup.example.com", details(t, resp)["domain"])
		})

		t.Run("409 DOMAIN_CLAIMED when another organization has it verified; unverified it is free", func(t *testing.T) {
			a := h.planOrg(t, "Claimer", org.PlanScale)
			b := h.planOrg(t, "Latecomer", org.PlanScale)
			h.addDomain(t, a.key.raw, "pending.shared.example")
			h.addDomain(t, b.key.raw, "pending.shared.example")
			h.liveDomain(t, a.key.raw, "claimed.shared.example")
			resp := h.post(t, b.key.raw, "/v1/domains", `{"domain":"claimed.shared.example"}`)
			assertError(t, resp, http.StatusConflict, errcode.DomainClaimed)
		})

		t.Run("scopes and roles", func(t *testing.T) {
			o := h.planOrg(t, "Scopes", org.PlanScale)
			read := h.scopedKey(t, o, auth.ScopeDomainsRead)
			resp := h.post(t, read.raw, "/v1/domains", `{"domain":"x.scopes.example"}`)
			assertError(t, resp, http.StatusForbidden, errcode.Forbidden)
			member := h.memberKey(t, h.newMember(t, o, auth.RoleMember), auth.ScopeDomainsRead)
			resp = h.post(t, member.raw, "/v1/domains", `{"domain":"x.scopes.example"}`)
			assertError(t, resp, http.StatusForbidden, errcode.Forbidden)
			admin := h.memberKey(t, h.newMember(t, o, auth.RoleAdmin), auth.ScopeDomainsWrite)
			h.addDomain(t, admin.raw, "x.scopes.example")
			resp = h.post(t, "", "/v1/domains", `{"domain":"y.scopes.example"}`)
			assertError(t, resp, http.StatusUnauthorized, errcode.Unauthorized)
		})
	})
}

func TestListGetAndDeleteDomains(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newCustomHarness(t, s)
		o := h.planOrg(t, "Acme", org.PlanScale)
		other := h.planOrg(t, "Other", org.PlanScale)
		var ids []uuid.UUID
		for _, n := range []string{"c.acme.example", "a.acme.example", "b.acme.example"} {
			ids = append(ids, h.addDomain(t, o.key.raw, n).ID)
			h.clock.Advance(time.Second)
		}
		theirs := h.addDomain(t, other.key.raw, "theirs.example")

		t.Run("a page, oldest first, with pagination", func(t *testing.T) {
			resp := h.get(t, o.key.raw, "/v1/domains?limit=2")
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			var page struct {
				Data       []domainBody       `json:"data"`
				Pagination apitype.Pagination `json:"pagination"`
			}
			resp.decode(t, &page)
			require.Len(t, page.Data, 2)
			assert.Equal(t, ids[0], page.Data[0].ID)
			assert.Equal(t, ids[1], page.Data[1].ID)
			assert.Equal(t, apitype.Pagination{Total: 3, Limit: 2, Offset: 0, HasMore: true}, page.Pagination)
			resp = h.get(t, o.key.raw, "/v1/domains?limit=2&offset=2")
			resp.decode(t, &page)
			require.Len(t, page.Data, 1)
			assert.Equal(t, ids[2], page.Data[0].ID)
			assert.False(t, page.Pagination.HasMore)
		})
		t.Run("defaults: 20 from 0", func(t *testing.T) {
			resp := h.get(t, o.key.raw, "/v1/domains")
			assert.Equal(t, float64(20), resp.object(t)["pagination"].(map[string]any)["limit"])
		})
		t.Run("400 for bad and unknown query parameters", func(t *testing.T) {
			for path, field := range map[string]string{
				"/v1/domains?limit=0": "limit", "/v1/domains?limit=101": "limit", "/v1/domains?offset=-1": "offset",
				"/v1/domains?limit=x": "limit", "/v1/domains?status=all": "status", "/v1/domains?limit=1&limit=2": "limit",
			} {
				resp := h.do(t, request{method: http.MethodGet, path: path, key: o.key.raw, off: true})
				e := assertError(t, resp, http.StatusBadRequest, errcode.ValidationError)
				assertFields(t, e, field)
			}
		})
		t.Run("another organization's domain is 404; a bad id 400", func(t *testing.T) {
			assertError(t, h.get(t, o.key.raw, domainPath(theirs.ID)), http.StatusNotFound, errcode.NotFound)
			assertError(t, h.delete(t, o.key.raw, domainPath(theirs.ID)), http.StatusNotFound, errcode.NotFound)
			assertError(t, h.post(t, o.key.raw, domainPath(theirs.ID)+"/verify", ""), http.StatusNotFound, errcode.NotFound)
			assertError(t, h.do(t, request{method: http.MethodGet, path: "/v1/domains/nope", key: o.key.raw, off: true}),
				http.StatusBadRequest, errcode.InvalidID)
			assertError(t, h.do(t, request{method: http.MethodDelete, path: "/v1/domains/nope", key: o.key.raw, off: true}),
				http.StatusBadRequest, errcode.InvalidID)
			assertError(t, h.do(t, request{method: http.MethodPost, path: "/v1/domains/nope/verify", key: o.key.raw, off: true}),
				http.StatusBadRequest, errcode.InvalidID)
		})
		t.Run("reading needs domains:read, which every role has", func(t *testing.T) {
			links := h.scopedKey(t, o, auth.ScopeLinksRead)
			assertError(t, h.get(t, links.raw, "/v1/domains"), http.StatusForbidden, errcode.Forbidden)
			assertError(t, h.get(t, links.raw, domainPath(ids[0])), http.StatusForbidden, errcode.Forbidden)
			member := h.memberKey(t, h.newMember(t, o, auth.RoleMember), auth.ScopeDomainsRead)
			assert.Equal(t, http.StatusOK, h.get(t, member.raw, domainPath(ids[0])).status)
			assertError(t, h.delete(t, member.raw, domainPath(ids[0])), http.StatusForbidden, errcode.Forbidden)
			assertError(t, h.post(t, member.raw, domainPath(ids[0])+"/verify", ""), http.StatusForbidden, errcode.Forbidden)
		})
		t.Run("SDK keys are refused on every domain route; a wrong method is 405", func(t *testing.T) {
			sdk := h.sdkKey(t, o)
			for _, req := range []request{
				{method: http.MethodPost, path: "/v1/domains", body: `{"domain":"sdk.acme.example"}`},
				{method: http.MethodGet, path: "/v1/domains"},
				{method: http.MethodGet, path: domainPath(ids[0])},
				{method: http.MethodDelete, path: domainPath(ids[0])},
				{method: http.MethodPost, path: domainPath(ids[0]) + "/verify"},
			} {
				req.key = sdk.raw
				assertError(t, h.do(t, req), http.StatusForbidden, errcode.SDKKeyRouteForbidden)
			}
			resp := h.do(t, request{method: http.MethodPut, path: domainPath(ids[0]), key: o.key.raw, off: true})
			assertError(t, resp, http.StatusMethodNotAllowed, errcode.MethodNotAllowed)
			assert.Equal(t, 3, h.count(t, "domains", o.ID))
		})
		t.Run("DELETE returns the domain as it was; then 404", func(t *testing.T) {
			before := h.get(t, o.key.raw, domainPath(ids[2]))
			resp := h.delete(t, o.key.raw, domainPath(ids[2]))
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.JSONEq(t, string(before.body), string(resp.body))
			assertError(t, h.get(t, o.key.raw, domainPath(ids[2])), http.StatusNotFound, errcode.NotFound)
			assertError(t, h.delete(t, o.key.raw, domainPath(ids[2])), http.StatusNotFound, errcode.NotFound)
		})
	})
}

// verification is the body of POST /domains/{id}/verify.
type verification struct {
	Verified bool       `json:"verified"`
	Domain   domainBody `json:"domain"`
	DNS      *struct {
		ExpectedCNAME string  `json:"expected_cname"`
		CurrentCNAME  *string `json:"current_cname"`
		Message       string  `json:"message"`
	} `json:"dns"`
}

func TestVerifyDomain(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newCustomHarness(t, s)
		o := h.planOrg(t, "Acme", org.PlanScale)
		verify := func(t *testing.T, id uuid.UUID) verification {
			t.Helper()
			resp := h.post(t, o.key.raw, domainPath(id)+"/verify", "")
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			var v verification
			resp.decode(t, &v)
			return v
		}

		t.Run("no CNAME: not verified, current_cname null", func(t *testing.T) {
			d := h.addDomain(t, o.key.raw, "missing.acme.example")
			v := verify(t, d.ID)
			assert.False(t, v.Verified)
			require.NotNil(t, v.DNS)
			assert.Equal(t, cnameTarget, v.DNS.ExpectedCNAME)
			assert.Nil(t, v.DNS.CurrentCNAME)
			assert.Contains(t, v.DNS.Message, cnameTarget)
			assert.Equal(t, d, v.Domain, "the domain is unchanged")

			h.dns.SetNoCNAME("missing.acme.example")
			v = verify(t, d.ID)
			assert.False(t, v.Verified, "a name with other records but no CNAME")
			assert.Nil(t, v.DNS.CurrentCNAME)
		})
		t.Run("a CNAME elsewhere: not verified, current_cname says where", func(t *testing.T) {
			d := h.addDomain(t, o.key.raw, "wrong.acme.example")
			h.dns.SetCNAME("wrong.acme.example", "old-provider.example.net")
			v := verify(t, d.ID)
			assert.False(t, v.Verified)
			require.NotNil(t, v.DNS)
			require.NotNil(t, v.DNS.CurrentCNAME)
			assert.Equal(t, "old-provider.example.net", *v.DNS.CurrentCNAME)
			assert.Contains(t, v.DNS.Message, "old-provider.example.net")
			assert.False(t, v.Domain.Verified)
		})
		t.Run("a DNS server that does not answer: not verified, a message, no error", func(t *testing.T) {
			d := h.addDomain(t, o.key.raw, "slow.acme.example")
			h.dns.Drop("slow.acme.example")
			v := verify(t, d.ID)
			assert.False(t, v.Verified)
			require.NotNil(t, v.DNS)
			assert.Nil(t, v.DNS.CurrentCNAME)
			assert.Contains(t, v.DNS.Message, "timed out")
		})
		t.Run("the right CNAME, in any case and with the root dot: verified", func(t *testing.T) {
			d := h.addDomain(t, o.key.raw, "right.acme.example")
			h.dns.SetCNAME("right.acme.example", strings.ToUpper(cnameTarget)+".")
			h.clock.Advance(time.Minute)
			v := verify(t, d.ID)
			assert.True(t, v.Verified)
			assert.Nil(t, v.DNS, "no dns object once verified")
			assert.True(t, v.Domain.Verified)
			assert.Equal(t, "active", v.Domain.SSLStatus)
			require.NotNil(t, v.Domain.VerifiedAt)
			assert.True(t, h.clock.Now().Equal(*v.Domain.VerifiedAt))
			assert.Equal(t, *v.Domain.VerifiedAt, v.Domain.UpdatedAt)
			got := h.get(t, o.key.raw, domainPath(d.ID)).domain(t)
			assert.Equal(t, v.Domain, got)

			t.Run("verifying again answers without a lookup", func(t *testing.T) {
				n := h.dns.Queries()
				h.dns.SetCNAME("right.acme.example", "elsewhere.example.net")
				again := verify(t, d.ID)
				assert.True(t, again.Verified)
				assert.Equal(t, v.Domain, again.Domain)
				assert.Equal(t, n, h.dns.Queries())
			})
		})
		t.Run("409 DOMAIN_CLAIMED when another organization verified the name first", func(t *testing.T) {
			b := h.planOrg(t, "Beta", org.PlanScale)
			mine := h.addDomain(t, o.key.raw, "contested.example")
			h.liveDomain(t, b.key.raw, "contested.example")
			resp := h.post(t, o.key.raw, domainPath(mine.ID)+"/verify", "")
			assertError(t, resp, http.StatusConflict, errcode.DomainClaimed)
			assert.False(t, h.get(t, o.key.raw, domainPath(mine.ID)).domain(t).Verified)
		})
	})
}

func TestLinksOnCustomDomains(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newCustomHarness(t, s)
		o, app := h.linkOrg(t, "Acme")
		h.setPlan(t, o, org.PlanStarter)
		pending := h.addDomain(t, o.key.raw, "pending.acme.example")
		h.setPlan(t, o, org.PlanGrowth)
		live := h.liveDomain(t, o.key.raw, "go.acme.example")
		key := o.key.raw
		visit := func(t *testing.T, host, path string) *response {
			t.Helper()
			r, err := http.NewRequest(http.MethodGet, h.site.URL+path, nil)
			require.NoError(t, err)
			r.Host = host
			r.Header.Set("Accept", "application/json")
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := client.Do(r)
			require.NoError(t, err)
			defer resp.Body.Close()
			return &response{status: resp.StatusCode, header: resp.Header}
		}

		t.Run("a link may be created on a live custom domain, with or without an app", func(t *testing.T) {
			l := h.create(t, key, `{"destination_url":"https://acme.example/spring","slug":"spring","domain":"GO.acme.example"}`)
			assert.Equal(t, live.Domain, l.Domain)
			assert.Equal(t, "http://go.acme.example:8080/spring", l.ShortURL)
			l = h.create(t, key, `{"destination_url":"https://acme.example/app","slug":"with-app","domain":"go.acme.example","app_id":"`+app.ID.String()+`"}`)
			assert.Equal(t, live.Domain, l.Domain)
		})
		t.Run("422 INVALID_DOMAIN on an unverified domain, with the live ones allowed", func(t *testing.T) {
			resp := h.post(t, key, "/v1/links", `{"destination_url":"https://acme.example/","domain":"`+pending.Domain+`"}`)
			assertError(t, resp, http.StatusUnprocessableEntity, errcode.InvalidDomain)
			assert.Contains(t, details(t, resp)["allowed_link_domains"], live.Domain)
		})
		t.Run("the link redirects on its custom domain", func(t *testing.T) {
			resp := visit(t, live.Domain, "/spring")
			require.Equal(t, http.StatusFound, resp.status)
			assert.Equal(t, "https://acme.example/spring", resp.header.Get("Location"))
			assert.Equal(t, http.StatusNotFound, visit(t, linkDomain, "/spring").status, "not on the default link domain")
		})
		t.Run("a plan without custom domains suspends them: links 404, no new links; moving back restores them", func(t *testing.T) {
			h.setPlan(t, o, org.PlanFree)
			assert.Equal(t, http.StatusNotFound, visit(t, live.Domain, "/spring").status)
			d := h.get(t, key, domainPath(live.ID)).domain(t)
			require.NotNil(t, d.SuspendedAt)
			assert.True(t, d.Verified)
			resp := h.post(t, key, "/v1/links", `{"destination_url":"https://acme.example/","domain":"go.acme.example"}`)
			assertError(t, resp, http.StatusUnprocessableEntity, errcode.InvalidDomain)
			assertError(t, h.get(t, "", "/v1/internal/tls/ask?domain="+live.Domain), http.StatusNotFound, errcode.NotFound)

			h.setPlan(t, o, org.PlanStarter)
			assert.Equal(t, http.StatusFound, visit(t, live.Domain, "/spring").status)
			d = h.get(t, key, domainPath(live.ID)).domain(t)
			assert.Nil(t, d.SuspendedAt)
			h.create(t, key, `{"destination_url":"https://acme.example/back","slug":"back","domain":"go.acme.example"}`)
		})
		t.Run("deleting the domain makes its links 404 at once", func(t *testing.T) {
			require.Equal(t, http.StatusFound, visit(t, live.Domain, "/back").status)
			resp := h.delete(t, key, domainPath(live.ID))
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Equal(t, http.StatusNotFound, visit(t, live.Domain, "/back").status)
			assert.Equal(t, http.StatusNotFound, visit(t, live.Domain, "/spring").status)
		})
	})
}

func TestAssociationFilesOnACustomDefaultDomain(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newCustomHarness(t, s)
		o := h.planOrg(t, "Acme", org.PlanGrowth)
		app := h.newLinkApp(t, o.ID, func(a *linking.App) {
			a.IOSBundleID, a.IOSTeamID = ptrTo("com.acme.shop"), ptrTo("ABCDE12345")
			a.AndroidPackageName, a.AndroidSHA256Fingerprints = ptrTo("com.acme.shop"), []string{testFingerprint}
		})
		d := h.addDomain(t, o.key.raw, "app.acme.example")
		_, err := s.DB().NewUpdate().Table("apps").Set("default_link_domain = ?", d.Domain).Where("id = ?", app.ID).Exec(context.Background())
		require.NoError(t, err)
		h.resolver.InvalidateAll()
		get := func(t *testing.T, path string) int {
			t.Helper()
			r, err := http.NewRequest(http.MethodGet, h.site.URL+path, nil)
			require.NoError(t, err)
			r.Host = d.Domain
			resp, err := http.DefaultClient.Do(r)
			require.NoError(t, err)
			resp.Body.Close()
			return resp.StatusCode
		}

		assert.Equal(t, http.StatusNotFound, get(t, httpapi.AASAPath), "not yet verified")
		h.verifyDomain(t, o.key.raw, d)
		assert.Equal(t, http.StatusOK, get(t, httpapi.AASAPath), "verified")
		assert.Equal(t, http.StatusOK, get(t, httpapi.AssetLinksPath))
		h.setPlan(t, o, org.PlanFree)
		assert.Equal(t, http.StatusNotFound, get(t, httpapi.AASAPath), "suspended")
		assert.Equal(t, http.StatusNotFound, get(t, httpapi.AssetLinksPath))
		h.setPlan(t, o, org.PlanScale)
		assert.Equal(t, http.StatusOK, get(t, httpapi.AssetLinksPath), "restored")
	})
}

func ptrTo[T any](v T) *T { return &v }

func TestTLSAsk(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newCustomHarness(t, s)
		o, _ := h.linkOrg(t, "Acme")
		h.setPlan(t, o, org.PlanGrowth)
		live := h.liveDomain(t, o.key.raw, "live.acme.example")
		pending := h.addDomain(t, o.key.raw, "pending.acme.example")

		t.Run("200 for a verified, live custom domain, in any case, without a key", func(t *testing.T) {
			for _, name := range []string{live.Domain, "LIVE.acme.example", live.Domain + "."} {
				resp := h.get(t, "", "/v1/internal/tls/ask?domain="+name)
				require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
				assert.JSONEq(t, `{"domain":"live.acme.example"}`, string(resp.body))
				assert.NotEmpty(t, resp.header.Get("X-RateLimit-Limit"), "limited per IP")
			}
		})
		t.Run("404 for anything else", func(t *testing.T) {
			for _, name := range []string{pending.Domain, "unknown.example", linkDomain, "x." + linkDomain, "localhost", ""} {
				resp := h.get(t, "", "/v1/internal/tls/ask?domain="+name)
				assertError(t, resp, http.StatusNotFound, errcode.NotFound)
			}
		})
		t.Run("400 without domain or with other parameters", func(t *testing.T) {
			resp := h.do(t, request{method: http.MethodGet, path: "/v1/internal/tls/ask", off: true})
			e := assertError(t, resp, http.StatusBadRequest, errcode.ValidationError)
			assertFields(t, e, "domain")
			resp = h.do(t, request{method: http.MethodGet, path: "/v1/internal/tls/ask?domain=a.example&x=1", off: true})
			e = assertError(t, resp, http.StatusBadRequest, errcode.ValidationError)
			assertFields(t, e, "x")
		})
	})
}

func TestTLSAskIsLimitedPerIP(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	c := testkit.NewClock(start)
	h := newCustomHarness(t, s, withClock(c), withLimiter(ratelimit.NewMemory(ratelimit.MemoryOptions{Clock: c.Now})))
	ask := func(ip string) *response {
		return h.do(t, request{method: http.MethodGet, path: "/v1/internal/tls/ask?domain=a.example",
			headers: map[string]string{"X-Forwarded-For": ip}})
	}
	for i := 0; i < ratelimit.AnonymousRule.Limit; i++ {
		require.Equal(t, http.StatusNotFound, ask("192.0.2.7").status)
	}
	resp := ask("192.0.2.7")
	assertError(t, resp, http.StatusTooManyRequests, errcode.RateLimitExceeded)
	assert.NotEmpty(t, resp.header.Get("Retry-After"))
	assert.Equal(t, http.StatusNotFound, ask("192.0.2.8").status, "another client has its own allowance")
}
