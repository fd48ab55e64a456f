package org

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
)

// UsageCounts are what an organization uses of its plan's limits, counted
// as the limits count them.
type UsageCounts struct {
	// Links are the links created since the billing period's start (the
	// monthly link limit; deleted links no longer count).
	Links int
	// Apps and CustomDomains are the organization's apps and custom
	// domains, live or not.
	Apps, CustomDomains int
	// Members and PendingInvitations together take the seats.
	Members, PendingInvitations int
	// Clicks are the clicks counted in the billing period, stored or past
	// the allowance (the click_counts row the allowance reads).
	Clicks int64
}

// UsageStore counts an organization's usage; a Store that implements it
// (package store does) serves Service.Usage. It wraps
// errcode.ErrUnavailable when the database cannot be reached.
type UsageStore interface {
	// OrgUsage counts organization orgID's usage: links created at or after
	// periodStart, apps, custom domains, members, invitations pending at
	// now, and the clicks counted in the period that starts at periodStart.
	OrgUsage(ctx context.Context, orgID uuid.UUID, periodStart, now time.Time) (UsageCounts, error)
}

// Usage is an organization's plan, its limits and what it uses of them.
type Usage struct {
	Organization *Organization
	Limits       Limits
	// PeriodStart and PeriodEnd bound the current billing month [start,
	// end).
	PeriodStart, PeriodEnd time.Time
	UsageCounts
}

// Usage returns the plan and usage of p's own organization id (another is
// NOT_FOUND). It needs what reading the organization needs: the org:read
// scope and the org.read role action, which every role has.
func (s *Service) Usage(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Usage, error) {
	o, err := s.Get(ctx, p, id)
	if err != nil {
		return nil, err
	}
	us, ok := s.store.(UsageStore)
	if !ok {
		return nil, errors.New("org: the store counts no usage")
	}
	now := s.clock().UTC()
	start := PeriodStart(o.BillingPeriodStart, now)
	u := &Usage{Organization: o, Limits: LimitsOf(o.Plan), PeriodStart: start, PeriodEnd: PeriodEnd(o.BillingPeriodStart, now)}
	if u.UsageCounts, err = us.OrgUsage(ctx, id, start, now); err != nil {
		if errors.Is(err, errcode.ErrNotFound) {
			return nil, errcode.New(errcode.NotFound, "organization not found")
		}
		return nil, fmt.Errorf("org: usage: %w", err)
	}
	return u, nil
}

// PeriodEnd returns the end of the billing period that holds now, for an
// organization whose billing_period_start is anchor: the next period's
// start under PeriodStart's rule (before the anchor, a month after it).
func PeriodEnd(anchor, now time.Time) time.Time {
	anchor, now = anchor.UTC(), now.UTC()
	months := 0
	if now.After(anchor) {
		months = (now.Year()-anchor.Year())*12 + int(now.Month()-anchor.Month())
		for addMonths(anchor, months).After(now) {
			months--
		}
	}
	return addMonths(anchor, months+1)
}
