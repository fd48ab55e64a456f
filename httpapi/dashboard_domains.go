package httpapi

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/web"
)

// The dashboard's custom-domain pages, under /dashboard/o/{org_id}/domains:
//
//   - GET  /domains               the list and the add form; POST /domains adds
//   - GET  /domains/{id}          the domain: its state, the DNS record to
//     create, why it is suspended
//   - POST /domains/{id}/verify   verifies it now: the domain's page with the
//     answer explained, or the verified domain
//   - GET  /domains/{id}/delete   the confirmation; POST with confirm=yes deletes
//
// They call linking.DomainService as /v1/domains does, with the member's
// principal; like /v1/domains they record nothing in the audit log.
func (d *dashboard) domainRoutes(root routes) {
	if d.a.opts.Domains == nil {
		return
	}
	const base = "/dashboard/o/:org/domains"
	root.handle(http.MethodGet, base, d.orgPage(d.domainList))
	root.handle(http.MethodPost, base, d.orgPage(d.addDomain))
	root.handle(http.MethodGet, base+"/:id", d.orgPage(d.domainPage))
	root.handle(http.MethodPost, base+"/:id/verify", d.orgPage(d.verifyDashDomain))
	root.handle(http.MethodGet, base+"/:id/delete", d.orgPage(d.confirmDeleteDomain))
	root.handle(http.MethodPost, base+"/:id/delete", d.orgPage(d.deleteDashDomain))
}

// hasDomains reports whether c's member is offered the domain pages.
func (d *dashboard) hasDomains(c *dashCtx) bool {
	if d.a.opts.Domains == nil {
		return false
	}
	return c.may(auth.ScopeDomainsRead, auth.ActDomainsRead)
}

// canWriteDomains reports whether c's member may add, verify and delete
// domains (owners and admins).
func canWriteDomains(c *dashCtx) bool {
	return c.may(auth.ScopeDomainsWrite, auth.ActDomainsWrite)
}

// domainPath is the page of domain id.
func (c *dashCtx) domainPath(id uuid.UUID) string { return c.base + "/domains/" + id.String() }

// domainListPageSize is the domain list's page size.
const domainListPageSize = 20

// domainNotice is the confirmation of an action that redirected to a
// domain page (its done parameter); "" for any other value.
func domainNotice(done string) string {
	switch done {
	case "added":
		return "The domain was added. Create its DNS record below, then verify it."
	case "verified":
		return "The domain is verified: links may use it now."
	case "deleted":
		return "The domain was deleted, with the organization's links on it."
	}
	return ""
}

// domainState names d's state and says what it means for its links.
func domainState(d *linking.Domain) (state, note string) {
	switch {
	case d.SuspendedAt != nil:
		return "Suspended", "Its links answer 404: the plan has no custom domains."
	case d.Verified:
		return "Verified", "Its links are served."
	}
	return "Pending verification", "Not served until its DNS record is verified."
}

// domainList answers GET /domains.
func (d *dashboard) domainList(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	q := req.URL.Query()
	var add *web.DomainForm
	if canWriteDomains(c) {
		add = &web.DomainForm{}
	}
	page, ok := listPageParam(q.Get("page"))
	if !ok {
		return d.showDomains(w, req.Request, c, add, 1, http.StatusBadRequest,
			"The page must be a number from 1 to "+strconv.Itoa(maxLinkListPage)+".", "")
	}
	return d.showDomains(w, req.Request, c, add, page, http.StatusOK, "", domainNotice(q.Get("done")))
}

// showDomains writes page page of the domain list with add form add (nil
// when the role may not add), msg on top.
func (d *dashboard) showDomains(w http.ResponseWriter, r *http.Request, c *dashCtx, add *web.DomainForm, page, status int, msg, notice string) error {
	list := &web.DomainList{}
	v := web.DashboardView{Frame: web.Frame{Title: "Custom domains", Error: msg, Notice: notice}, Nav: c.nav("Domains"), Domains: list}
	if add != nil {
		add.Action = c.base + "/domains"
		list.Add = add
	}
	if o := d.readableOrg(r, c); o != nil {
		allowed := org.LimitsOf(o.Plan).CustomDomains
		if allowed == 0 {
			list.NoPlan, list.Add = true, nil
			list.Plan = "The " + planTitle(o.Plan) + " plan has no custom domains."
		} else {
			list.Plan = "The " + planTitle(o.Plan) + " plan allows " + nounCount(allowed, "custom domain", "custom domains") + "."
		}
	}
	limit, offset := domainListPageSize, (page-1)*domainListPageSize
	res, err := d.a.opts.Domains.List(r.Context(), c.p, &limit, &offset)
	if err != nil {
		return d.serviceErrorPage(w, r, c, err, c.base+"/links", "Back to the links")
	}
	for _, dm := range res.Data {
		state, note := domainState(dm)
		list.Rows = append(list.Rows, web.DomainRow{Path: c.domainPath(dm.ID), Name: dm.Domain, State: state, Note: note})
	}
	list.Total = res.Pagination.Total
	if len(list.Rows) > 0 {
		list.From, list.To = offset+1, offset+len(list.Rows)
	}
	path := c.base + "/domains"
	if page > 1 {
		list.Prev = pageOfList(path, url.Values{}, page-1)
	}
	if res.Pagination.HasMore && page < maxLinkListPage {
		list.Next = pageOfList(path, url.Values{}, page+1)
	}
	if list.Plan != "" && !list.NoPlan {
		list.Plan = strings.TrimSuffix(list.Plan, ".") + "; the organization has " + strconv.Itoa(list.Total) + "."
	}
	return d.render(w, r, c, status, web.PageDashboardDomains, v)
}

// addDomain answers POST /domains: domain. A refusal (a name the rules
// refuse, a duplicate, the plan's limit) is the list with the form as
// typed and the service's message under the field.
func (d *dashboard) addDomain(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	if !canWriteDomains(c) {
		return d.message(w, r, c, http.StatusForbidden, "Not allowed", "Only an owner or an admin may add domains.", c.base+"/domains", "Back to the domains")
	}
	f := &web.DomainForm{Domain: r.PostForm.Get("domain")}
	name := strings.TrimSpace(f.Domain)
	if name == "" {
		f.Error = "Type the domain to add, such as links.example.com."
		return d.showDomains(w, r, c, f, 1, http.StatusBadRequest, "", "")
	}
	dm, err := d.a.opts.Domains.Create(r.Context(), c.p, linking.CreateDomainInput{Domain: apitype.Some(name)})
	if err != nil {
		status, msg, ok := dashboardError(err)
		if !ok {
			return err
		}
		if errcode.CodeOf(err) == errcode.Forbidden {
			return d.serviceErrorPage(w, r, c, err, c.base+"/domains", "Back to the domains")
		}
		f.Error = msg
		return d.showDomains(w, r, c, f, 1, status, "", "")
	}
	seeOther(w, c.domainPath(dm.ID)+"?done=added")
	return nil
}

// domainNotFound writes the 404 page of a domain that is not the
// organization's.
func (d *dashboard) domainNotFound(w http.ResponseWriter, r *http.Request, c *dashCtx) error {
	return d.message(w, r, c, http.StatusNotFound, "Not found", "There is no such domain in this organization.", c.base+"/domains", "Back to the domains")
}

// dashDomain reads domain id of the path for c's member, writing the 404
// page when it is not a domain of the organization (and returning nil).
func (d *dashboard) dashDomain(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) (*linking.Domain, error) {
	id, err := uuid.Parse(req.Param("id"))
	if err != nil {
		return nil, d.domainNotFound(w, req.Request, c)
	}
	dm, err := d.a.opts.Domains.Get(req.Context(), c.p, id)
	if errcode.CodeOf(err) == errcode.NotFound {
		return nil, d.domainNotFound(w, req.Request, c)
	}
	if err != nil {
		return nil, d.serviceErrorPage(w, req.Request, c, err, c.base+"/domains", "Back to the domains")
	}
	return dm, nil
}

// domainPage answers GET /domains/{id}.
func (d *dashboard) domainPage(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	dm, err := d.dashDomain(w, req, c)
	if dm == nil || err != nil {
		return err
	}
	v := d.domainView(req.Request, c, dm, nil)
	v.Notice = domainNotice(req.URL.Query().Get("done"))
	return d.render(w, req.Request, c, http.StatusOK, web.PageDashboardDomain, v)
}

// domainView is the view of dm's page, with the answer of a verification
// that did not verify it when check is not nil.
func (d *dashboard) domainView(r *http.Request, c *dashCtx, dm *linking.Domain, check *linking.DNSCheck) web.DashboardView {
	state, _ := domainState(dm)
	view := &web.DomainView{Name: dm.Domain, State: state, Verified: dm.Verified, Suspended: dm.SuspendedAt != nil,
		Created: dm.CreatedAt.UTC().Format(dashDate), ListPath: c.base + "/domains",
		Record: web.DNSRecord{Type: "CNAME", Name: dm.Domain, Value: d.a.opts.Domains.CNAMETarget()}}
	if u := linking.CustomDomainUnicode(dm.Domain); u != dm.Domain {
		view.Unicode = u
	}
	if dm.VerifiedAt != nil {
		view.VerifiedAt = dm.VerifiedAt.UTC().Format(dashDate)
	}
	view.Certificate = "Not until the domain is verified."
	if dm.Verified {
		view.Certificate = "May be obtained: the TLS question (GET /v1/internal/tls/ask) answers yes while the domain is live."
	}
	if dm.SuspendedAt != nil {
		view.SuspendedAt = dm.SuspendedAt.UTC().Format(dashDate)
		view.SuspendedWhy = d.suspendedWhy(r, c, dm)
		if dm.Verified {
			view.Certificate = "Not while the domain is suspended."
		}
	}
	if canWriteDomains(c) {
		if !dm.Verified {
			view.VerifyPath = c.domainPath(dm.ID) + "/verify"
		}
		view.DeletePath = c.domainPath(dm.ID) + "/delete"
	}
	if check != nil {
		view.Check = explainCheck(dm.Domain, check)
	}
	return web.DashboardView{Frame: web.Frame{Title: dm.Domain}, Nav: c.nav("Domains"), Domain: view}
}

// suspendedWhy says why dm is suspended (the plan has no custom domains)
// and what restores it.
func (d *dashboard) suspendedWhy(r *http.Request, c *dashCtx, dm *linking.Domain) string {
	why := "The domain is suspended because the organization's plan has no custom domains"
	if o := d.readableOrg(r, c); o != nil {
		why = "The domain is suspended because the organization's plan, " + planTitle(o.Plan) + ", has no custom domains"
	}
	after := "as it was"
	if dm.Verified {
		after = "verified as before"
	}
	return why + ". Its links answer 404 and new links cannot use it. Moving to a plan with custom domains (Starter or above) restores it, " +
		after + ", whatever the number the plan allows."
}

// explainCheck says in words what a verification that did not verify
// domain found (check, from the verification service) against what it
// expected.
func explainCheck(domain string, check *linking.DNSCheck) *web.DNSCheck {
	out := &web.DNSCheck{Asked: domain, Expected: check.ExpectedCNAME, Message: sentence(check.Message)}
	switch {
	case check.LookupFailed:
		out.Found = "No answer: the DNS lookup failed."
		out.Explanation = "The DNS server gave no answer, so nothing could be compared: this says nothing about your record. Try again in a few minutes."
	case check.CurrentCNAME == nil:
		out.Found = "No CNAME record."
		out.Explanation = "The DNS lookup found no CNAME record for " + domain + ". Create the record below; if you just did, DNS may take a while to show it."
	default:
		out.Found = "A CNAME to " + *check.CurrentCNAME + "."
		out.Explanation = "The DNS lookup found a CNAME record for " + domain + ", but it points at " + *check.CurrentCNAME +
			" instead of " + check.ExpectedCNAME + ". Change its value to " + check.ExpectedCNAME + "."
	}
	return out
}

// verifyDashDomain answers POST /domains/{id}/verify: a verified domain
// goes to its page; otherwise its page shows what the lookup found.
func (d *dashboard) verifyDashDomain(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	dm, err := d.dashDomain(w, req, c)
	if dm == nil || err != nil {
		return err
	}
	res, err := d.a.opts.Domains.Verify(r.Context(), c.p, dm.ID)
	if err != nil {
		status, msg, ok := dashboardError(err)
		if !ok {
			return err
		}
		if status == http.StatusForbidden || status == http.StatusNotFound {
			return d.serviceErrorPage(w, r, c, err, c.domainPath(dm.ID), "Back to the domain")
		}
		v := d.domainView(r, c, dm, nil)
		v.Error = msg
		return d.render(w, r, c, status, web.PageDashboardDomain, v)
	}
	if res.Verified {
		seeOther(w, c.domainPath(dm.ID)+"?done=verified")
		return nil
	}
	check := res.DNS
	if check == nil {
		check = &linking.DNSCheck{ExpectedCNAME: d.a.opts.Domains.CNAMETarget(), LookupFailed: true}
	}
	return d.render(w, r, c, http.StatusOK, web.PageDashboardDomain, d.domainView(r, c, res.Domain, check))
}

// confirmDeleteDomain answers GET /domains/{id}/delete: the confirmation.
func (d *dashboard) confirmDeleteDomain(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	dm, err := d.dashDomain(w, req, c)
	if dm == nil || err != nil {
		return err
	}
	return d.showConfirmDeleteDomain(w, req.Request, c, dm, http.StatusOK, "")
}

func (d *dashboard) showConfirmDeleteDomain(w http.ResponseWriter, r *http.Request, c *dashCtx, dm *linking.Domain, status int, msg string) error {
	path := c.domainPath(dm.ID)
	if !canWriteDomains(c) {
		return d.message(w, r, c, http.StatusForbidden, "Not allowed", "Only an owner or an admin may delete domains.", path, "Back to the domain")
	}
	return d.render(w, r, c, status, web.PageDashboardConfirm, web.DashboardView{
		Frame: web.Frame{Title: "Delete " + dm.Domain + "?", Error: msg}, Nav: c.nav("Domains"),
		Confirm: &web.Confirm{Action: path + "/delete", Cancel: path,
			Question: "Deleting the domain " + dm.Domain + " also deletes every link of the organization on it, with their click history: " +
				"their short URLs answer 404 at once. An app whose default link domain it is must then be given another.",
			Check: "I understand that the domain and its links cannot be brought back", Button: "Delete the domain"}})
}

// deleteDashDomain answers POST /domains/{id}/delete, which needs confirm=yes.
func (d *dashboard) deleteDashDomain(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	dm, err := d.dashDomain(w, req, c)
	if dm == nil || err != nil {
		return err
	}
	if req.PostForm.Get("confirm") != "yes" {
		return d.showConfirmDeleteDomain(w, req.Request, c, dm, http.StatusBadRequest, "Tick the box to confirm that the domain is to be deleted.")
	}
	if _, err := d.a.opts.Domains.Delete(req.Context(), c.p, dm.ID); err != nil {
		return d.serviceErrorPage(w, req.Request, c, err, c.domainPath(dm.ID), "Back to the domain")
	}
	seeOther(w, c.base+"/domains?done=deleted")
	return nil
}
