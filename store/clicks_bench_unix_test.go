//go:build unix

package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// BenchmarkInsertClicksFile writes batches of 500 desktop clicks into a
// SQLite file under WAL, as serve does, and reports the CPU time of the
// process per row ("cpu-µs/row", user and system, so that it counts the
// writes' system calls too). "schema" is the clicks table as migrated;
// "bare-table" replaces it with a table of the same columns without a key,
// an index or a constraint, the least any row-per-click store can write,
// so that the difference is what the keys, indexes and foreign keys cost.
func BenchmarkInsertClicksFile(b *testing.B) {
	const bare = `DROP TABLE clicks; CREATE TABLE clicks (id, org_id, link_id, app_id, domain, slug,
		occurred_at, source, platform, os, os_version, device_model, browser, in_app_browser, ip, ip_key,
		user_agent, accept_language, referer, utm_source, utm_medium, utm_campaign, utm_term, utm_content,
		tap_id, claimed_by_install, country, region, city)`
	run := func(b *testing.B, replace string) {
		ctx, c := b.Context(), newClock()
		s, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
		require.NoError(b, err)
		b.Cleanup(func() { _ = s.Close() })
		require.NoError(b, s.Migrate(ctx))
		if replace != "" {
			for _, q := range strings.Split(replace, ";") {
				_, err := s.DB().ExecContext(ctx, q)
				require.NoError(b, err)
			}
		}
		o := createOrg(b, s, c, "acme")
		l := createLink(b, s, newLink(c, o.ID, "hop.example", "spring"))
		batch := make([]analytics.Click, 500)
		b.ReportAllocs()
		before := processCPU(b)
		for b.Loop() {
			for i := range batch {
				batch[i] = newClick(l, c.next())
				batch[i].Platform, batch[i].OS, batch[i].OSVersion, batch[i].DeviceModel = "desktop", "macOS", "10.15.7", ""
				batch[i].Browser, batch[i].UserAgent = "Chrome", benchDesktopUA
			}
			n, err := s.InsertClicks(ctx, batch)
			if err != nil || n != len(batch) {
				b.Fatal(n, err)
			}
		}
		b.ReportMetric(float64((processCPU(b)-before).Microseconds())/float64(b.N*len(batch)), "cpu-µs/row")
	}
	b.Run("schema", func(b *testing.B) { run(b, "") })
	for _, v := range storeVariants {
		b.Run("store-"+v.name, func(b *testing.B) {
			s, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
			require.NoError(b, err)
			b.Cleanup(func() { _ = s.Close() })
			require.NoError(b, s.Migrate(b.Context()))
			benchStore(b, s, v.platforms)
		})
		b.Run("store-pg-"+v.name, func(b *testing.B) { benchStore(b, storetest.Postgres(b), v.platforms) })
	}
	// What the (org_id, occurred_at) index, which the purge reads, costs a
	// candidate row, measured by dropping it (the (link_id, occurred_at)
	// index, which a link's cascade read, is gone since migration
	// 20261202000001).
	b.Run("store-iphone-without-org-and-link-indexes", func(b *testing.B) {
		s, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
		require.NoError(b, err)
		b.Cleanup(func() { _ = s.Close() })
		require.NoError(b, s.Migrate(b.Context()))
		for _, idx := range []string{"clicks_link_id_occurred_at_idx", "clicks_org_id_occurred_at_idx"} {
			_, err := s.DB().ExecContext(b.Context(), "DROP INDEX IF EXISTS "+idx)
			require.NoError(b, err)
		}
		benchStore(b, s, []string{"ios"})
	})
	b.Run("bare-table", func(b *testing.B) { run(b, bare) })
	b.Run("segment-row", func(b *testing.B) { benchSegmentRow(b, json.Marshal, false) })
	b.Run("segment-row-write-only", func(b *testing.B) { benchSegmentRow(b, json.Marshal, true) })
	b.Run("segment-row-columnar", func(b *testing.B) {
		benchSegmentRow(b, func(v any) ([]byte, error) { return analytics.EncodeSegment(nil, v.([]analytics.Click)) }, false)
	})
}

// storeVariants are the batches benchStore writes to a link with an app:
// desktop visitors only (no click is a row of clicks, each is in the
// batch's segment), iPhone, Android and desktop visitors a third each
// (two thirds are rows too), and iPhone visitors only (every click a row
// and in the segment: what the store costs at most).
var storeVariants = []struct {
	name      string
	platforms []string
}{
	{"desktop", []string{"desktop"}},
	{"mixed", []string{"ios", "android", "desktop"}},
	{"iphone", []string{"ios"}},
}

// benchStore writes batches of 500 clicks of the given platforms, in turn,
// on a link with an app through InsertClicks, and reports the CPU time of
// the process per click ("cpu-µs/row": the whole work on SQLite; on
// PostgreSQL the client's share only, the server's being another process)
// and the wall time per click ("wall-µs/row").
func benchStore(b *testing.B, s *store.Store, platforms []string) {
	ctx, c := b.Context(), newClock()
	o := createOrg(b, s, c, "acme")
	app := benchApp(b, s, c, o.ID)
	l := newLink(c, o.ID, app.LinkDomain, "spring")
	l.AppID = &app.ID
	createLink(b, s, l)
	agents := map[string][4]string{
		"desktop": {"macOS", "10.15.7", "", benchDesktopUA},
		"ios":     {"iOS", "18.6", "iPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1"},
		"android": {"Android", "15", "Pixel 8", "Mozilla/5.0 (Linux; Android 15; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36"},
	}
	batch := make([]analytics.Click, 500)
	b.ReportAllocs()
	before, began := processCPU(b), time.Now()
	for b.Loop() {
		for i := range batch {
			p := platforms[i%len(platforms)]
			a := agents[p]
			batch[i] = newClick(l, c.next())
			batch[i].Platform, batch[i].OS, batch[i].OSVersion, batch[i].DeviceModel, batch[i].UserAgent = p, a[0], a[1], a[2], a[3]
			batch[i].IP = fmt.Sprintf("198.51.%d.%d", i/250, i%250)
		}
		n, err := s.InsertClicks(ctx, batch)
		if err != nil || n != len(batch) {
			b.Fatal(n, err)
		}
	}
	clicks := float64(b.N * len(batch))
	b.ReportMetric(float64((processCPU(b)-before).Microseconds())/clicks, "cpu-µs/row")
	b.ReportMetric(float64(time.Since(began).Microseconds())/clicks, "wall-µs/row")
}

// benchApp creates an app of orgID.
func benchApp(b *testing.B, s *store.Store, c *clock, orgID uuid.UUID) *linking.App {
	at := c.next()
	id := uuid.Must(uuid.NewV7())
	handle := "bench-" + id.String()[24:]
	a := &linking.App{ID: id, OrgID: orgID, Name: "Bench", Handle: handle, LinkDomain: handle + ".hop.example",
		DefaultLinkDomain: handle + ".hop.example", CreatedAt: at, UpdatedAt: at}
	require.NoError(b, s.CreateApp(b.Context(), a, 1000))
	return a
}

// benchSegmentRow is the batch-per-row design issue 15 weighs: a batch of
// 500 clicks is encoded as one payload (JSON, or analytics.EncodeSegment's
// columnar segment) and written as one row of a table keyed by
// (org_id, id), with the organization's monthly counter bumped in the same
// transaction, as InsertClicks does. Its CPU time per click is what storing
// every click would cost if nothing else were written per click. With
// writeOnly the payload is encoded once, before the loop, so that the
// figure is the database's share alone.
func benchSegmentRow(b *testing.B, encode func(any) ([]byte, error), writeOnly bool) {
	ctx, c := b.Context(), newClock()
	s, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	require.NoError(b, err)
	b.Cleanup(func() { _ = s.Close() })
	require.NoError(b, s.Migrate(ctx))
	_, err = s.DB().ExecContext(ctx, `CREATE TABLE click_segments (org_id TEXT NOT NULL, id TEXT NOT NULL,
		first_at TEXT NOT NULL, clicks INTEGER NOT NULL, payload BLOB NOT NULL, PRIMARY KEY (org_id, id)) WITHOUT ROWID`)
	require.NoError(b, err)
	o := createOrg(b, s, c, "acme")
	l := createLink(b, s, newLink(c, o.ID, "hop.example", "spring"))
	batch := make([]analytics.Click, 500)
	fill := func() []byte {
		for i := range batch {
			batch[i] = newClick(l, c.next())
			batch[i].Platform, batch[i].OS, batch[i].OSVersion, batch[i].DeviceModel = "desktop", "macOS", "10.15.7", ""
			batch[i].Browser, batch[i].UserAgent = "Chrome", benchDesktopUA
			batch[i].Normalize()
		}
		payload, err := encode(batch)
		require.NoError(b, err)
		return payload
	}
	payload := fill()
	b.ReportAllocs()
	before := processCPU(b)
	for b.Loop() {
		if writeOnly {
			batch[0].ID, batch[0].OccurredAt = uuid.Must(uuid.NewV7()), c.next()
		} else {
			payload = fill()
		}
		err := s.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO click_segments VALUES (?, ?, ?, ?, ?)`,
				o.ID.String(), batch[0].ID.String(), batch[0].OccurredAt, len(batch), payload); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO click_counts (org_id, period_start, count) VALUES (?, ?, ?)
				ON CONFLICT (org_id, period_start) DO UPDATE SET count = click_counts.count + excluded.count`,
				o.ID.String(), o.BillingPeriodStart, len(batch))
			return err
		})
		require.NoError(b, err)
	}
	b.ReportMetric(float64((processCPU(b)-before).Microseconds())/float64(b.N*len(batch)), "cpu-µs/row")
	b.ReportMetric(float64(len(payload))/float64(len(batch)), "payload-B/row")
}

const benchDesktopUA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"

// processCPU is the CPU time the process has used, user and system.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
