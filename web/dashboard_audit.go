package web

// AuditList fills PageDashboardAudit: the organization's audit log, newest
// first, with the API's window filter and pages through its cursors.
type AuditList struct {
	Path string
	// From and To are the window's filter as sent (datetime-local, UTC).
	From, To string
	Rows     []AuditRow
	// Prev, Next and First are the neighbouring pages and the first one;
	// "" when none.
	Prev, Next, First string
	Filtered          bool
}

// AuditRow is one event of the log.
type AuditRow struct {
	// When is the time; Actor who acted (an email, a key's name, "Hoplink"
	// for the service itself); Action what was done, in words; Target
	// what it was done to.
	When, Actor, Action, Target string
	// Details are the event's facts, as "name: value".
	Details []string
	// Client is the IP address and browser the action came from; "" for
	// none.
	Client string
}
