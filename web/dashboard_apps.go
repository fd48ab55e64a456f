package web

// AppList fills PageDashboardApps: one page of the organization's apps.
type AppList struct {
	// Search is the search as the browser sent it, kept in the form; Path
	// the list's own path (the form's action).
	Search, Path string
	Rows         []AppRow
	// Total is how many apps match; From and To number the rows shown.
	Total, From, To int
	// Prev and Next are the neighbouring pages' URLs; "" when none.
	Prev, Next string
	// NewPath is the create form's path; "" when the role may not create
	// apps.
	NewPath string
	// Plan says how many apps the organization's plan allows ("" when not
	// known).
	Plan string
}

// AppRow is one app of the list.
type AppRow struct {
	Path, Name string
	// LinkDomain is the app's subdomain; IOS and Android its bundle id and
	// package name ("" when unset).
	LinkDomain, IOS, Android string
	// Renaming says that a rename period is open.
	Renaming bool
}

// AppView fills PageDashboardApp: an app's fields, the live state of its
// association files, and its subdomain with the actions on it.
type AppView struct {
	Name string
	// Fields are the app's fields as label and value, in order; an unset
	// one has the value "" and is shown as not set.
	Fields [][2]string
	// CanWrite says that the member may change the app: edit, delete and
	// the subdomain's actions are offered.
	CanWrite                       bool
	EditPath, DeletePath, ListPath string
	// Files are the association files, Apple's then Android's.
	Files     []AssociationFile
	Subdomain Subdomain
}

// ShowsJSON reports whether some association file has its JSON shown (with
// its copy button).
func (v *AppView) ShowsJSON() bool {
	for _, f := range v.Files {
		if f.JSON != "" {
			return true
		}
	}
	return false
}

// AssociationFile is the live state of one association file of an app.
type AssociationFile struct {
	// ID prefixes the elements' ids ("aasa", "assetlinks").
	ID, Title string
	// Platform says who reads it ("iOS", "Android").
	Platform string
	// Missing names the fields the app lacks for the file to be served,
	// each as "label (field)"; empty when none.
	Missing []string
	// JSON is the file's body, byte for byte as the link domains serve it;
	// "" while fields are missing.
	JSON string
	// Domains are where the file is asked for.
	Domains []FileDomain
}

// FileDomain is the state of an association file at one address.
type FileDomain struct {
	// URL is the address the platform reads the file at.
	URL string
	// Served says that the address answers 200 with the file.
	Served bool
	// Status says in words what the address answers and why.
	Status string
}

// Subdomain is an app's subdomain and its rename state
// (docs/app-subdomains.md).
type Subdomain struct {
	Handle, LinkDomain, DefaultLinkDomain string
	// Previous is the subdomain of an open rename period ("" when none);
	// Opened and Ends bound the period, as shown.
	Previous, Opened, Ends string
	// ExtensionsUsed and ExtensionsLeft count the period's extensions.
	ExtensionsUsed, ExtensionsLeft int
	// Moving, Waiting and Kept count the links on Previous by what becomes
	// of them.
	Moving, Waiting, Kept int
	// WaitingLinks are the first waiting links, each leading to its page
	// (where its move choice is made); MoreWaiting how many are not shown.
	WaitingLinks []Option
	MoreWaiting  int
	// RenamePath is the rename form; ExtendPath the extension's action. ""
	// when not offered (the role may not, a period is open, no extension
	// is left).
	RenamePath, ExtendPath string
	// Default is the default link domain's form; nil when not offered.
	Default *DefaultDomainForm
}

// DefaultDomainForm chooses an app's default link domain among the
// domains its links may use.
type DefaultDomainForm struct {
	Action, Value string
	Options       []Option
	Error         string
}

// RenameForm fills PageDashboardAppRename: the new handle of an app's
// subdomain, and the confirmation the rename needs while links use the
// subdomain.
type RenameForm struct {
	Action, Cancel string
	// Handle is the new handle as typed; Suffix the rest of the subdomain
	// (".hop.example").
	Handle, HandleError, Suffix string
	// Current is the app's subdomain now.
	Current string
	// Confirm is how many links use Current when the service asked for a
	// confirmation (the checkbox is then shown and required); 0 otherwise.
	Confirm int
}
