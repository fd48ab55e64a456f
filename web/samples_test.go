package web_test

import (
	"html/template"
	"strings"
	"time"

	"github.com/hoplink/hoplink/web"
)

// sample is one page with a view that fills it, long strings included, so
// that a test sees the page as a person would at its worst.
type sample struct {
	name string
	page string
	view any
}

// longEmail, longHost and longURL are the kind of strings that push a page
// wider than a phone when they do not wrap.
var (
	longEmail = "a.very.long.name.of.someone.who.works.at@an-organization-with-a-long-domain.example.com"
	longURL   = "https://www.example.com/a/rather/long/path/that/goes/on/and/on/with-no-spaces-at-all-anywhere?utm_source=newsletter&utm_campaign=winter-sale-2026"
	// unbroken has no place where a line may break.
	unbroken = "clientcallbackhostwithaverylongnamethatcannotbreakanywhereatall1234567890"
	uaChrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	csrf     = "AAAAAHDb2IqneB_VJN6Py0lDUTb21l4lViia6XoAgo6TYwh5swKaqw"
	// A 1x1 PNG stands for the QR code.
	pngDot = template.URL("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
)

func invitation(mismatch bool) *web.Invitation {
	inv := &web.Invitation{Token: "WsCRLxwa9jrtw40pO3vyTAEOTiLSbyISKRosTMNSAPQ", OrgName: "Acme Corporation International",
		Role: "admin", Email: longEmail, Path: "/invitations/WsCRLxwa9jrtw40pO3vyTAEOTiLSbyISKRosTMNSAPQ",
		LoginURL: "/login?return_to=%2Finvitations%2FWsCRLxwa9jrtw40pO3vyTAEOTiLSbyISKRosTMNSAPQ"}
	if mismatch {
		inv.SignedInAs, inv.Mismatch = "someone.else@example.com", true
	}
	return inv
}

// samples has every page, and the states of a page that look different.
func samples() []sample {
	sessions := []web.Session{
		{ID: "01a21481-d947-730a-9d0d-89f7fee3951a", Browser: "Chrome on Linux", UserAgent: uaChrome, IP: "2001:db8:85a3::8a2e:370:7334",
			Created: "Tue, 01 Jan 2030 00:00:10 UTC", LastSeen: "Tue, 01 Jan 2030 00:00:10 UTC", Current: true},
		{ID: "01a21481-d947-730a-9d0d-89f7fee3951b", Browser: "Safari on iOS", UserAgent: "Mozilla/5.0 (iPhone)", IP: "198.51.100.62",
			Created: "Mon, 31 Dec 2029 09:15:00 UTC", LastSeen: "Mon, 31 Dec 2029 23:59:59 UTC"},
	}
	secret := "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	return append([]sample{
		{"sign-in", web.PageLogin, web.AccountView{Frame: web.Frame{Title: "Sign in", Error: "The email or password is incorrect."},
			CSRF: csrf, ReturnTo: "/account", Email: longEmail}},
		{"second step", web.PageOTP, web.AccountView{Frame: web.Frame{Title: "Two-factor authentication"}, CSRF: csrf, Pending: "p"}},
		{"account", web.PageAccount, web.AccountView{Frame: web.Frame{Title: "Your account", Notice: "You joined Acme as admin."},
			CSRF: csrf, Email: longEmail, Connections: true, APIDescription: true, Dashboard: true, Sessions: sessions,
			Memberships: []web.Membership{{Name: "Acme Corporation International Holdings", Role: "owner"}, {Name: "Beta", Role: "member"}}}},
		{"two-factor enrolment", web.PageTwoFactorEnrol, web.AccountView{Frame: web.Frame{Title: "Two-factor authentication"},
			CSRF: csrf, Email: longEmail, Secret: secret, QR: pngDot,
			URI: template.URL("otpauth://totp/Hoplink:" + strings.ReplaceAll(longEmail, "@", "%40") + "?secret=" + secret + "&issuer=Hoplink")}},
		{"backup codes", web.PageTwoFactorCodes, web.AccountView{Frame: web.Frame{Title: "Your backup codes"}, ReturnTo: "/account",
			BackupCodes: []string{"abcd-efgh", "ijkl-mnop", "qrst-uvwx", "yz23-4567", "abcd-2345", "efgh-6789", "ijkl-mnop", "qrst-uvwx", "yz23-4567", "abcd-2345"}}},
		{"two-factor on", web.PageTwoFactorManage, web.AccountView{Frame: web.Frame{Title: "Two-factor authentication"}, CSRF: csrf,
			Email: longEmail, TwoFactorEnabled: true}},
		{"message", web.PageMessage, web.MessageView{Frame: web.Frame{Title: "Backup codes shown already",
			Error: "Your backup codes were shown once, when you turned on two-factor authentication."},
			Text: "Sign in with a code from your app: " + unbroken, Link: "/account", LinkText: "Back to your account"}},
		{"invitation, signed out", web.PageInvitation, web.AccountView{Frame: web.Frame{Title: "Join Acme Corporation International"},
			CSRF: csrf, Invitation: invitation(false)}},
		{"invitation, signed in", web.PageInvitation, web.AccountView{Frame: web.Frame{Title: "Join Acme"}, CSRF: csrf,
			Invitation: func() *web.Invitation { i := invitation(false); i.SignedInAs = i.Email; return i }()}},
		{"invitation, another user", web.PageInvitation, web.AccountView{Frame: web.Frame{Title: "Join Acme",
			Error: "This invitation is for " + longEmail + ", and you are signed in as someone.else@example.com."},
			CSRF: csrf, Invitation: invitation(true)}},
		{"invitation expired", web.PageInvitationClosed, web.AccountView{Frame: web.Frame{Title: "Invitation expired",
			Error: "This invitation has expired: invitations are valid for 7 days."}, Invitation: &web.Invitation{OrgName: "Acme"}}},
		{"password form", web.PagePassword, web.PasswordView{Frame: web.Frame{Error: "That password is not correct."},
			Action: "/summer-sale?utm_source=newsletter", Token: csrf}},
		{"link not found", web.PageLinkError, web.LinkErrorView{Frame: web.Frame{Title: "Link not found"}, Text: "There is no link at this address."}},
		{"link expired", web.PageLinkError, web.LinkErrorView{Frame: web.Frame{Title: "Link expired"}, Text: "This link has expired."}},
		{"bot preview", web.PagePreview, web.PreviewView{Frame: web.Frame{Title: "Winter sale: everything must go"},
			Description: "Forty per cent off every item until Sunday.", Image: "https://cdn.example.com/og.png", URL: longURL, Card: "summary_large_image"}},
		{"consent", web.PageConsent, web.ConsentView{Frame: web.Frame{Title: "Connect Claude Desktop with a Long Self-Chosen Name"},
			CSRF: csrf, ClientName: "Claude Desktop with a Long Self-Chosen Name", RedirectHost: unbroken + ".example.com:40000",
			Email: longEmail, Hidden: [][2]string{{"client_id", "c"}, {"state", "s"}},
			Orgs:        []web.Option{{Value: "1", Label: "Acme Corporation International Holdings (owner)"}, {Value: "all", Label: "All my organizations"}},
			Permissions: web.DescribeScopes([]string{"links:read", "links:write", "apps:read", "analytics:read"}),
			Withheld:    web.DescribeScopes([]string{"org:delete"})}},
		{"connections", web.PageConnections, web.ConnectionsView{Frame: web.Frame{Title: "Connected applications"}, CSRF: csrf,
			Connections: []web.Connection{
				{ID: "1", Client: "Claude Desktop", Orgs: "All my organizations", Scopes: "links:read, links:write, apps:read, analytics:read",
					RedirectHosts: "127.0.0.1:40000", Created: "2030-01-01 00:00 UTC", LastUsed: "never"},
				{ID: "2", Client: "Claude" + unbroken, Orgs: "Acme Corporation International Holdings", Scopes: "links:read",
					RedirectHosts: "cursor:", Created: "2030-01-02 10:30 UTC", LastUsed: "2030-01-03 08:00 UTC"},
			}}},
		{"no connections", web.PageConnections, web.ConnectionsView{Frame: web.Frame{Title: "Connected applications"}, CSRF: csrf}},
		{"charts: thirty days", web.PageChartsSample, web.ChartsSampleView{Frame: web.Frame{Title: "Analytics"},
			Series:     []web.TimeSeries{dailySeries()},
			Breakdowns: []web.Breakdown{countryBreakdown(), refererBreakdown()}}},
		{"charts: hours, a year of weeks, nothing counted", web.PageChartsSample, web.ChartsSampleView{Frame: web.Frame{Title: "Analytics"},
			Series: []web.TimeSeries{hourlySeries(), weeklySeries()},
			Breakdowns: []web.Breakdown{{ID: "empty", Title: "Clicks by platform", Dimension: "Platform"},
				{ID: "utm", Title: "Clicks by UTM campaign", Dimension: "UTM campaign", Rows: []web.BreakdownRow{
					{Value: ptr(unbroken), Counts: web.Counts{Clicks: 1_234_567, Installs: 89_012}}}}}}},
	}, append(append(dashboardSamples(), appSamples()...), domainSamples()...)...)
}

// shell returns a dashboard view of the organization Acme with title.
func shell(title string) web.DashboardView {
	orgs := []web.DashboardOrg{
		{ID: "0193b5a0-0000-7000-8000-000000000001", Name: "Acme Corporation International Holdings", Role: "owner"},
		{ID: "0193b5a0-0000-7000-8000-000000000002", Name: "Beta", Role: "member"},
	}
	return web.DashboardView{Frame: web.Frame{Title: title}, CSRF: csrf, Email: longEmail, Org: orgs[0], Orgs: orgs,
		Nav: []web.NavItem{{Label: "Links", Path: "/dashboard/o/" + orgs[0].ID + "/links", Current: true}}}
}

// dashboardSamples has every dashboard page.
func dashboardSamples() []sample {
	list := shell("Links")
	list.Links = &web.LinkList{Search: unbroken, State: "all", Sort: "newest", Path: "/dashboard/o/1/links", NewPath: "/dashboard/o/1/links/new",
		States: []web.Option{{Value: "all", Label: "All"}, {Value: "active", Label: "Active"}, {Value: "paused", Label: "Paused"}},
		Sorts:  []web.Option{{Value: "newest", Label: "Newest first"}, {Value: "slug", Label: "Slug, A to Z"}},
		Total:  45, From: 21, To: 22, Prev: "/dashboard/o/1/links?page=1", Next: "/dashboard/o/1/links?page=3", Filtered: true,
		Rows: []web.LinkRow{
			{Path: "/dashboard/o/1/links/2", Title: "Winter sale: everything must go", ShortURL: "http://acme-shop.hop.localhost:8080/winter-sale-2026",
				Destination: longURL, State: "Active", Tags: []string{"newsletter", "winter", unbroken}},
			{Path: "/dashboard/o/1/links/3", Title: "spring", ShortURL: "http://acme.hop.localhost:8080/spring", Destination: "https://shop.example/", State: "Paused"},
		}}
	empty := shell("Links")
	empty.Links = &web.LinkList{State: "all", Sort: "newest", Path: "/dashboard/o/1/links", NewPath: "/dashboard/o/1/links/new",
		States: []web.Option{{Value: "all", Label: "All"}}, Sorts: []web.Option{{Value: "newest", Label: "Newest first"}}}
	noApp := empty
	noApp.Links = &web.LinkList{State: "all", Sort: "newest", Path: "/dashboard/o/1/links", NewPath: "/dashboard/o/1/links/new", NoApp: true}

	link := shell("Winter sale: everything must go")
	link.Notice = "The link was paused."
	link.Link = &web.LinkDetail{Title: "Winter sale", ShortURL: "http://acme-shop.hop.localhost:8080/" + unbroken, State: "Paused",
		Tags: []string{"newsletter", unbroken}, CanWrite: true, EditPath: "/e", PausePath: "/p", ResumePath: "/r", DeletePath: "/d", ListPath: "/l",
		Fields:         [][2]string{{"Destination", longURL}, {"iOS URL", "myapp://winter"}, {"Password", "set"}, {"Expires", "2030-01-02 10:00 UTC"}},
		RedirectedFrom: []string{"http://old-handle.hop.localhost:8080/winter"},
		Move: &web.MoveForm{Action: "/m", From: "old-handle.hop.localhost", To: "acme-shop.hop.localhost", Choice: "keep",
			Error: "That slug is taken on acme-shop.hop.localhost."}}
	readOnly := shell("spring")
	readOnly.Link = &web.LinkDetail{Title: "spring", ShortURL: "http://acme.hop.localhost:8080/spring", State: "Active", Active: true, ListPath: "/l",
		Fields: [][2]string{{"Destination", "https://shop.example/"}}}

	form := shell("Create a link")
	form.Form = &web.Form{Action: "/dashboard/o/1/links", Submit: "Create the link", Cancel: "/dashboard/o/1/links", Invalid: true,
		Groups: []web.FieldGroup{
			{Legend: "Destination", Fields: []web.FormField{
				{Name: "destination_url", Label: "Destination URL", Type: "url", Value: "example.com/" + unbroken, Required: true,
					Error: "destination_url must be an absolute http or https URL"},
				{Name: "slug", Label: "Slug", Type: "text", Hint: "2 to 100 lowercase letters, digits and hyphens; generated when empty", MaxLength: 100},
				{Name: "app_id", Label: "App", Type: "select", Options: []web.Option{{Value: "", Label: "No app"}, {Value: "1", Label: "Acme Shop"}}},
			}},
			{Legend: "Protection", Fields: []web.FormField{
				{Name: "password", Label: "Password", Type: "password"},
				{Name: "remove_password", Label: "Remove the password", Type: "checkbox", Checked: true},
				{Name: "expires_at", Label: "Expires (UTC)", Type: "datetime-local", Value: "2030-01-02T10:00"},
				{Name: "parameters", Label: "Parameters (JSON)", Type: "textarea", Value: `{"injected":[]}`, Hint: "A LinkParamConfig"},
			}},
		}}
	confirm := shell("Delete the link?")
	confirm.Confirm = &web.Confirm{Action: "/d", Cancel: "/l", Question: "Deleting " + longURL + " removes its click history for good.",
		Check: "I understand that this cannot be undone", Button: "Delete the link"}
	msg := shell("Link not found")
	msg.Error = "There is no such link in this organization."
	msg.Text, msg.Onward, msg.OnwardText = "It may have been deleted.", "/dashboard", "Back to the dashboard"
	picker := shell("Choose an organization")
	picker.Org = web.DashboardOrg{}
	none := web.DashboardView{Frame: web.Frame{Title: "Dashboard"}, CSRF: csrf, Email: longEmail}
	series := dailySeries()
	stats := shell("Analytics of Winter sale: everything must go")
	stats.Analytics = &web.AnalyticsView{Path: "/dashboard/o/1/analytics", LinkID: "2", LinkTitle: "Winter sale: everything must go",
		LinkPath: "/dashboard/o/1/links/2", Days: "30", Interval: "day", Timezone: "Europe/Berlin",
		DayOptions:      []web.Option{{Value: "7", Label: "Last 7 days"}, {Value: "30", Label: "Last 30 days"}},
		IntervalOptions: []web.Option{{Value: "day", Label: "Days"}, {Value: "week", Label: "Weeks"}},
		From:            "1 Mar 2030 10:00", To: "31 Mar 2030 10:00", Clicks: "1234567", Installs: "89012", Unstored: "420",
		Series: &series, Breakdowns: []web.Breakdown{countryBreakdown(), refererBreakdown()}}
	refused := shell("Analytics")
	refused.Error = "Your plan reads the last 30 days of clicks."
	refused.Analytics = &web.AnalyticsView{Path: "/dashboard/o/1/analytics", Days: "90", Interval: "day", Timezone: unbroken,
		DayOptions: []web.Option{{Value: "90", Label: "Last 90 days"}}, IntervalOptions: []web.Option{{Value: "day", Label: "Days"}}}
	keys := shell("API and SDK keys")
	keys.Notice = "The key was revoked: its next use is refused."
	keys.Keys = &web.KeyList{
		Rows: []web.KeyRow{
			{Name: "Deploy bot of the " + unbroken, Type: "API", Prefix: "svc_live_", Scopes: "links:read, links:write, analytics:read, apps:read, apps:write",
				Created: "2030-01-02 10:00 UTC", Expires: "2031-01-02 10:00 UTC", LastUsed: "2030-03-01 08:12 UTC", RevokePath: "/dashboard/o/1/keys/2/revoke"},
			{Name: "iOS app", Type: "SDK", Prefix: "svc_live_", Scopes: "links:read, attribution:write", Created: "2030-01-02 10:00 UTC"},
		},
		Create: &web.KeyForm{Action: "/dashboard/o/1/keys", Name: unbroken, Type: "api", Expires: "soon", Invalid: true,
			Scopes: []web.ScopeChoice{{Permission: web.DescribeScope("links:read"), Checked: true}, {Permission: web.DescribeScope("webhooks:write")}},
			Apps:   []web.Option{{Value: "1", Label: "Acme Shop"}}, NameError: "Must be 1 to 100 characters.",
			ScopesError: "Must name at least one scope.", ExpiresError: "Must be a date and time, such as 2030-01-31T18:00 (UTC).",
			AppError: "Is not an app of this organization."}}
	noKeys := shell("API and SDK keys")
	noKeys.Keys = &web.KeyList{Own: true, Create: &web.KeyForm{Action: "/dashboard/o/1/keys", Type: "sdk",
		Scopes: []web.ScopeChoice{{Permission: web.DescribeScope("links:read")}}}}
	newKey := shell("Key created")
	newKey.NewKey = &web.NewKey{Name: "Deploy bot", Raw: "svc_live_" + unbroken, Scopes: "links:read, links:write", ListPath: "/dashboard/o/1/keys"}
	return append([]sample{
		{"dashboard keys", web.PageDashboardKeys, keys},
		{"dashboard keys, empty", web.PageDashboardKeys, noKeys},
		{"dashboard key created", web.PageDashboardKeyCreated, newKey},
		{"dashboard links", web.PageDashboardLinks, list},
		{"dashboard links, empty", web.PageDashboardLinks, empty},
		{"dashboard links, no app", web.PageDashboardLinks, noApp},
		{"dashboard link", web.PageDashboardLink, link},
		{"dashboard link, read only", web.PageDashboardLink, readOnly},
		{"dashboard form", web.PageDashboardForm, form},
		{"dashboard confirm", web.PageDashboardConfirm, confirm},
		{"dashboard message", web.PageDashboardMessage, msg},
		{"dashboard organizations", web.PageDashboardOrgs, picker},
		{"dashboard, no organization", web.PageDashboardOrgs, none},
		{"dashboard analytics", web.PageDashboardAnalytics, stats},
		{"dashboard analytics, refused", web.PageDashboardAnalytics, refused},
	}, append(append(teamSamples(), analyticsSamples()...), recordSamples()...)...)
}

// analyticsSamples has the analytics page's export button, the export
// pages in each state, the link form's preview card and the keys' pages.
func analyticsSamples() []sample {
	series := dailySeries()
	withExport := shell("Analytics of Winter sale: everything must go")
	withExport.Analytics = &web.AnalyticsView{Path: "/dashboard/o/1/analytics", LinkID: "2", LinkTitle: "Winter sale: everything must go",
		LinkPath: "/dashboard/o/1/links/2", Days: "30", Interval: "day", Timezone: "UTC",
		DayOptions:      []web.Option{{Value: "30", Label: "Last 30 days"}},
		IntervalOptions: []web.Option{{Value: "day", Label: "Days"}},
		From:            "1 Mar 2030 10:00", To: "31 Mar 2030 10:00", Clicks: "2", Installs: "0",
		Series: &series, Breakdowns: []web.Breakdown{countryBreakdown()},
		Export: &web.ExportForm{Action: "/dashboard/o/1/analytics/exports", Days: "30", LinkID: "2", ListPath: "/dashboard/o/1/analytics/exports"}}

	exports := shell("Recent exports")
	exports.Exports = &web.ExportList{Own: true, Total: 45, From: 21, To: 23, Prev: "/x?page=1", Next: "/x?page=3", First: "/x?page=1",
		AnalyticsPath: "/dashboard/o/1/analytics", Rows: []web.ExportRow{
			{Path: "/dashboard/o/1/analytics/exports/3", Created: "2030-03-31 10:00 UTC", Window: "2030-03-01 10:00 to 2030-03-31 10:00",
				Scope: "The link Winter sale: " + unbroken + ", tag newsletter", State: web.ExportComplete, Rows: "1,234,567"},
			{Path: "/dashboard/o/1/analytics/exports/4", Created: "2030-03-31 09:00 UTC", Window: "2030-03-30 09:00 to 2030-03-31 09:00",
				Scope: "Every link", State: web.ExportRunning, Rows: "12,000"},
			{Path: "/dashboard/o/1/analytics/exports/5", Created: "2030-03-30 09:00 UTC", Window: "2030-03-29 09:00 to 2030-03-30 09:00",
				Scope: "A deleted link", State: web.ExportFailed, Rows: "0"},
		}}
	noExports := shell("Recent exports")
	noExports.Exports = &web.ExportList{AnalyticsPath: "/dashboard/o/1/analytics"}
	pastTheEnd := shell("Recent exports")
	pastTheEnd.Exports = &web.ExportList{Total: 3, Prev: "/x?page=8", First: "/x?page=1", AnalyticsPath: "/dashboard/o/1/analytics"}

	export := func(state string, change func(v *web.ExportView)) web.DashboardView {
		v := shell("Click export")
		v.Export = &web.ExportView{Path: "/dashboard/o/1/analytics/exports/3", State: state, Rows: "0",
			Created: "2030-03-31 10:00 UTC", From: "2030-03-01 10:00 UTC", To: "2030-03-31 10:00 UTC",
			Scope: "The link Winter sale: " + unbroken, ScopePath: "/dashboard/o/1/links/2", RefreshSeconds: 5,
			ListPath: "/dashboard/o/1/analytics/exports", AnalyticsPath: "/dashboard/o/1/analytics"}
		change(v.Export)
		return v
	}
	pending := export(web.ExportPending, func(v *web.ExportView) { v.Refreshing, v.ToggleRefresh = true, v.Path+"?refresh=off" })
	running := export(web.ExportRunning, func(v *web.ExportView) { v.Rows, v.ToggleRefresh = "12,000", v.Path })
	complete := export(web.ExportComplete, func(v *web.ExportView) {
		v.Rows, v.Expires, v.DownloadPath = "1,234,567", "2030-04-01 10:00 UTC", v.Path+"/download"
	})
	failed := export(web.ExportFailed, func(v *web.ExportView) {
		v.Failure, v.Expires, v.Scope, v.ScopePath = "The export was interrupted 3 times.", "2030-04-01 10:00 UTC", "Every link", ""
	})
	expired := export(web.ExportExpired, func(v *web.ExportView) { v.Rows, v.Expires = "2", "2030-04-01 10:00 UTC" })

	form := linkForm()
	form.LinkPreview = &web.LinkPreview{Group: "Preview", Title: "Winter sale: everything must go, " + unbroken,
		Description: "Up to 50% off coats, boots and everything warm until the end of the month, in every shop and online.",
		ImageHost:   unbroken + ".example.com", Domain: "acme-shop.hop.localhost", DefaultDomain: "hop.localhost",
		AppDomains: "1=acme-shop.hop.localhost 2=go.acme.example"}
	emptyForm := linkForm()
	emptyForm.Form.Invalid = false
	emptyForm.LinkPreview = &web.LinkPreview{Group: "Preview", Domain: "hop.localhost", DefaultDomain: "hop.localhost"}

	keys := shell("API and SDK keys")
	keys.Keys = &web.KeyList{Total: 45, From: 21, To: 22, Prev: "/k?page=1", Next: "/k?page=3", First: "/k?page=1", Rows: []web.KeyRow{
		{Name: "Deploy bot", Type: "API", Prefix: "svc_live_", Scopes: "links:read", Created: "2030-01-02 10:00 UTC"},
		{Name: "iOS app", Type: "SDK", Prefix: "svc_live_", Scopes: "links:read, attribution:write", Created: "2030-01-02 10:00 UTC"},
	}}
	keysPastTheEnd := shell("API and SDK keys")
	keysPastTheEnd.Keys = &web.KeyList{Total: 2, Prev: "/k?page=8", First: "/k?page=1"}

	return []sample{
		{"dashboard analytics, export", web.PageDashboardAnalytics, withExport},
		{"dashboard exports", web.PageDashboardExports, exports},
		{"dashboard exports, empty", web.PageDashboardExports, noExports},
		{"dashboard exports, past the last page", web.PageDashboardExports, pastTheEnd},
		{"dashboard export, pending", web.PageDashboardExport, pending},
		{"dashboard export, running, not reloading", web.PageDashboardExport, running},
		{"dashboard export, complete", web.PageDashboardExport, complete},
		{"dashboard export, failed", web.PageDashboardExport, failed},
		{"dashboard export, expired", web.PageDashboardExport, expired},
		{"dashboard link form, preview card", web.PageDashboardForm, form},
		{"dashboard link form, empty preview card", web.PageDashboardForm, emptyForm},
		{"dashboard keys, second page", web.PageDashboardKeys, keys},
		{"dashboard keys, past the last page", web.PageDashboardKeys, keysPastTheEnd},
	}
}

// linkForm is the link form's preview group with values that cannot break.
func linkForm() web.DashboardView {
	v := shell("Create a link")
	v.Form = &web.Form{Action: "/dashboard/o/1/links", Submit: "Create the link", Cancel: "/dashboard/o/1/links", Invalid: true,
		Groups: []web.FieldGroup{
			{Legend: "Link", Fields: []web.FormField{
				{Name: "destination_url", Label: "Destination URL", Type: "url", Value: longURL, Required: true},
				{Name: "app_id", Label: "App", Type: "select", Options: []web.Option{{Value: "", Label: "No app"}, {Value: "1", Label: "Acme Shop"}}},
			}},
			{Legend: "Preview", Fields: []web.FormField{
				{Name: "og_title", Label: "Preview title", Type: "text", Value: "Winter sale: everything must go, " + unbroken, MaxLength: 255},
				{Name: "og_description", Label: "Preview description", Type: "textarea", Value: "Up to 50% off"},
				{Name: "og_image_url", Label: "Preview image URL", Type: "url", Value: "https://" + unbroken + ".example.com/sale.png",
					Error: "og_image_url must be an https URL"},
			}},
		}}
	return v
}

func ptr[T any](v T) *T { return &v }

// berlin is a zone with a daylight-saving change inside dailySeries.
var berlin = func() *time.Location {
	l, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		panic(err)
	}
	return l
}()

// dailySeries is thirty days across the spring change, with its table
// unfolded.
func dailySeries() web.TimeSeries {
	s := web.TimeSeries{ID: "daily", Title: "Clicks and installs per day", Interval: web.IntervalDay,
		Timezone: "Europe/Berlin", TableOpen: true}
	for i := range 30 {
		c := int64(40 + 30*(i%7) + 3*i)
		s.Buckets = append(s.Buckets, web.Bucket{Start: time.Date(2026, 3, 15+i, 0, 0, 0, 0, berlin), Clicks: c, Installs: c / 6})
	}
	return s
}

// hourlySeries is two days of hours with a quiet night, its table folded.
func hourlySeries() web.TimeSeries {
	s := web.TimeSeries{ID: "hourly", Title: "Clicks and installs per hour", Interval: web.IntervalHour, Timezone: "UTC"}
	for i := range 48 {
		h := i % 24
		c := int64(0)
		if h >= 7 {
			c = int64(1500 + 400*(h%5))
		}
		s.Buckets = append(s.Buckets, web.Bucket{Start: time.Date(2026, 3, 2, i, 0, 0, 0, time.UTC), Clicks: c, Installs: c / 20})
	}
	return s
}

// weeklySeries is a year of weeks, its table unfolded.
func weeklySeries() web.TimeSeries {
	s := web.TimeSeries{ID: "weekly", Title: "Clicks and installs per week", Interval: web.IntervalWeek, Timezone: "America/New_York", TableOpen: true}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		panic(err)
	}
	for i := range 52 {
		s.Buckets = append(s.Buckets, web.Bucket{Start: time.Date(2025, 12, 29+7*i, 0, 0, 0, 0, ny), Clicks: int64(900 + 37*i), Installs: int64(40 + i)})
	}
	return s
}

func countryBreakdown() web.Breakdown {
	return web.Breakdown{ID: "country", Title: "Clicks by country", Dimension: "Country", Rows: []web.BreakdownRow{
		{Value: ptr("Germany (DE)"), Counts: web.Counts{Clicks: 1520, Installs: 210}},
		{Value: ptr("United States (US)"), Counts: web.Counts{Clicks: 980, Installs: 133}},
		{Value: ptr("Saint Vincent & Grenadines (VC)"), Counts: web.Counts{Clicks: 310, Installs: 12}},
		{Value: nil, Counts: web.Counts{Clicks: 44, Installs: 0}},
	}, Other: web.Counts{Clicks: 120, Installs: 9}}
}

// refererBreakdown has values a visitor chose: markup, and a host that
// cannot break.
func refererBreakdown() web.Breakdown {
	return web.Breakdown{ID: "referer", Title: "Clicks by referrer", Dimension: "Referrer", Rows: []web.BreakdownRow{
		{Value: ptr("<script>alert(1)</script>"), Counts: web.Counts{Clicks: 12, Installs: 1}},
		{Value: ptr(unbroken + ".example.com"), Counts: web.Counts{Clicks: 7, Installs: 0}},
		{Value: ptr(`"quoted" & 'apostrophes'`), Counts: web.Counts{Clicks: 3, Installs: 3}},
	}}
}

// recordSamples has the installs, attempts, audit log and settings pages.
func recordSamples() []sample {
	const base = "/dashboard/o/1"
	apps := []web.Option{{Value: "", Label: "Every app"}, {Value: "none", Label: "No app"}, {Value: "1", Label: "Acme Shop " + unbroken}}
	outcomes := []web.Option{{Value: "", Label: "Matched or not"}, {Value: "true", Label: "Matched"}, {Value: "false", Label: "Not matched"}}
	installs := shell("Installs")
	installs.Records = &web.RecordList{InstallsPath: base + "/installs", AttemptsPath: base + "/attempts", App: "1",
		Link: "0193b5a0-0000-7000-8000-000000000009", From: "2030-01-01T00:00", Apps: apps, MatchedOptions: outcomes, Filtered: true,
		Window: "From 2030-01-01 00:00 UTC to 2030-01-31 10:00 UTC.", Prev: base + "/installs?cursor=a", Next: base + "/installs?cursor=c",
		First: base + "/installs",
		Installs: []web.InstallRow{
			{Path: base + "/installs/1", Installed: "2030-01-30 10:04:05 UTC", Link: "Winter sale: everything must go " + unbroken,
				LinkPath: base + "/links/2", Match: "Deterministic", Reinstall: "No", App: "Acme Shop"},
			{Path: base + "/installs/2", Installed: "2030-01-29 08:00:00 UTC", Link: "Deleted link", Match: "Probabilistic",
				Reinstall: "Not known", App: "No app"},
		}}
	noInstalls := shell("Installs")
	noInstalls.Records = &web.RecordList{InstallsPath: base + "/installs", Apps: apps, MatchedOptions: outcomes, Own: true,
		Window: "From 2030-01-01 00:00 UTC to 2030-01-31 10:00 UTC."}
	attempts := shell("Attribution attempts")
	attempts.Records = &web.RecordList{Attempts: true, InstallsPath: base + "/installs", AttemptsPath: base + "/attempts", Matched: "false",
		Apps: apps, MatchedOptions: outcomes, Filtered: true, Window: "From 2030-01-01 00:00 UTC to 2030-01-31 10:00 UTC.",
		Next: base + "/attempts?cursor=" + unbroken,
		Tries: []web.AttemptRow{
			{Path: base + "/attempts/1", Created: "2030-01-30 10:04:05 UTC", Platform: "Android", App: "Acme Shop", Matched: true,
				Outcome: "Matched", Summary: "By the install referrer's click id"},
			{Path: base + "/attempts/2", Created: "2030-01-30 10:03:00 UTC", Platform: "iOS", App: "Not told", Outcome: "Not matched",
				Summary: "Could not tell which device"},
		}}
	refusedList := shell("Attribution attempts")
	refusedList.Error = "This plan reads installs and attempts of the last 30 days only."
	refusedList.Records = &web.RecordList{Attempts: true, InstallsPath: base + "/installs", AttemptsPath: base + "/attempts",
		From: "2020-01-01T00:00", Apps: apps, MatchedOptions: outcomes, Filtered: true, First: base + "/attempts"}

	install := shell("Install of 2030-01-30 10:04:05 UTC")
	install.Record = &web.RecordDetail{Kind: "install", ListPath: base + "/installs", LinkTitle: "Winter sale " + unbroken, LinkPath: base + "/links/2",
		Facts: [][2]string{{"Installed", "2030-01-30 10:04:05 UTC"}, {"Match", "Probabilistic"}, {"Click id", "0193b5a0-0000-7000-8000-000000000009"}},
		Explanation: []string{`Matched probabilistically with 92% confidence to a click on the link "Winter sale" 4 minutes before the install.`,
			"3 devices clicked this app's links from the same carrier-grade NAT address (which many phones share) in the 6 hours before, and this one fit best; the runner-up was 3% likely."},
		Signals: []string{"The time from the click to the install", "The device model"},
		Attempts: []web.AttemptRow{{Path: base + "/attempts/1", Created: "2030-01-30 10:04:05 UTC", Outcome: "Matched",
			Summary: "Probabilistic, 92% confident"}}}
	memberInstall := shell("Install of 2030-01-30 10:04:05 UTC")
	memberInstall.Record = &web.RecordDetail{Kind: "install", ListPath: base + "/installs", LinkGone: true,
		Facts:       [][2]string{{"Installed", "2030-01-30 10:04:05 UTC"}},
		Explanation: []string{"Matched deterministically to a click on a link since deleted.", "Owners and admins see the attempt that explains how."}}
	attempt := shell("Attempt of 2030-01-30 10:03:00 UTC")
	attempt.Record = &web.RecordDetail{Kind: "attempt", ListPath: base + "/attempts",
		Facts: [][2]string{{"Time", "2030-01-30 10:03:00 UTC"}, {"Outcome", "Not matched"}, {"Reason code", "no_match"},
			{"Candidate clicks", "9 found, 7 could have led to it, 7 unclaimed, 3 devices scored"}},
		Explanation: []string{"No match: 3 phones that clicked share this carrier-grade NAT address, so it could not be told which one installed: the best was 40% likely and the runner-up 38% (a match needs 85% and 4 times the runner-up's odds)."},
		Signals:     []string{"The network address the click and the install share", "The signal \"" + unbroken + "\""}}

	auditLog := shell("Audit log")
	auditLog.Audit = &web.AuditList{Path: base + "/audit", From: "2030-01-01T00:00", Filtered: true, Next: base + "/audit?cursor=b",
		Prev: base + "/audit", Rows: []web.AuditRow{
			{When: "2030-01-30 10:04:05 UTC", Actor: longEmail, Action: "Created a key", Target: "key Deploy bot " + unbroken,
				Details: []string{"name: Deploy bot", "scopes: links:read,links:write,analytics:read", "type: api"},
				Client:  "2001:db8:85a3::8a2e:370:7334, Chrome on Linux"},
			{When: "2030-01-29 08:00:00 UTC", Actor: "Hoplink itself", Action: "Turned off a webhook endpoint that kept failing",
				Target: "webhook 0193b5a0-0000-7000-8000-000000000009"},
		}}
	noAudit := shell("Audit log")
	noAudit.Audit = &web.AuditList{Path: base + "/audit"}

	usage := []web.UsageRow{
		{Label: "Clicks this month", Used: "10,000", Limit: "10,000", Full: true, Note: "Clicks past the allowance are counted, not stored"},
		{Label: "Links created this month", Used: "12", Limit: "100", Note: "Links created since the month began and not deleted"},
		{Label: "Custom domains", Used: "0", Limit: "None on this plan", Note: "Verified or not"},
		{Label: "Seats", Used: "2", Limit: "2", Full: true, Note: "1 member and 1 pending invitation"},
	}
	settings := shell("Settings of Acme Corporation International Holdings")
	settings.Notice = "The security policy was saved."
	settings.Settings = &web.Settings{Name: "Acme Corporation International Holdings " + unbroken, Slug: unbroken, Plan: "Free",
		Created: "2030-01-01 00:00 UTC", Period: "2030-01-01 00:00 UTC to 2030-02-01 00:00 UTC",
		Retention: "Clicks, installs and attempts are kept for 365 days. Installs, attempts and exports read the last 30 days.", Usage: usage,
		Parameters: &web.ParametersForm{Action: base + "/settings/parameters", JSON: `{"injected": [{"key": "` + unbroken + `"}]}`,
			Error: "Injected[0].value is required."},
		Security: &web.SecurityForm{Action: base + "/settings/security", RequireTwoFactor: true, SessionHours: "5000", IdleMinutes: "x",
			Error: "The policy was not saved: see the messages below the fields.", HoursError: "Must be a whole number of hours from 1 to 2160.",
			MinutesError: "Must be a whole number of minutes.", HoursHint: "From 1 to 2160 (90 days)", MinutesHint: "From 5 to 43200"}}
	readOnly := shell("Settings of Beta")
	readOnly.Settings = &web.Settings{Name: "Beta", Slug: "beta", Plan: "Scale", Created: "2030-01-01 00:00 UTC",
		Period: "2030-01-01 00:00 UTC to 2030-02-01 00:00 UTC", Retention: "Clicks, installs and attempts are kept for 1095 days.", Usage: usage[:2],
		Parameters: &web.ParametersForm{JSON: "{\n  \"injected\": [],\n  \"forwarding\": null,\n  \"defaultMode\": null\n}"},
		Security:   &web.SecurityForm{SessionHours: "336", IdleMinutes: "10080"}}
	return []sample{
		{"dashboard installs", web.PageDashboardInstalls, installs},
		{"dashboard installs, empty, own links", web.PageDashboardInstalls, noInstalls},
		{"dashboard attempts", web.PageDashboardInstalls, attempts},
		{"dashboard attempts, refused", web.PageDashboardInstalls, refusedList},
		{"dashboard install", web.PageDashboardRecord, install},
		{"dashboard install, member", web.PageDashboardRecord, memberInstall},
		{"dashboard attempt, not matched", web.PageDashboardRecord, attempt},
		{"dashboard audit log", web.PageDashboardAudit, auditLog},
		{"dashboard audit log, empty", web.PageDashboardAudit, noAudit},
		{"dashboard settings, owner with errors", web.PageDashboardSettings, settings},
		{"dashboard settings, read only", web.PageDashboardSettings, readOnly},
	}
}
