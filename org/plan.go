package org

import "time"

// Plan is an organization's subscription plan.
type Plan string

// The four plans, smallest first.
const (
	PlanFree    Plan = "free"
	PlanStarter Plan = "starter"
	PlanGrowth  Plan = "growth"
	PlanScale   Plan = "scale"
)

// Plans lists the plans, smallest first.
var Plans = []Plan{PlanFree, PlanStarter, PlanGrowth, PlanScale}

// Valid reports whether p is one of the four plans.
func (p Plan) Valid() bool {
	for _, q := range Plans {
		if p == q {
			return true
		}
	}
	return false
}

// Limits are the numeric limits of a plan. A zero count means none allowed.
type Limits struct {
	// LinksPerMonth caps the links created in one billing month.
	LinksPerMonth int
	// Apps caps the apps of the organization.
	Apps int
	// CustomDomains caps the custom domains; zero means the plan has none.
	CustomDomains int
	// Seats caps members plus pending invitations.
	Seats int
	// MonthlyClicks is the click allowance of one billing month.
	MonthlyClicks int
	// Retention is how long click, install and attempt data is kept.
	Retention time.Duration
	// Lookback is how far back installs, attempts and exports may be read;
	// zero means as far as Retention.
	Lookback time.Duration
}

const day = 24 * time.Hour

// limits is the plan table. These are Hoplink's documented defaults.
var limits = map[Plan]Limits{
	PlanFree:    {LinksPerMonth: 100, Apps: 1, CustomDomains: 0, Seats: 2, MonthlyClicks: 10_000, Retention: 365 * day, Lookback: 30 * day},
	PlanStarter: {LinksPerMonth: 2_000, Apps: 3, CustomDomains: 1, Seats: 5, MonthlyClicks: 100_000, Retention: 365 * day},
	PlanGrowth:  {LinksPerMonth: 20_000, Apps: 10, CustomDomains: 5, Seats: 20, MonthlyClicks: 1_000_000, Retention: 730 * day},
	PlanScale:   {LinksPerMonth: 200_000, Apps: 50, CustomDomains: 50, Seats: 100, MonthlyClicks: 10_000_000, Retention: 1095 * day},
}

// LimitsOf returns the limits of plan p (the Free plan's for an unknown plan).
func LimitsOf(p Plan) Limits {
	if l, ok := limits[p]; ok {
		return l
	}
	return limits[PlanFree]
}
