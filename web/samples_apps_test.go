package web_test

import "github.com/hoplink/hoplink/web"

// The association files of an app with every field set, as the link
// domains serve them (a long fingerprint list that cannot break).
var (
	sampleAASA       = `{"applinks":{"details":[{"appIDs":["ABCDE12345.com.acme.shop.with.a.rather.long.bundle.identifier"],"components":[{"/":"/products/*"},{"/":"/` + unbroken + `"}]}]},"webcredentials":{"apps":["ABCDE12345.com.acme.shop.with.a.rather.long.bundle.identifier"]}}`
	sampleAssetLinks = `[{"relation":["delegate_permission/common.handle_all_urls"],"target":{"namespace":"android_app","package_name":"com.acme.shop","sha256_cert_fingerprints":["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5","AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99"]}}]`
)

// sampleApp is the view of an app named name with every field set.
func sampleApp(name string) *web.AppView {
	return &web.AppView{Name: name, CanWrite: true, EditPath: "/dashboard/o/1/apps/2/edit", DeletePath: "/dashboard/o/1/apps/2/delete",
		ListPath: "/dashboard/o/1/apps",
		Fields: [][2]string{{"Name", name}, {"iOS bundle ID", "com.acme.shop.with.a.rather.long.bundle.identifier"},
			{"iOS team ID", "ABCDE12345"}, {"App Store ID", "1234567890"}, {"App Store URL", "https://apps.apple.com/app/id1234567890"},
			{"Universal link paths", "/products/*, /" + unbroken}, {"Android package name", "com.acme.shop"},
			{"SHA-256 certificate fingerprints", "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"},
			{"Play Store URL", longURL}, {"App links paths", ""}, {"Created", "2030-01-02 10:00 UTC"}, {"Changed", "2030-01-03 10:00 UTC"}},
		Files: []web.AssociationFile{
			{ID: "aasa", Title: "apple-app-site-association", Platform: "iOS universal links", JSON: sampleAASA, Domains: []web.FileDomain{
				{URL: "https://acme-shop-with-a-long-handle.hop.example/.well-known/apple-app-site-association", Served: true, Status: "it answers 200 with the file below."},
				{URL: "https://links." + unbroken + ".example.com/.well-known/apple-app-site-association", Served: true, Status: "it answers 200 with the file below."},
			}},
			{ID: "assetlinks", Title: "assetlinks.json", Platform: "Android app links", JSON: sampleAssetLinks, Domains: []web.FileDomain{
				{URL: "https://acme-shop-with-a-long-handle.hop.example/.well-known/assetlinks.json", Served: true, Status: "it answers 200 with the file below."},
				{URL: "https://links." + unbroken + ".example.com/.well-known/assetlinks.json", Served: true, Status: "it answers 200 with the file below."},
			}},
		},
		Subdomain: web.Subdomain{Handle: "acme-shop-with-a-long-handle", LinkDomain: "acme-shop-with-a-long-handle.hop.example",
			DefaultLinkDomain: "links." + unbroken + ".example.com", RenamePath: "/dashboard/o/1/apps/2/rename",
			Default: &web.DefaultDomainForm{Action: "/dashboard/o/1/apps/2/default-domain", Value: "links." + unbroken + ".example.com",
				Options: []web.Option{{Value: "acme-shop-with-a-long-handle.hop.example", Label: "acme-shop-with-a-long-handle.hop.example (the app's subdomain)"},
					{Value: "links." + unbroken + ".example.com", Label: "links." + unbroken + ".example.com (custom domain)"}}}},
	}
}

// appSamples has every state of the app pages.
func appSamples() []sample {
	list := shell("Apps")
	list.Notice = "The app was deleted."
	list.Apps = &web.AppList{Path: "/dashboard/o/1/apps", NewPath: "/dashboard/o/1/apps/new", Total: 23, From: 21, To: 23,
		Prev: "/dashboard/o/1/apps?page=1", Plan: "The Growth plan allows 10 apps; the organization has 23.",
		Rows: []web.AppRow{
			{Path: "/dashboard/o/1/apps/2", Name: "Acme Shop " + unbroken, LinkDomain: "acme-shop-with-a-long-handle.hop.example",
				IOS: "com.acme.shop.with.a.rather.long.bundle.identifier", Android: "com.acme.shop", Renaming: true},
			{Path: "/dashboard/o/1/apps/3", Name: "Acme Blog", LinkDomain: "acme-blog.hop.example"},
		}}
	empty := shell("Apps")
	empty.Apps = &web.AppList{Path: "/dashboard/o/1/apps", NewPath: "/dashboard/o/1/apps/new", Plan: "The Free plan allows 1 app; the organization has 0."}
	emptyMember := shell("Apps")
	emptyMember.Apps = &web.AppList{Path: "/dashboard/o/1/apps", Search: unbroken}

	full := shell("Acme Shop")
	full.Notice = "The changes were saved."
	full.App = sampleApp("Acme Shop")

	missing := shell("Acme Blog")
	missing.App = &web.AppView{Name: "Acme Blog", ListPath: "/dashboard/o/1/apps",
		Fields: [][2]string{{"Name", "Acme Blog"}, {"iOS bundle ID", ""}, {"iOS team ID", ""}, {"Android package name", "com.acme.blog"}},
		Files: []web.AssociationFile{
			{ID: "aasa", Title: "apple-app-site-association", Platform: "iOS universal links",
				Missing: []string{"iOS team ID (ios_team_id)", "iOS bundle ID (ios_bundle_id)"}, Domains: []web.FileDomain{
					{URL: "https://acme-blog.hop.example/.well-known/apple-app-site-association", Status: "it answers 404 until the app has its iOS team ID (ios_team_id) and iOS bundle ID (ios_bundle_id)."},
					{URL: "https://hop.example/.well-known/apple-app-site-association", Status: "it answers 404: the service's own link domain serves no app's files, so links there open in the browser."},
				}},
			{ID: "assetlinks", Title: "assetlinks.json", Platform: "Android app links",
				Missing: []string{"SHA-256 certificate fingerprint (android_sha256_fingerprints)"}, Domains: []web.FileDomain{
					{URL: "https://acme-blog.hop.example/.well-known/assetlinks.json", Status: "it answers 404 until the app has its SHA-256 certificate fingerprint (android_sha256_fingerprints)."},
				}},
		},
		Subdomain: web.Subdomain{Handle: "acme-blog", LinkDomain: "acme-blog.hop.example", DefaultLinkDomain: "hop.example"}}

	renaming := shell("Acme Shop")
	renaming.Notice = "The subdomain was renamed: the previous one keeps serving the app's links during the rename period."
	renaming.App = sampleApp("Acme Shop")
	s := &renaming.App.Subdomain
	s.Previous, s.Opened, s.Ends = "acme-shop-"+unbroken+".hop.example", "2030-01-02 10:00 UTC", "2030-02-01 10:00 UTC"
	s.ExtensionsUsed, s.ExtensionsLeft, s.Moving, s.Waiting, s.Kept = 1, 1, 1200, 23, 2
	s.WaitingLinks = []web.Option{{Value: "/dashboard/o/1/links/7", Label: s.Previous + "/spring"},
		{Value: "/dashboard/o/1/links/8", Label: s.Previous + "/" + unbroken}}
	s.MoreWaiting, s.RenamePath, s.ExtendPath = 21, "", "/dashboard/o/1/apps/2/extend"
	s.Default.Error = "The domain links.example.com is not one this app's links may use."
	renaming.App.Files[0].Domains = append(renaming.App.Files[0].Domains, web.FileDomain{
		URL: "https://" + s.Previous + "/.well-known/apple-app-site-association", Served: true, Status: "it answers 200 with the file below."})

	readOnly := shell("Acme Shop")
	readOnly.App = sampleApp("Acme Shop")
	readOnly.App.CanWrite = false
	readOnly.App.Subdomain.RenamePath, readOnly.App.Subdomain.Default = "", nil

	rename := shell("Rename the subdomain of Acme Shop")
	rename.Error = "Links use the subdomain: tick the box to confirm the rename."
	rename.Rename = &web.RenameForm{Action: "/dashboard/o/1/apps/2/rename", Cancel: "/dashboard/o/1/apps/2", Handle: unbroken,
		HandleError: "Must be 3 to 40 lowercase letters, digits and single hyphens, starting and ending with a letter or digit.",
		Suffix:      ".hop.example", Current: "acme-shop-with-a-long-handle.hop.example", Confirm: 1234}
	renameFirst := shell("Rename the subdomain of Acme Blog")
	renameFirst.Rename = &web.RenameForm{Action: "/dashboard/o/1/apps/3/rename", Cancel: "/dashboard/o/1/apps/3",
		Suffix: ".hop.example", Current: "acme-blog.hop.example"}

	return []sample{
		{"dashboard apps", web.PageDashboardApps, list},
		{"dashboard apps, empty", web.PageDashboardApps, empty},
		{"dashboard apps, none found for a member", web.PageDashboardApps, emptyMember},
		{"dashboard app, everything set", web.PageDashboardApp, full},
		{"dashboard app, missing fields", web.PageDashboardApp, missing},
		{"dashboard app, during a rename", web.PageDashboardApp, renaming},
		{"dashboard app, read only", web.PageDashboardApp, readOnly},
		{"dashboard app rename, confirmation", web.PageDashboardAppRename, rename},
		{"dashboard app rename", web.PageDashboardAppRename, renameFirst},
	}
}

// domainSamples has every state of the custom-domain pages.
func domainSamples() []sample {
	long := "links." + unbroken + ".example.com"
	list := shell("Custom domains")
	list.Notice = "The domain was deleted, with the organization's links on it."
	list.Domains = &web.DomainList{Total: 3, From: 1, To: 3, Plan: "The Growth plan allows 5 custom domains; the organization has 3.",
		Rows: []web.DomainRow{
			{Path: "/dashboard/o/1/domains/2", Name: long, State: "Pending verification", Note: "Not served until its DNS record is verified."},
			{Path: "/dashboard/o/1/domains/3", Name: "go.acme.example", State: "Verified", Note: "Its links are served."},
			{Path: "/dashboard/o/1/domains/4", Name: "old.acme.example", State: "Suspended", Note: "Its links answer 404: the plan has no custom domains."},
		},
		Add: &web.DomainForm{Action: "/dashboard/o/1/domains", Domain: "https://" + unbroken, Error: "The domain is not a valid host name."}}
	empty := shell("Custom domains")
	empty.Domains = &web.DomainList{Plan: "The Starter plan allows 1 custom domain; the organization has 0.",
		Add: &web.DomainForm{Action: "/dashboard/o/1/domains"}}
	noPlan := shell("Custom domains")
	noPlan.Domains = &web.DomainList{NoPlan: true, Plan: "The Free plan has no custom domains."}

	record := web.DNSRecord{Type: "CNAME", Name: long, Value: "cname.hop.example"}
	pending := shell(long)
	pending.Notice = "The domain was added. Create its DNS record below, then verify it."
	pending.Domain = &web.DomainView{Name: long, State: "Pending verification", Created: "2030-01-02 10:00 UTC",
		Certificate: "Not until the domain is verified.", Record: record, VerifyPath: "/dashboard/o/1/domains/2/verify",
		DeletePath: "/dashboard/o/1/domains/2/delete", ListPath: "/dashboard/o/1/domains"}
	failed := shell(long)
	failed.Domain = &web.DomainView{Name: "xn--bcher-kva.example", Unicode: "bücher.example", State: "Pending verification",
		Created: "2030-01-02 10:00 UTC", Certificate: "Not until the domain is verified.", Record: record,
		VerifyPath: "/dashboard/o/1/domains/2/verify", DeletePath: "/dashboard/o/1/domains/2/delete", ListPath: "/dashboard/o/1/domains",
		Check: &web.DNSCheck{Asked: long, Expected: "cname.hop.example", Found: "A CNAME to old-provider." + unbroken + ".net.",
			Explanation: "The DNS lookup found a CNAME record for " + long + ", but it points at old-provider." + unbroken +
				".net instead of cname.hop.example. Change its value to cname.hop.example.",
			Message: "The CNAME record of " + long + " points at old-provider.example.net; change it to point at cname.hop.example (DNS changes can take a while to spread)."}}
	verified := shell("go.acme.example")
	verified.Notice = "The domain is verified: links may use it now."
	verified.Domain = &web.DomainView{Name: "go.acme.example", State: "Verified", Verified: true, Created: "2030-01-02 10:00 UTC",
		VerifiedAt: "2030-01-02 11:00 UTC", Certificate: "May be obtained: the TLS question (GET /v1/internal/tls/ask) answers yes while the domain is live.",
		Record:     web.DNSRecord{Type: "CNAME", Name: "go.acme.example", Value: "cname.hop.example"},
		DeletePath: "/dashboard/o/1/domains/3/delete", ListPath: "/dashboard/o/1/domains"}
	suspended := shell("old.acme.example")
	suspended.Domain = &web.DomainView{Name: "old.acme.example", State: "Suspended", Verified: true, Suspended: true,
		Created: "2030-01-02 10:00 UTC", VerifiedAt: "2030-01-02 11:00 UTC", SuspendedAt: "2030-03-01 00:00 UTC",
		Certificate: "Not while the domain is suspended.", Record: web.DNSRecord{Type: "CNAME", Name: "old.acme.example", Value: "cname.hop.example"},
		SuspendedWhy: "The domain is suspended because the organization's plan, Free, has no custom domains. Its links answer 404 and new links cannot use it. " +
			"Moving to a plan with custom domains (Starter or above) restores it, verified as before, whatever the number the plan allows.",
		ListPath: "/dashboard/o/1/domains"}

	return []sample{
		{"dashboard domains", web.PageDashboardDomains, list},
		{"dashboard domains, empty", web.PageDashboardDomains, empty},
		{"dashboard domains, plan without domains", web.PageDashboardDomains, noPlan},
		{"dashboard domain, pending with its record", web.PageDashboardDomain, pending},
		{"dashboard domain, verification failed", web.PageDashboardDomain, failed},
		{"dashboard domain, verified", web.PageDashboardDomain, verified},
		{"dashboard domain, suspended", web.PageDashboardDomain, suspended},
	}
}
