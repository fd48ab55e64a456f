package web

// ExportForm is the analytics page's Export button: a form that starts an
// export of the clicks the page shows (its window and link filter).
type ExportForm struct {
	Action string
	// Days and LinkID are the page's window and link filter, sent with
	// the form; LinkID is "" for every link.
	Days, LinkID string
	// ListPath is the page of the recent exports.
	ListPath string
}

// The states of an export as the dashboard shows them: the API's four,
// and ExportExpired for a complete export whose download has expired.
const (
	ExportPending  = "pending"
	ExportRunning  = "running"
	ExportComplete = "complete"
	ExportFailed   = "failed"
	ExportExpired  = "expired"
)

// ExportList fills PageDashboardExports: the recent exports the member may
// see, newest first, twenty a page.
type ExportList struct {
	Rows []ExportRow
	// Own says that the list holds only the member's own exports, as
	// their role reaches no other.
	Own bool
	// Total is how many exports there are; From and To number the rows
	// shown.
	Total, From, To int
	// Prev and Next are the neighbouring pages' URLs, and First the first
	// page's; "" when none.
	Prev, Next, First string
	// AnalyticsPath is the analytics page, where an export starts.
	AnalyticsPath string
}

// ExportRow is one export of the list.
type ExportRow struct {
	// Path is the export's page.
	Path string
	// Created and Window are as shown; Scope names the link the export is
	// of, or says that it is of every link.
	Created, Window, Scope string
	// State is one of the Export... states; Rows the rows counted.
	State, Rows string
}

// ExportView fills PageDashboardExport: one export's state, its rows, and
// the download once it is complete.
type ExportView struct {
	// Path is the page's own address, which the Refresh link reloads.
	Path string
	// State is one of the Export... states.
	State string
	// Rows is the rows counted: all of them once complete.
	Rows string
	// Created, From, To and Expires are instants as shown; Expires is ""
	// until the export ends.
	Created, From, To, Expires string
	// Scope names the link the export is of, or says that it is of every
	// link; ScopePath is that link's page, "" for every link or a link
	// since deleted.
	Scope, ScopePath string
	// Failure says why a failed export failed.
	Failure string
	// Refreshing says that the page reloads itself every RefreshSeconds
	// while the export waits or runs; ToggleRefresh is the address that
	// turns that off (or on again).
	Refreshing     bool
	RefreshSeconds int
	ToggleRefresh  string
	// DownloadPath is the CSV's address; "" unless the export is complete
	// and not expired.
	DownloadPath string
	// ListPath is the page of the recent exports; AnalyticsPath the
	// analytics page, where a new export starts.
	ListPath, AnalyticsPath string
}

// Waiting reports whether the export has yet to end: pending or running.
func (v *ExportView) Waiting() bool { return v.State == ExportPending || v.State == ExportRunning }
