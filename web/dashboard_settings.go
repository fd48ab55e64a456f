package web

// Settings fills PageDashboardSettings: the organization, its plan and
// usage, its parameter defaults and its security policy, each editable
// when the member's role may change it.
type Settings struct {
	// Name, Slug, Plan and Created describe the organization.
	Name, Slug, Plan, Created string
	// Period is the current billing month, as shown; Retention says how
	// long data is kept and how far back it may be read.
	Period, Retention string
	// Usage are the plan's limits against what is used, in order.
	Usage []UsageRow
	// Parameters is the parameter defaults' form; Security the security
	// policy's.
	Parameters *ParametersForm
	Security   *SecurityForm
}

// UsageRow is one limit of the plan.
type UsageRow struct {
	// Label names what is counted; Used and Limit are numbers as shown
	// (Limit "None" for a plan that allows none, with Used "0").
	Label, Used, Limit string
	// Full says that the limit is reached.
	Full bool
	// Note says how it is counted.
	Note string
}

// ParametersForm is the organization's parameter defaults (the API's
// OrgParameters) as JSON in a text area.
type ParametersForm struct {
	// Action is "" when the role may not change them: the form is read-only.
	Action string
	JSON   string
	Error  string
}

// SecurityForm is the organization's security policy.
type SecurityForm struct {
	// Action is "" when the role may not change it: the values are shown
	// read-only.
	Action string
	// RequireTwoFactor is the checkbox; SessionHours and IdleMinutes are
	// the numbers as typed.
	RequireTwoFactor          bool
	SessionHours, IdleMinutes string
	// HoursError, MinutesError and Error are what the service refused.
	HoursError, MinutesError, Error string
	// Bounds say what each number may be.
	HoursHint, MinutesHint string
}
