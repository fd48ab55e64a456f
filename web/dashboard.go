package web

import (
	"html/template"
	"strings"
)

// DashboardView fills every dashboard page (PageDashboard...): the shell
// (the signed-in user, the organization switcher and the sections the
// member's role is offered) and one of the page parts below, the one its
// page shows.
type DashboardView struct {
	Frame
	// CSRF is the forms' token (field csrf_token).
	CSRF string
	// Email is the signed-in user's.
	Email string
	// Org is the organization the page is of; its ID is empty on the pages
	// of no organization (the organization picker, a page not found).
	Org DashboardOrg
	// Orgs are the user's organizations, for the switcher.
	Orgs []DashboardOrg
	// Nav are the sections offered, in order.
	Nav []NavItem

	// Text, Onward and OnwardText fill PageDashboardMessage: a message and
	// a link onwards.
	Text, Onward, OnwardText string

	Links     *LinkList
	Link      *LinkDetail
	Form      *Form
	Confirm   *Confirm
	Analytics *AnalyticsView
	Keys      *KeyList
	NewKey    *NewKey
	// LinkPreview is the link form's preview card; Exports and Export
	// fill the export pages.
	LinkPreview *LinkPreview
	Exports     *ExportList
	Export      *ExportView

	Team          *TeamView
	NewInvitation *NewInvitation
	Apps          *AppList
	App           *AppView
	Rename        *RenameForm
	Domains       *DomainList
	Domain        *DomainView
	Records       *RecordList
	Record        *RecordDetail
	Audit         *AuditList
	Settings      *Settings
}

// KeyList fills PageDashboardKeys: the keys the member may see and the
// create form.
type KeyList struct {
	Rows []KeyRow
	// Own says that the list holds only the member's own keys, as their
	// role reaches no other.
	Own bool
	// Create is the create form; nil when the role may not create keys.
	Create *KeyForm
	// Total is how many keys there are; From and To number the rows
	// shown, twenty a page.
	Total, From, To int
	// Prev and Next are the neighbouring pages' URLs, and First the first
	// page's; "" when none.
	Prev, Next, First string
}

// KeyRow is one key of the list.
type KeyRow struct {
	Name, Type, Prefix, Scopes string
	// Created, Expires and LastUsed are dates as shown; Expires and
	// LastUsed are "" when unset.
	Created, Expires, LastUsed string
	// RevokePath is the revoke confirmation; "" when the member may not
	// revoke the key.
	RevokePath string
}

// KeyForm is the create form of a key: its values as typed and an error
// for each field ("" when none).
type KeyForm struct {
	Action string
	// Type is "api" or "sdk".
	Name, Type, Expires, AppID string
	// Scopes are the scopes the member's role may grant, those typed
	// checked.
	Scopes []ScopeChoice
	// Apps are the organization's apps an SDK key may be tied to.
	Apps                                                      []Option
	NameError, TypeError, ScopesError, ExpiresError, AppError string
	// Invalid says that some field has an error.
	Invalid bool
}

// ScopeChoice is one scope checkbox of the key form.
type ScopeChoice struct {
	Permission
	Checked bool
}

// ID is the checkbox's element id: the scope with its colon as a hyphen,
// which a CSS selector takes as it is.
func (s ScopeChoice) ID() string { return "f-scope-" + strings.ReplaceAll(s.Scope, ":", "-") }

// NewKey fills PageDashboardKeyCreated: a key just created, with its raw
// value, shown this once.
type NewKey struct {
	Name, Raw, Scopes, ListPath string
}

// AnalyticsView fills PageDashboardAnalytics: the window's form, the
// totals, a time series and breakdowns of the organization's clicks or of
// one link's.
type AnalyticsView struct {
	// Path is the page's own path (the form's action); LinkID the link
	// filter, "" for the whole organization.
	Path, LinkID string
	// LinkTitle and LinkPath name the link the page is of.
	LinkTitle, LinkPath string
	// Days, Interval and Timezone are the form's values as chosen.
	Days, Interval, Timezone    string
	DayOptions, IntervalOptions []Option
	// From and To are the window read, on the zone's clock; Clicks and
	// Installs its totals; Unstored the clicks counted past the plan's
	// allowance but not stored ("" when none or not known).
	From, To                   string
	Clicks, Installs, Unstored string
	// Series is nil when the query was refused (the page's Error says
	// why).
	Series     *TimeSeries
	Breakdowns []Breakdown
	// Export is the Export button; nil when the page offers none (no
	// exports served, or the query was refused).
	Export *ExportForm
}

// DashboardOrg is one organization of the switcher.
type DashboardOrg struct {
	ID, Name string
	// Role is the user's role in it.
	Role string
}

// NavItem is one section of the dashboard's navigation.
type NavItem struct {
	Label, Path string
	// Current marks the section of the page shown.
	Current bool
}

// LinkList fills PageDashboardLinks.
type LinkList struct {
	// Search, Tag, State and Sort are the filters as the browser sent
	// them, kept in the form.
	Search, Tag, State, Sort string
	States, Sorts            []Option
	Rows                     []LinkRow
	// Total is how many links match; From and To number the rows shown.
	Total, From, To int
	// Prev and Next are the neighbouring pages' URLs; "" when none.
	Prev, Next string
	// Filtered says that a filter is set: an empty list says so.
	Filtered bool
	// NewPath is the create form's path; "" when the role may not create.
	NewPath string
	// Path is the list's own path (the filter form's action).
	Path string
	// NoApp says that the organization has no app yet, which a first link
	// needs; NewAppPath is then the app form ("" when the role may not
	// create apps).
	NoApp      bool
	NewAppPath string
}

// LinkRow is one link of the list.
type LinkRow struct {
	Path, Title, ShortURL, Destination string
	// State is Active, Paused or Expired.
	State string
	Tags  []string
}

// LinkDetail fills PageDashboardLink.
type LinkDetail struct {
	Title, ShortURL, State string
	Tags                   []string
	// Fields are the link's settings as label and value, in order; unset
	// ones are left out.
	Fields [][2]string
	// RedirectedFrom are old short URLs that redirect here.
	RedirectedFrom []string
	// CanWrite says that the member may change the link: the edit, pause,
	// resume and delete actions are offered.
	CanWrite                                    bool
	Active                                      bool
	EditPath, PausePath, ResumePath, DeletePath string
	ListPath                                    string
	// Move is the move choice's form of a link on its app's previous
	// subdomain; nil when the link is not waiting to move.
	Move *MoveForm
	// QR is a QR code of ShortURL as a data: URL (the CSP allows data:
	// images); QRPNGPath and QRSVGPath download it as PNG and SVG.
	QR                   template.URL
	QRPNGPath, QRSVGPath string
	// AnalyticsPath is the link's analytics page; "" when the member is
	// offered none.
	AnalyticsPath string
}

// MoveForm is the move choice of a link waiting to move to its app's new
// subdomain.
type MoveForm struct {
	Action string
	// From and To are the previous and the current subdomain.
	From, To string
	// Choice is the saved choice ("keep", "new_slug" or "").
	Choice  string
	NewSlug string
	Error   string
}

// Form is a dashboard form: fields in groups, each with the value typed
// and the error the service gave it.
type Form struct {
	Action string
	// Submit is the submit button's text; Cancel the path back.
	Submit, Cancel string
	Groups         []FieldGroup
	// Invalid says that some field has an error: a summary is shown.
	Invalid bool
}

// FieldGroup is a fieldset of a form.
type FieldGroup struct {
	Legend string
	Fields []FormField
}

// FormField is one field of a form.
type FormField struct {
	// Name is the form field's name, and its element's id is "f-" + Name.
	Name, Label string
	// Type is an input type ("text", "url", "password", "number",
	// "datetime-local", "checkbox"), "textarea" or "select".
	Type  string
	Value string
	// Checked is a checkbox's state.
	Checked bool
	// Hint says what the field takes; Error what was wrong with it.
	Hint, Error string
	Required    bool
	// MaxLength bounds a text field; 0 leaves it unbounded.
	MaxLength int
	Options   []Option
}

// ID is the field's element id.
func (f FormField) ID() string { return "f-" + f.Name }

// Confirm fills PageDashboardConfirm: a destructive action's confirmation,
// which the action's handler requires (field confirm).
type Confirm struct {
	Action, Cancel string
	// Question says what is about to happen; Check is the confirm
	// checkbox's label; Button the submit button's text.
	Question, Check, Button string
}
