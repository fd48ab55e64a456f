package store

import (
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
)

// The candidate index on SQLite follows click_segments (candidates.go says
// why by rowid): every stored click is in a segment, and a segment is
// rewritten in place (a link's compaction, the IP purge), which keeps its
// rowid. What a click's row alone holds, its claim, is read from the rows
// at a build; later claims are marked as candidates.go says. A segment's
// clicks have millisecond times, so the index holds those.

const (
	// candidateSegmentBatch is how many segments one query of the tail
	// reads: a segment holds up to analytics.MaxSegmentClicks clicks.
	candidateSegmentBatch = 64
	// candidateBuildNowSegments is the size of click_segments, in segments
	// ever written, that the first read builds the index for itself.
	candidateBuildNowSegments = 200
)

// segmentCandidates calls add with the candidates of the clicks of one
// segment that are at or after from.
func segmentCandidates(clicks []analytics.Click, from int64, add func(candidateKey, candidate)) {
	for i := range clicks {
		r := &clicks[i]
		if !isCandidate(r) {
			continue
		}
		c, ok := candidateOf(r.ID, r.LinkID, r.AppID, r.OccurredAt, r.Platform, r.OSVersion, r.DeviceModel, r.UserAgent, r.AcceptLanguage)
		if ok && c.at >= from {
			add(candidateKey{r.OrgID, r.IPKey}, c)
		}
	}
}

// readSegments adds the candidates of every organization with an app from
// the segments up to rowid last that end at or after from, and marks those
// a row says are claimed, stopping once it has more than
// candidateIndexMax.
func (b *candidateBuild) readSegments(ctx context.Context, db bun.IDB, from int64, last int64) error {
	orgs, err := orgsWithApps(ctx, db)
	if err != nil {
		return err
	}
	fromTime := time.Unix(0, from).UTC()
	for _, org := range orgs {
		rows, err := db.NewSelect().TableExpr("click_segments AS cs").Column("cs.data").
			Where("cs.org_id = ? AND cs.last_at >= ? AND cs.rowid <= ?", org, fromTime, last).Rows(ctx)
		if err != nil {
			return err
		}
		err = scanSegmentData(rows, org, func(clicks []analytics.Click) { segmentCandidates(clicks, from, b.add) })
		if err != nil {
			return err
		}
		if b.n > candidateIndexMax {
			return nil
		}
		claimed, err := db.NewSelect().TableExpr("clicks AS c").Column("c.id", "c.ip_key").
			Where("c.org_id = ? AND c.occurred_at >= ? AND c.claimed_by_install IS NOT NULL", org, fromTime).Rows(ctx)
		if err != nil {
			return err
		}
		if err := b.markClaimed(claimed, org); err != nil {
			return err
		}
	}
	return nil
}

// scanSegmentData decodes the segments of organization org that rows
// holds, one column of data each, calling each with their clicks, and
// closes rows.
func scanSegmentData(rows *sql.Rows, org uuid.UUID, each func([]analytics.Click)) error {
	defer rows.Close()
	var data []byte
	for rows.Next() {
		if err := rows.Scan(&data); err != nil {
			return err
		}
		clicks, err := analytics.DecodeSegment(org, data)
		if err != nil {
			return err
		}
		each(clicks)
	}
	return rows.Err()
}

// markClaimed marks claimed the build's candidates of org that rows (id
// and IP key) name, and closes rows.
func (b *candidateBuild) markClaimed(rows *sql.Rows, org uuid.UUID) error {
	defer rows.Close()
	var (
		id  uuid.UUID
		key string
	)
	for rows.Next() {
		if err := rows.Scan(&id, &key); err != nil {
			return err
		}
		cs := b.keys[candidateKey{org, key}]
		for i := range cs {
			if cs[i].id == id {
				cs[i].claimed = true
			}
		}
	}
	return rows.Err()
}

// tailSegments is tail on SQLite: it reads the segments written since the
// last one read.
func (x *candidateIndex) tailSegments(ctx context.Context, from int64) error {
	for {
		rows, err := x.s.db.NewSelect().TableExpr("click_segments AS cs").Column("cs.rowid", "cs.id", "cs.org_id", "cs.data").
			Where("cs.rowid >= ?", x.last).OrderExpr("cs.rowid").Limit(candidateSegmentBatch + 1).Rows(ctx)
		if err != nil {
			return err
		}
		var (
			batch   candidateBatch
			seen    int
			stale   = x.last > 0
			newLast = x.last
			newID   = x.lastID
		)
		err = func() error {
			defer rows.Close()
			var (
				rowid   int64
				id, org uuid.UUID
				data    []byte
			)
			for rows.Next() {
				if err := rows.Scan(&rowid, &id, &org, &data); err != nil {
					return err
				}
				seen++
				if rowid == x.last {
					stale = id != x.lastID
					continue
				}
				clicks, err := analytics.DecodeSegment(org, data)
				if err != nil {
					return err
				}
				newLast, newID = rowid, id
				segmentCandidates(clicks, from, batch.add)
			}
			return rows.Err()
		}()
		if err != nil {
			return err
		}
		if stale {
			x.outOfDate()
			return nil
		}
		x.last, x.lastID = newLast, newID
		x.insertBatch(&batch)
		if seen <= candidateSegmentBatch {
			return nil
		}
	}
}

// handedSegment is a segment this process has just committed: its rowid,
// its id and its clicks.
type handedSegment struct {
	rowid  int64
	id     uuid.UUID
	clicks []analytics.Click
}

// appendedSegments takes the segments this process has just committed
// (InsertClicks on SQLite, in rowid order) straight into the index, when
// they follow the last one read: in a process that records clicks and
// matches installs (hoplink serve), reading its own clicks back through the
// database cost the redirect a third more CPU under the mixed load test.
// Otherwise (another process wrote segments between, or the tail read them
// first) the tail reads them.
func (x *candidateIndex) appendedSegments(segs []handedSegment) {
	if x == nil || len(segs) == 0 {
		return
	}
	_ = x.lockTail(context.Background())
	defer x.unlockTail()
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.ready || segs[0].rowid != x.last+1 {
		return
	}
	for i := range segs {
		x.last, x.lastID = segs[i].rowid, segs[i].id
		segmentCandidates(segs[i].clicks, x.from, x.insert)
	}
	x.giveUpWhenFull()
}

// keyCandidates returns the candidates of organization orgID on key in
// [since, until) in time order, with their claims: from the index when it
// holds that window, otherwise from the organization's segments and the
// claims its rows hold. On SQLite a candidate may have no row, so this is
// what the database holds of a key.
func (s *Store) keyCandidates(ctx context.Context, orgID uuid.UUID, key string, since, until time.Time) ([]candidate, error) {
	q := attribution.KeyQuery{CandidateQuery: attribution.CandidateQuery{OrgID: orgID, IPKey: key, Since: since, Until: until}, BusySince: since}
	// Only an index that a match's key read built answers: started here,
	// it would hold the clicks of whatever window this read asks for.
	if s.candidates.isReady() && s.candidates.use(ctx, &q) {
		return s.candidates.window(orgID, key, since, until), nil
	}
	return s.keyCandidatesFromSegments(ctx, orgID, key, since, until)
}

// isReady reports whether the index is built.
func (x *candidateIndex) isReady() bool {
	if x == nil {
		return false
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.ready
}

// window returns a copy of the index's clicks of org on key in [since,
// until).
func (x *candidateIndex) window(org uuid.UUID, key string, since, until time.Time) []candidate {
	x.mu.RLock()
	defer x.mu.RUnlock()
	cs := x.keys[candidateKey{org, key}]
	return slices.Clone(cs[firstAtOrAfter(cs, since.UnixNano()):firstAtOrAfter(cs, until.UnixNano())])
}

// keyCandidatesFromSegments is keyCandidates read from the database.
func (s *Store) keyCandidatesFromSegments(ctx context.Context, orgID uuid.UUID, key string, since, until time.Time) ([]candidate, error) {
	since, until = since.UTC(), until.UTC()
	rows, err := whereHolding(s.db.NewSelect().TableExpr("click_segments AS cs").Column("cs.data"), orgID, since, until).Rows(ctx)
	if err != nil {
		return nil, err
	}
	lo, hi := since.UnixNano(), until.UnixNano()
	var cs []candidate
	err = scanSegmentData(rows, orgID, func(clicks []analytics.Click) {
		segmentCandidates(clicks, lo, func(k candidateKey, c candidate) {
			if k.ip == key && c.at < hi {
				cs = append(cs, c)
			}
		})
	})
	if err != nil || len(cs) == 0 {
		return nil, err
	}
	var claimed []uuid.UUID
	err = s.db.NewSelect().TableExpr("clicks AS c").Column("c.id").
		Where("c.org_id = ? AND c.occurred_at >= ? AND c.occurred_at < ? AND c.ip_key = ? AND c.claimed_by_install IS NOT NULL",
			orgID, since.Add(-time.Millisecond), until, key).Scan(ctx, &claimed)
	if err != nil {
		return nil, err
	}
	for i := range cs {
		cs[i].claimed = slices.Contains(claimed, cs[i].id)
	}
	slices.SortFunc(cs, func(a, b candidate) int { return a.compare(&b) })
	return cs, nil
}
