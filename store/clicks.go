package store

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/org"
)

var (
	_ analytics.Store      = (*Store)(nil)
	_ analytics.UsageStore = (*Store)(nil)
)

// clickRow is a row of clicks: a click attribution reads (isCandidate),
// with the values its readers need (migration 20261202000001): the
// matcher's, the claim's and the install rollups' (onInstallAttributed).
// Unknown text fields are empty strings, not NULL. Every other field of the
// click is in its segment.
type clickRow struct {
	bun.BaseModel `bun:"table:clicks,alias:c"`

	ID               uuid.UUID  `bun:"id,pk"`
	OrgID            uuid.UUID  `bun:"org_id"`
	LinkID           uuid.UUID  `bun:"link_id"`
	AppID            *uuid.UUID `bun:"app_id"`
	Domain           string     `bun:"domain"`
	OccurredAt       time.Time  `bun:"occurred_at"`
	Source           string     `bun:"source"`
	Platform         string     `bun:"platform"`
	OS               string     `bun:"os"`
	OSVersion        string     `bun:"os_version"`
	DeviceModel      string     `bun:"device_model"`
	Browser          string     `bun:"browser"`
	InAppBrowser     string     `bun:"in_app_browser"`
	IPKey            string     `bun:"ip_key"`
	Country          string     `bun:"country"`
	UserAgent        string     `bun:"user_agent"`
	AcceptLanguage   string     `bun:"accept_language"`
	RefererHost      string     `bun:"referer_host"`
	UTMSource        string     `bun:"utm_source"`
	UTMMedium        string     `bun:"utm_medium"`
	UTMCampaign      string     `bun:"utm_campaign"`
	UTMTerm          string     `bun:"utm_term"`
	UTMContent       string     `bun:"utm_content"`
	TapID            *uuid.UUID `bun:"tap_id"`
	ClaimedByInstall *uuid.UUID `bun:"claimed_by_install"`
}

// clickCountRow is a row of click_counts: an organization's clicks counted
// in the billing month that starts at PeriodStart.
type clickCountRow struct {
	bun.BaseModel `bun:"table:click_counts,alias:cc"`

	OrgID       uuid.UUID `bun:"org_id,pk"`
	PeriodStart time.Time `bun:"period_start,pk"`
	Count       int64     `bun:"count"`
}

// clickUnstoredRow is a row of click_unstored: an organization's clicks
// counted but not stored in the quarter hour that starts at Slot (UTC).
type clickUnstoredRow struct {
	bun.BaseModel `bun:"table:click_unstored,alias:cu"`

	OrgID uuid.UUID `bun:"org_id,pk"`
	Slot  time.Time `bun:"slot,pk"`
	Count int64     `bun:"count"`
}

// unstoredKey is an organization's quarter hour in click_unstored.
type unstoredKey struct {
	orgID uuid.UUID
	slot  time.Time
}

// fromClick is the row of c, a normalized click with its id.
func fromClick(c *analytics.Click) clickRow {
	return clickRow{
		ID: c.ID, OrgID: c.OrgID, LinkID: c.LinkID, AppID: c.AppID, Domain: c.Domain,
		OccurredAt: c.OccurredAt, Source: string(c.Source), Platform: c.Platform, OS: c.OS,
		OSVersion: c.OSVersion, DeviceModel: c.DeviceModel, Browser: c.Browser, InAppBrowser: c.InAppBrowser,
		IPKey: c.IPKey, Country: c.Country, UserAgent: c.UserAgent, AcceptLanguage: c.AcceptLanguage,
		RefererHost: c.RefererHost, UTMSource: c.UTMSource, UTMMedium: c.UTMMedium, UTMCampaign: c.UTMCampaign,
		UTMTerm: c.UTMTerm, UTMContent: c.UTMContent, TapID: c.TapID,
	}
}

type periodKey struct {
	orgID uuid.UUID
	start time.Time
}

// InsertClicks implements analytics.Store.
//
// In one transaction it reads the billing anchors of the batch's
// organizations and the owners of its links, drops the clicks whose
// organization or link is gone (or whose link belongs to another
// organization), and stores the rest that are not CountOnly: the clicks
// attribution reads (isCandidate; on SQLite only those that needsRow, the
// others being in their segments alone, click_rows.go) as rows of clicks
// first, in one statement with ON CONFLICT DO NOTHING (the unique (org_id,
// tap_id) index skips a repeated tap; on SQLite the rows go through
// clicks_sqlite.go),
// lowering their organizations' IP marks to the oldest inserted row that
// carries an IP key (lowerIPMarks), then every stored click, those rows that were inserted and all the
// others, per organization as segments (click_segments.go), so that a
// repeated tap is in no segment twice. It bumps click_counts by the clicks
// stored plus the CountOnly clicks (each counting Click.Clicks()), per
// organization and billing month, and click_unstored by the CountOnly
// clicks, per organization and quarter hour (analytics.SlotOf), for the
// analytics' unstored_clicks, and hands the stored clicks to
// onClicksStored. The rows of clicks have no foreign key to links: a link
// deleted once the batch has read it (on PostgreSQL its delete waits for
// the batch, which holds it FOR KEY SHARE; on SQLite transactions are
// serial) has its rows and its clicks in segments removed by its
// compaction, which follows the delete (link_delete.go); readers skip its
// clicks meanwhile.
func (s *Store) InsertClicks(ctx context.Context, clicks []analytics.Click) (int, error) {
	if len(clicks) == 0 {
		return 0, nil
	}
	inserted, handed, err := s.insertClicks(ctx, clicks)
	if err != nil {
		return 0, err
	}
	// Once the batch's connection is back in the pool: the index may be
	// waiting for one (an in-memory database has one).
	s.candidates.appendedSegments(handed)
	return inserted, nil
}

// insertClicks is InsertClicks; it also returns the segments it wrote on
// SQLite, for the candidate index.
func (s *Store) insertClicks(ctx context.Context, clicks []analytics.Click) (int, []handedSegment, error) {
	orgIDs := make([]uuid.UUID, 0, 4)
	linkIDs := make([]uuid.UUID, 0, len(clicks))
	seenOrg := map[uuid.UUID]bool{}
	seenLink := map[uuid.UUID]bool{}
	for i := range clicks {
		if !seenOrg[clicks[i].OrgID] {
			seenOrg[clicks[i].OrgID] = true
			orgIDs = append(orgIDs, clicks[i].OrgID)
		}
		if !clicks[i].CountOnly && !seenLink[clicks[i].LinkID] {
			seenLink[clicks[i].LinkID] = true
			linkIDs = append(linkIDs, clicks[i].LinkID)
		}
	}
	// On SQLite the rows are inserted at the driver's level on the
	// transaction's own connection (clicks_sqlite.go), so the transaction
	// runs on a connection taken from the pool for the batch.
	var conn bun.Conn
	runInTx := s.db.RunInTx
	if s.Dialect() == "sqlite" {
		var err error
		if conn, err = s.db.Conn(ctx); err != nil {
			return 0, nil, s.err("insert clicks", err)
		}
		defer conn.Close()
		runInTx = conn.RunInTx
	}
	var (
		inserted int
		// The segments written on SQLite, for the candidate index once the
		// batch is committed.
		handed []handedSegment
	)
	err := runInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := markSpoolBatch(ctx, tx); err != nil {
			return err
		}
		var orgs []struct {
			ID                 uuid.UUID `bun:"id"`
			BillingPeriodStart time.Time `bun:"billing_period_start"`
		}
		if err := tx.NewSelect().Table("organizations").Column("id", "billing_period_start").
			Where("id IN (?)", bun.List(orgIDs)).Scan(ctx, &orgs); err != nil {
			return err
		}
		anchors := make(map[uuid.UUID]time.Time, len(orgs))
		for _, o := range orgs {
			anchors[o.ID] = o.BillingPeriodStart
		}
		owners := map[uuid.UUID]uuid.UUID{}
		if len(linkIDs) > 0 {
			var links []struct {
				ID    uuid.UUID `bun:"id"`
				OrgID uuid.UUID `bun:"org_id"`
			}
			// On PostgreSQL the links are locked FOR KEY SHARE (as a foreign
			// key would) until the batch commits: a delete of one waits, so
			// that its compaction, which follows the delete, finds every
			// segment holding its clicks; an update of a link does not.
			q := tx.NewSelect().Table("links").Column("id", "org_id").Where("id IN (?)", bun.List(linkIDs))
			if s.Dialect() == "pg" {
				q = q.For("KEY SHARE")
			}
			if err := q.Scan(ctx, &links); err != nil {
				return err
			}
			for _, l := range links {
				owners[l.ID] = l.OrgID
			}
		}

		counts := map[periodKey]int64{}
		unstored := map[unstoredKey]int64{}
		// Both lists are sized once: grown by append, a merged batch of
		// thousands of clicks was copied several times over (a click is
		// hundreds of bytes), which the allocation profile of the writer
		// showed. others has room for the candidates that stored adds.
		// On SQLite most candidates are in their segments alone
		// (click_rows.go), and only those that need a row are counted.
		rowless := s.Dialect() == "sqlite"
		nStored, nCandidates := 0, 0
		for i := range clicks {
			if c := &clicks[i]; !c.CountOnly {
				nStored++
				if isCandidate(c) && (!rowless || needsRow(c)) {
					nCandidates++
				}
			}
		}
		candidates := make([]analytics.Click, 0, nCandidates)
		others := make([]analytics.Click, 0, nStored)
		seen := make(map[uuid.UUID]bool, len(clicks))
		for i := range clicks {
			c := &clicks[i]
			anchor, ok := anchors[c.OrgID]
			if !ok {
				continue
			}
			if c.CountOnly {
				counts[periodKey{c.OrgID, org.PeriodStart(anchor, c.OccurredAt)}] += c.Clicks()
				unstored[unstoredKey{c.OrgID, analytics.SlotOf(c.OccurredAt)}] += c.Clicks()
				continue
			}
			if owner, ok := owners[c.LinkID]; !ok || owner != c.OrgID {
				continue
			}
			n := *c
			n.Normalize()
			if n.ID == uuid.Nil {
				n.ID = uuid.Must(uuid.NewV7())
			}
			if isCandidate(&n) && (!rowless || needsRow(&n)) {
				candidates = append(candidates, n)
				continue
			}
			if seen[n.ID] {
				continue // one click twice in a batch is stored once
			}
			seen[n.ID] = true
			others = append(others, n)
		}

		// The candidate rows first: the ones their id or tap id refuse are
		// stored already, and are left out of the segments too.
		stored := others
		if len(candidates) > 0 {
			var done []bool
			if s.Dialect() == "sqlite" {
				rowids, err := insertClickRowsSQLite(ctx, conn, candidates)
				if err != nil {
					return err
				}
				done = make([]bool, len(rowids))
				for i, id := range rowids {
					done[i] = id != 0
				}
			} else {
				rows := make([]clickRow, len(candidates))
				for i := range candidates {
					rows[i] = fromClick(&candidates[i])
				}
				var ids []uuid.UUID
				if err := tx.NewInsert().Model(&rows).On("CONFLICT DO NOTHING").Returning("id").
					Scan(ctx, &ids); err != nil && !errors.Is(err, sql.ErrNoRows) {
					return err
				}
				done = insertedRows(candidates, ids)
			}
			for i := range candidates {
				if done[i] {
					stored = append(stored, candidates[i])
				}
			}
			if err := s.lowerIPMarks(ctx, tx, candidates, done); err != nil {
				return err
			}
		}
		inserted = len(stored)
		for i := range stored {
			c := &stored[i]
			counts[periodKey{c.OrgID, org.PeriodStart(anchors[c.OrgID], c.OccurredAt)}]++
		}
		var err error
		if handed, err = s.writeSegments(ctx, tx, stored); err != nil {
			return err
		}
		if err := s.onClicksStored(ctx, tx, stored); err != nil {
			return err
		}
		if err := s.emitClicks(ctx, tx, stored); err != nil {
			return err
		}

		if len(unstored) > 0 {
			rows := make([]clickUnstoredRow, 0, len(unstored))
			for k, n := range unstored {
				rows = append(rows, clickUnstoredRow{OrgID: k.orgID, Slot: k.slot, Count: n})
			}
			if _, err := tx.NewInsert().Model(&rows).
				On("CONFLICT (org_id, slot) DO UPDATE").
				Set("count = cu.count + EXCLUDED.count").
				Exec(ctx); err != nil {
				return err
			}
		}
		if len(counts) == 0 {
			return nil
		}
		bumps := make([]clickCountRow, 0, len(counts))
		for k, n := range counts {
			bumps = append(bumps, clickCountRow{OrgID: k.orgID, PeriodStart: k.start, Count: n})
		}
		_, err = tx.NewInsert().Model(&bumps).
			On("CONFLICT (org_id, period_start) DO UPDATE").
			Set("count = cc.count + EXCLUDED.count").
			Exec(ctx)
		return err
	})
	if err != nil {
		return 0, nil, s.err("insert clicks", err)
	}
	return inserted, handed, nil
}

// insertedRows reports which of rows the ids returned by an insert stand
// for. A batch may hold one id twice (an SDK tap retried: the tap id is the
// click id), and only one of those rows can have been inserted, so each
// returned id marks the first row with it.
func insertedRows(rows []analytics.Click, ids []uuid.UUID) []bool {
	in := make(map[uuid.UUID]bool, len(ids))
	for _, id := range ids {
		in[id] = true
	}
	done := make([]bool, len(rows))
	for i := range rows {
		if in[rows[i].ID] {
			done[i] = true
			delete(in, rows[i].ID)
		}
	}
	return done
}

// ClickCount implements analytics.Store.
func (s *Store) ClickCount(ctx context.Context, orgID uuid.UUID, periodStart time.Time) (int64, error) {
	var n int64
	err := s.db.NewSelect().Model((*clickCountRow)(nil)).Column("count").
		Where("org_id = ? AND period_start = ?", orgID, periodStart.UTC()).Scan(ctx, &n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, s.err("click count", err)
}

// ClickUsage implements analytics.UsageStore.
func (s *Store) ClickUsage(ctx context.Context, orgID uuid.UUID, at time.Time) (analytics.Usage, error) {
	var o struct {
		MonthlyClickLimit  int64     `bun:"monthly_click_limit"`
		BillingPeriodStart time.Time `bun:"billing_period_start"`
	}
	err := s.db.NewSelect().Table("organizations").Column("monthly_click_limit", "billing_period_start").
		Where("id = ?", orgID).Scan(ctx, &o)
	if err != nil {
		return analytics.Usage{}, s.err("click usage", err)
	}
	u := analytics.Usage{Limit: o.MonthlyClickLimit, PeriodStart: org.PeriodStart(o.BillingPeriodStart, at)}
	u.Count, err = s.ClickCount(ctx, orgID, u.PeriodStart)
	return u, err
}

// writeSegments writes stored, normalized clicks of any organizations, as
// segments in tx: per organization, in (occurred_at, id) order
// (buildSegments). It changes stored: each click gets its segment form
// (segmentClick), which keeps its quarter hour and billing month, and
// their order may change.
func (s *Store) writeSegments(ctx context.Context, tx bun.Tx, stored []analytics.Click) ([]handedSegment, error) {
	if len(stored) == 0 {
		return nil, nil
	}
	one := true
	for i := range stored {
		segmentClick(&stored[i])
		one = one && stored[i].OrgID == stored[0].OrgID
	}
	now := time.Now()
	var handed []handedSegment
	write := func(orgID uuid.UUID, clicks []analytics.Click) error {
		sortClicks(clicks)
		rows, err := buildSegments(orgID, clicks, now)
		if err != nil {
			return err
		}
		h, err := s.insertSegments(ctx, tx, rows)
		handed = append(handed, h...)
		return err
	}
	if one {
		err := write(stored[0].OrgID, stored)
		return handed, err
	}
	byOrg := map[uuid.UUID][]analytics.Click{}
	var orgs []uuid.UUID
	for i := range stored {
		id := stored[i].OrgID
		if _, ok := byOrg[id]; !ok {
			orgs = append(orgs, id)
		}
		byOrg[id] = append(byOrg[id], stored[i])
	}
	for _, id := range orgs {
		if err := write(id, byOrg[id]); err != nil {
			return nil, err
		}
	}
	return handed, nil
}

// ipMarkRow is a row of click_ip_marks: no row of clicks of the
// organization that occurred before ClearedUntil (Unix microseconds)
// carries an IP key. The purge clears the IP keys of the rows from the
// mark on, through the (org_id, occurred_at) index, and moves the mark up
// (ClearClickIPsBefore); a row written later that is older than the mark
// moves it down (lowerIPMarks).
type ipMarkRow struct {
	bun.BaseModel `bun:"table:click_ip_marks,alias:m"`

	OrgID        uuid.UUID `bun:"org_id,pk"`
	ClearedUntil int64     `bun:"cleared_until"`
}

// lowerIPMarks sets, in tx, the IP mark of each organization of the
// inserted rows (done[i] for candidates[i]) that carry an IP key to the
// time of the oldest of them when the mark is later, creating the mark of
// an organization that has none. One statement per organization, in the
// order of their ids. On PostgreSQL the statement always locks the mark's
// row (ON CONFLICT DO UPDATE), until the batch commits: a purge, which
// locks the mark before it reads the rows (ClearClickIPsBefore), either
// reads them after the batch commits or has moved the mark before this
// statement lowers it again.
func (s *Store) lowerIPMarks(ctx context.Context, tx bun.Tx, candidates []analytics.Click, done []bool) error {
	oldest := map[uuid.UUID]int64{}
	for i := range candidates {
		c := &candidates[i]
		if !done[i] || c.IPKey == "" {
			continue
		}
		at := c.OccurredAt.UnixMicro()
		if t, ok := oldest[c.OrgID]; !ok || at < t {
			oldest[c.OrgID] = at
		}
	}
	if len(oldest) == 0 {
		return nil
	}
	rows := make([]ipMarkRow, 0, len(oldest))
	for id, at := range oldest {
		rows = append(rows, ipMarkRow{OrgID: id, ClearedUntil: at})
	}
	slices.SortFunc(rows, func(a, b ipMarkRow) int { return slices.Compare(a.OrgID[:], b.OrgID[:]) })
	least := "min"
	if s.db.Dialect().Name() == dialect.PG {
		least = "LEAST"
	}
	for i := range rows {
		if _, err := tx.NewInsert().Model(&rows[i]).On("CONFLICT (org_id) DO UPDATE").
			Set("cleared_until = " + least + "(m.cleared_until, EXCLUDED.cleared_until)").Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}
