package store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/org"
)

var _ org.UsageStore = (*Store)(nil)

// OrgUsage implements org.UsageStore: one count for each limit, as the
// limit's own check counts (the link quota, the app, domain and seat
// limits), and the period's click count. The organization must exist
// (errcode.ErrNotFound otherwise), so that a usage of nothing is never
// shown for an organization deleted meanwhile.
func (s *Store) OrgUsage(ctx context.Context, orgID uuid.UUID, periodStart, now time.Time) (org.UsageCounts, error) {
	var u org.UsageCounts
	var id uuid.UUID
	if err := s.db.NewSelect().Model((*orgRow)(nil)).Column("o.id").Where("o.id = ?", orgID).Scan(ctx, &id); err != nil {
		return u, s.err("org usage", err)
	}
	counts := []struct {
		n *int
		q *bun.SelectQuery
	}{
		{&u.Links, s.db.NewSelect().Model((*linkRow)(nil)).Where("l.org_id = ? AND l.created_at >= ?", orgID, utc(periodStart))},
		{&u.Apps, s.db.NewSelect().Model((*appRow)(nil)).Where("org_id = ?", orgID)},
		{&u.CustomDomains, s.db.NewSelect().Model((*domainRow)(nil)).Where("d.org_id = ?", orgID)},
		{&u.Members, s.db.NewSelect().Model((*memberRow)(nil)).Where("m.org_id = ?", orgID)},
		{&u.PendingInvitations, s.db.NewSelect().Model((*invitationRow)(nil)).Where("i.org_id = ? AND "+pendingAt, orgID, utc(now))},
	}
	for _, c := range counts {
		n, err := c.q.Count(ctx)
		if err != nil {
			return u, s.err("org usage", err)
		}
		*c.n = int(n)
	}
	clicks, err := s.ClickCount(ctx, orgID, periodStart)
	if err != nil {
		return u, err
	}
	u.Clicks = clicks
	return u, nil
}
