//go:build unix

package store_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/store"
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
		tap_id, claimed_by_install)`
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
	b.Run("bare-table", func(b *testing.B) { run(b, bare) })
}

const benchDesktopUA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"

// processCPU is the CPU time the process has used, user and system.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
