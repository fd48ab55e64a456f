package scaledata

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
)

// Days is how many days before the load's end the clicks span.
const Days = 90

// Batch is how many clicks one Store.InsertClicks call writes: the
// recorder's merged batch under load.
const Batch = 10_000

// Config is the organization Load creates.
type Config struct {
	// Slug and Name are the organization's; the slug finds a loaded
	// organization again (FindOrg).
	Slug, Name string
	// Links is how many links the organization has (at least 2): a third
	// on each of its two apps, the rest web-only, the i-th with slug
	// "l%04d" of i.
	Links int
	// Clicks is how many clicks are spread over the Days days before the
	// load's end.
	Clicks int
	// Link, when not nil, completes the i-th link before it is written
	// (its name, tags, state...); the address, destination and app are
	// set already and must stay.
	Link func(i int, l *linking.Link)
	// Logf, when not nil, is told the load's progress and rate.
	Logf func(format string, args ...any)
}

// World is a loaded organization.
type World struct {
	Org *org.Organization
	// End is when the clicks' days end: the load's "now", also the
	// organization's creation time.
	End   time.Time
	Apps  []*linking.App
	Links []*linking.Link
}

func (c Config) logf(format string, args ...any) {
	if c.Logf != nil {
		c.Logf(format, args...)
	}
}

// Load creates in s an organization of the Scale plan with cfg.Links links
// (two apps, a third of the links on each, the rest web-only) and
// cfg.Clicks clicks over the Days days before now, written through
// Store.InsertClicks in batches of Batch, day by day in time order as the
// recorder writes them. The clicks are skewed as real traffic is: a Zipf
// draw over links (the first link created has the most), 40 countries with
// a heavy head, iPhone, Android and desktop a third each, a few UTM sources
// and campaigns, a daily cycle. The links are written by
// Store.BulkInsertLinks: CreateLink, one transaction each, takes most of an
// hour for 100,000 links on PostgreSQL.
//
// After the load, SQLite's write-ahead log is checkpointed into the
// database and PostgreSQL's grown tables are vacuumed and analyzed, as the
// database would do over time.
func Load(ctx context.Context, s *store.Store, cfg Config) (*World, error) {
	if cfg.Links < 2 {
		return nil, fmt.Errorf("scaledata: %d links, want at least 2", cfg.Links)
	}
	end := time.Now().UTC().Truncate(time.Minute)
	o := &org.Organization{ID: uuid.Must(uuid.NewV7()), Name: cfg.Name,
		Slug: cfg.Slug, Plan: org.PlanScale, MonthlyClickLimit: 1 << 40,
		BillingPeriodStart: end.Add(-Days * 24 * time.Hour), CreatedAt: end, UpdatedAt: end}
	if err := s.CreateOrganization(ctx, o, nil); err != nil {
		return nil, err
	}
	w := &World{Org: o, End: end}
	for i := range 2 {
		handle := fmt.Sprintf("bench-app-%d", i)
		a := &linking.App{ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, Name: handle, Handle: handle,
			LinkDomain: handle + ".hop.example", DefaultLinkDomain: handle + ".hop.example", CreatedAt: end, UpdatedAt: end}
		if err := s.CreateApp(ctx, a, 1000); err != nil {
			return nil, err
		}
		w.Apps = append(w.Apps, a)
	}
	w.Links = make([]*linking.Link, cfg.Links)
	for i := range w.Links {
		l := &linking.Link{ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, Domain: "hop.example", Slug: fmt.Sprintf("l%04d", i),
			DestinationURL: fmt.Sprintf("https://example.com/p/%d", i), IsActive: true, Tags: []string{}, CreatedAt: end, UpdatedAt: end}
		if a := i % 3; a < len(w.Apps) {
			l.AppID, l.Domain = &w.Apps[a].ID, w.Apps[a].LinkDomain
		}
		if cfg.Link != nil {
			cfg.Link(i, l)
		}
		w.Links[i] = l
	}
	started := time.Now()
	if err := s.BulkInsertLinks(ctx, w.Links); err != nil {
		return nil, err
	}
	cfg.logf("%s: created %d links in %s", s.Dialect(), len(w.Links), time.Since(started).Round(time.Millisecond))
	if err := loadClicks(ctx, s, w, cfg); err != nil {
		return nil, err
	}
	if s.Dialect() == "sqlite" {
		// Fold the load's write-ahead log into the database, as a
		// checkpoint would over time.
		_, err := s.DB().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
		return w, err
	}
	// What autovacuum does to the tables that grew: the visibility map and
	// the statistics.
	for _, table := range []string{"links", "clicks", "click_rollup_slots", "click_rollup_dims", "click_rollup_dim_hours", "click_rollup_dim_days"} {
		if _, err := s.DB().ExecContext(ctx, "VACUUM ANALYZE "+table); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// loadClicks writes cfg.Clicks clicks of w's links, day by day.
func loadClicks(ctx context.Context, s *store.Store, w *World, cfg Config) error {
	n := cfg.Clicks
	g := newGenerator(w.Links)
	started := time.Now()
	first := w.End.Add(-Days * 24 * time.Hour)
	loaded := 0
	for d := range Days + 1 {
		// The window starts inside a UTC day: the first and last days are
		// partial, and the clicks are spread over the window evenly.
		dayStart := first.Truncate(24 * time.Hour).Add(time.Duration(d) * 24 * time.Hour)
		from, to := dayStart, dayStart.Add(24*time.Hour)
		if from.Before(first) {
			from = first
		}
		if to.After(w.End) {
			to = w.End
		}
		if !from.Before(to) {
			continue
		}
		want := int(math.Round(float64(n) * to.Sub(first).Seconds() / w.End.Sub(first).Seconds()))
		clicks := g.dayWithin(w.Org.ID, dayStart, from, to, want-loaded)
		for len(clicks) > 0 {
			k := min(Batch, len(clicks))
			stored, err := s.InsertClicks(ctx, clicks[:k])
			if err != nil {
				return err
			}
			if stored != k {
				return fmt.Errorf("scaledata: %d of %d clicks stored", stored, k)
			}
			clicks = clicks[k:]
			loaded += k
		}
		if d%10 == 0 {
			el := time.Since(started)
			cfg.logf("%s: %d of %d clicks loaded in %s (%.0f clicks/s)", s.Dialect(), loaded, n, el.Round(time.Second),
				float64(loaded)/el.Seconds())
		}
	}
	el := time.Since(started)
	cfg.logf("%s: loaded %d clicks in %s: %.0f clicks/s", s.Dialect(), loaded, el.Round(time.Second), float64(loaded)/el.Seconds())
	return nil
}

// FindOrg returns the organization of s with slug, or nil when there is
// none.
func FindOrg(ctx context.Context, s *store.Store, slug string) (*org.Organization, error) {
	orgs, err := s.ListOrganizations(ctx)
	if err != nil {
		return nil, err
	}
	for i := range orgs {
		if orgs[i].Slug == slug {
			return &orgs[i], nil
		}
	}
	return nil, nil
}
