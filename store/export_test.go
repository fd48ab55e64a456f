package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
)

// IsCandidate is isCandidate: whether the store keeps c as a row that
// attribution reads (an install can be attributed to it).
func IsCandidate(c *analytics.Click) bool { return isCandidate(c) }

// CountClicks counts organization orgID's stored clicks in w that pass f,
// through scanClicks, for the external tests of the filters.
func (s *Store) CountClicks(ctx context.Context, orgID uuid.UUID, w analytics.Window, f analytics.Filter) (int, error) {
	n := 0
	err := s.scanClicks(ctx, orgID, w, f, nil, func(*analytics.Click) error { n++; return nil })
	return n, err
}

// ScanClicks is scanClicks, collecting the clicks, for the external tests.
func (s *Store) ScanClicks(ctx context.Context, orgID uuid.UUID, w analytics.Window, f analytics.Filter, createdBy *uuid.UUID) ([]analytics.Click, error) {
	var out []analytics.Click
	err := s.scanClicks(ctx, orgID, w, f, createdBy, func(c *analytics.Click) error { out = append(out, *c); return nil })
	return out, err
}

// AllTime is a window that holds every click of the tests.
var AllTime = analytics.Window{From: time.Unix(0, 0).UTC(), To: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}

// StoredClicks returns every click of orgID's segments, those of deleted
// links included, in (occurred_at, id) order.
func (s *Store) StoredClicks(ctx context.Context, orgID uuid.UUID) ([]analytics.Click, error) {
	var rows []segmentRow
	if err := s.db.NewSelect().Model(&rows).Where("cs.org_id = ?", orgID).OrderExpr("cs.first_at, cs.id").Scan(ctx); err != nil {
		return nil, err
	}
	var out []analytics.Click
	for i := range rows {
		clicks, err := decodeSegment(&rows[i])
		if err != nil {
			return nil, err
		}
		out = append(out, clicks...)
	}
	sortClicks(out)
	return out, nil
}

// Segment is a segment's metadata, for the external tests.
type Segment struct {
	FirstAt, LastAt time.Time
	Clicks          int
	HasIPs          bool
}

// Segments returns orgID's segments in (first_at, id) order.
func (s *Store) Segments(ctx context.Context, orgID uuid.UUID) ([]Segment, error) {
	var rows []segmentRow
	if err := s.db.NewSelect().Model(&rows).Column("cs.first_at", "cs.last_at", "cs.clicks", "cs.has_ips").
		Where("cs.org_id = ?", orgID).OrderExpr("cs.first_at, cs.id").Scan(ctx); err != nil {
		return nil, err
	}
	out := make([]Segment, len(rows))
	for i, r := range rows {
		out[i] = Segment{FirstAt: r.FirstAt.UTC(), LastAt: r.LastAt.UTC(), Clicks: r.Clicks, HasIPs: r.HasIPs}
	}
	return out, nil
}

// ExportPage returns the next limit clicks of scope after after, through
// ScanExportClicks, for the external tests of resuming.
func (s *Store) ExportPage(ctx context.Context, scope analytics.ExportScope, after *analytics.ExportPosition, limit int) ([]analytics.ExportClick, error) {
	var out []analytics.ExportClick
	err := s.ScanExportClicks(ctx, scope, after, func(c *analytics.ExportClick) error {
		out = append(out, *c)
		if len(out) == limit {
			return errStopScan
		}
		return nil
	})
	return out, err
}

// SeedLinkRollups writes, for each of links, a day row and hours hour rows
// of each of the days days before before, each counting one click of one
// value per dimension: the link rollups a store holds after weeks of many
// links' traffic, written directly (counting that many clicks would take
// the benchmarks longer than what they measure).
func (s *Store) SeedLinkRollups(ctx context.Context, orgID uuid.UUID, links []uuid.UUID, days, hours int, before time.Time) error {
	r := &analytics.LinkRollup{}
	for _, d := range linkRollupDims {
		r.Dims = append(r.Dims, analytics.LinkRollupDim{Dim: d, Values: []analytics.LinkRollupValue{{Value: "seed", Clicks: 1}}})
	}
	data, err := analytics.EncodeLinkRollup(nil, r)
	if err != nil {
		return err
	}
	end := before.UTC().Unix() / linkRollupDay * linkRollupDay
	rows := make([]linkRollupRow, 0, 1000)
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		_, err := s.db.NewInsert().Model(&rows).Exec(ctx)
		rows = rows[:0]
		return err
	}
	for day := end - int64(days)*linkRollupDay; day < end; day += linkRollupDay {
		for _, link := range links {
			rows = append(rows, linkRollupRow{OrgID: orgID, LinkID: link, Span: linkRollupDay, Start: day, Data: data})
			for h := range hours {
				rows = append(rows, linkRollupRow{OrgID: orgID, LinkID: link, Span: linkRollupHour, Start: day + int64(h*24/hours)*linkRollupHour, Data: data})
			}
			if len(rows) >= 1000 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// KeyClicksFromDatabase is KeyClicks as the database answers it, without
// the candidate index.
func (s *Store) KeyClicksFromDatabase(ctx context.Context, q attribution.KeyQuery) (attribution.KeyRead, error) {
	if s.Dialect() == "pg" {
		return s.keyClicksPG(ctx, q)
	}
	return s.keyClicksSQLite(ctx, q)
}

// CandidateIndexReady reports whether the candidate index answers key
// reads, after reading the rows appended since its last read as a match
// would; q is a read of the window the test asks for.
func (s *Store) CandidateIndexReady(ctx context.Context, q attribution.KeyQuery) bool {
	return s.candidates.use(ctx, &q)
}

// CandidateIndexBuilding reports whether the candidate index is being built
// again (a read found it out of date).
func (s *Store) CandidateIndexBuilding() bool {
	s.candidates.mu.RLock()
	defer s.candidates.mu.RUnlock()
	return !s.candidates.ready
}

// MoveCandidateSnapshot sets the xmax of the candidate index's last
// snapshot on PostgreSQL, as if it had been read from another database.
func (s *Store) MoveCandidateSnapshot(xmax uint64) {
	_ = s.candidates.lockTail(context.Background())
	defer s.candidates.unlockTail()
	s.candidates.xmax = xmax
}

// CandidateIndexBuilds is how many times the candidate index was built.
func (s *Store) CandidateIndexBuilds() int {
	s.candidates.mu.RLock()
	defer s.candidates.mu.RUnlock()
	return s.candidates.builds
}

// CandidateIndexClicks is how many clicks the candidate index holds.
func (s *Store) CandidateIndexClicks() int {
	s.candidates.mu.RLock()
	defer s.candidates.mu.RUnlock()
	return s.candidates.n
}

// SegmentKeyReads is how many key reads were answered by decoding
// segments rather than by the candidate index.
func (s *Store) SegmentKeyReads() int64 { return s.segmentKeyReads.Load() }

// CandidateBuildNowSegments is the size of click_segments past which the
// candidate index's first build runs in the background.
const CandidateBuildNowSegments = candidateBuildNowSegments
