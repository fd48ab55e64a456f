package store_test

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// candidateWorld is two organizations whose clicks share IP keys, for the
// candidate index's tests.
type candidateWorld struct {
	s     *store.Store
	c     *clock
	r     *rand.Rand
	now   time.Time
	org   uuid.UUID
	apps  []uuid.UUID
	links []*linking.Link
	// other is the second organization's app link.
	other *linking.Link
	keys  []string
	seq   int
}

func newCandidateWorld(t *testing.T, s *store.Store) *candidateWorld {
	c := newClock()
	w := &candidateWorld{s: s, c: c, r: rand.New(rand.NewSource(1)), now: t0.Add(48 * time.Hour),
		keys: []string{"198.51.100.1", "198.51.100.2", "198.51.100.3", "2001:db8:1:2::/64", "198.51.100.5"}}
	o := createOrg(t, s, c, "acme")
	w.org = o.ID
	for i := range 3 {
		app := createApp(t, s, c, o.ID)
		w.apps = append(w.apps, app)
		for j := range 2 {
			l := newLink(c, o.ID, "hop.example", fmt.Sprintf("a%d-%d", i, j))
			l.AppID = &app
			if j == 1 {
				hours := 2
				l.MatchWindowHours = &hours
			}
			w.links = append(w.links, createLink(t, s, l))
		}
	}
	// A link without an app: its clicks are no candidates.
	w.links = append(w.links, createLink(t, s, newLink(c, o.ID, "hop.example", "plain")))
	other := createOrg(t, s, c, "other")
	otherApp := createApp(t, s, c, other.ID)
	w.other = newLink(c, other.ID, "hop.example", "other")
	w.other.AppID = &otherApp
	createLink(t, s, w.other)
	return w
}

// insert stores n clicks of the last spread before w.now on random links
// and keys, the first key taking half of them (a busy key), with a tenth on
// the other organization's link; every click has a time of its own.
func (w *candidateWorld) insert(t *testing.T, n int, spread time.Duration) []uuid.UUID {
	t.Helper()
	agents := []string{
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
	}
	var clicks []analytics.Click
	for range n {
		w.seq++
		l := w.links[w.r.Intn(len(w.links))]
		if w.r.Intn(10) == 0 {
			l = w.other
		}
		key := w.keys[0]
		if w.r.Intn(2) == 0 {
			key = w.keys[w.r.Intn(len(w.keys))]
		}
		ua := agents[w.r.Intn(len(agents))]
		d := linking.ClassifyDevice(ua)
		at := w.now.Add(-time.Duration(w.r.Int63n(int64(spread)))).Truncate(time.Second).Add(time.Duration(w.seq) * time.Millisecond)
		clicks = append(clicks, analytics.Click{
			ID: testkit.IDAt(at), OrgID: l.OrgID, LinkID: l.ID, AppID: l.AppID, Domain: l.Domain, Slug: l.Slug,
			OccurredAt: at, Source: analytics.SourceRedirect, Platform: string(d.Platform), OS: d.OS,
			OSVersion: d.OSVersion, DeviceModel: d.Model, Browser: d.Browser, IP: addressIn(key), IPKey: key, UserAgent: ua,
			AcceptLanguage: "en-US,en;q=0.9",
		})
	}
	_, err := w.s.InsertClicks(t.Context(), clicks)
	require.NoError(t, err)
	ids := make([]uuid.UUID, len(clicks))
	for i := range clicks {
		ids[i] = clicks[i].ID
	}
	return ids
}

// addressIn is an address whose IP key is key: the key itself for IPv4, an
// address of the /64 for IPv6. A segment derives the key from the address.
func addressIn(key string) string {
	if p, ok := strings.CutSuffix(key, "::/64"); ok {
		return p + "::7"
	}
	return key
}

// query is a key read of the matcher's shape, with bounds small enough
// that the test's busy key is busy.
func (w *candidateWorld) query(key string, app uuid.UUID) attribution.KeyQuery {
	return attribution.KeyQuery{
		CandidateQuery: attribution.CandidateQuery{OrgID: w.org, AppIDs: w.apps, IPKey: key,
			Since: w.now.Add(-24 * time.Hour), Until: w.now.Add(time.Millisecond), Limit: 60},
		AppID: app, BusySince: w.now.Add(-6 * time.Hour), Background: 25,
	}
}

// requireSameAsDatabase checks that every key read of every app is answered
// by the index, and as the database answers it.
func (w *candidateWorld) requireSameAsDatabase(t *testing.T, what string) {
	t.Helper()
	ctx := t.Context()
	busy := 0
	for _, key := range append(w.keys, "203.0.113.99") {
		for i, app := range w.apps {
			for _, limit := range []int{8, 20, 60} {
				q := w.query(key, app)
				q.Limit = limit
				if i == 0 {
					// The contract's reads of some apps, not every one.
					q.AppIDs = w.apps[:2]
				}
				require.True(t, w.s.CandidateIndexReady(ctx, q), what)
				got, err := w.s.KeyClicks(ctx, q)
				require.NoError(t, err)
				want, err := w.s.KeyClicksFromDatabase(ctx, q)
				require.NoError(t, err)
				require.Equal(t, normalRead(want), normalRead(got), "%s: key %s, app %s, limit %d", what, key, app, limit)
				if got.Busy {
					busy++
				}
			}
		}
	}
	require.Positive(t, busy, "%s: a busy key is read", what)
}

// normalRead makes an empty list nil, as either side may return one.
func normalRead(r attribution.KeyRead) attribution.KeyRead {
	if len(r.Clicks) == 0 {
		r.Clicks = nil
	}
	if len(r.Background) == 0 {
		r.Background = nil
	}
	return r
}

// TestCandidateIndexAnswersAsTheDatabase checks that the candidate index
// answers every key read as the database does: when built, after claims of
// this process and of another, after clicks appended (some older than
// those before them), and after the last segments (SQLite) are deleted
// and their rowids written again, or transaction ids go back (PostgreSQL),
// which makes it build itself anew.
func TestCandidateIndexAnswersAsTheDatabase(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, testCandidateIndexAnswersAsTheDatabase)
}

func testCandidateIndexAnswersAsTheDatabase(t *testing.T, s *store.Store) {
	w := newCandidateWorld(t, s)
	ctx := t.Context()
	w.insert(t, 400, 30*time.Hour)
	w.requireSameAsDatabase(t, "built")

	// A read of a window older than the index holds goes to the database.
	old := w.query(w.keys[0], w.apps[0])
	old.Since = old.Since.Add(-3 * time.Hour)
	require.False(t, w.s.CandidateIndexReady(ctx, old), "a window older than the index")

	// A claim by this process, and one by another (written to the row
	// alone), which this process learns when its own claim of it fails.
	read, err := w.s.KeyClicks(ctx, w.query(w.keys[0], w.apps[0]))
	require.NoError(t, err)
	require.True(t, read.Busy)
	require.GreaterOrEqual(t, len(read.Clicks), 2)
	mine, theirs := read.Clicks[0], read.Clicks[1]
	rec, att := candidateInstall(w, mine)
	require.NoError(t, w.s.Claim(ctx, rec, att))
	claimElsewhere(t, w.s, w.org, theirs)
	rec, att = candidateInstall(w, theirs)
	require.ErrorIs(t, w.s.Claim(ctx, rec, att), attribution.ErrClaimed)
	w.requireSameAsDatabase(t, "claimed")
	read, err = w.s.KeyClicks(ctx, w.query(w.keys[0], w.apps[0]))
	require.NoError(t, err)
	require.True(t, read.Clicks[0].Claimed && read.Clicks[1].Claimed, "both claims are seen")

	// Clicks appended after the build, spread over the day, so that many
	// are older than clicks read before.
	w.insert(t, 300, 20*time.Hour)
	w.requireSameAsDatabase(t, "appended")

	// Either the next read or the background tail, whichever comes first,
	// finds the index out of date and has it built again; reads answer as
	// the database does meanwhile.
	builds := w.s.CandidateIndexBuilds()
	if s.Dialect() == "sqlite" {
		// The last segments deleted (with their clicks' rows) and new
		// ones written: their rowids are used again, which the index
		// cannot tell from segments it read.
		var before int64
		require.NoError(t, w.s.DB().QueryRowContext(ctx, "SELECT max(rowid) FROM click_segments").Scan(&before))
		ids := w.insert(t, 10, time.Hour)
		_, err = w.s.DB().ExecContext(ctx, "DELETE FROM click_segments WHERE rowid > ?", before)
		require.NoError(t, err)
		_, err = w.s.DB().NewDelete().Table("clicks").Where("id IN (?)", bun.List(ids)).Exec(ctx)
		require.NoError(t, err)
		w.insert(t, 40, time.Hour)
	} else {
		// Transaction ids that went back (another database behind the
		// DSN).
		w.s.MoveCandidateSnapshot(9_000_000_000_000)
		w.insert(t, 40, time.Hour)
	}
	q := w.query(w.keys[0], w.apps[0])
	got, err := w.s.KeyClicks(ctx, q)
	require.NoError(t, err)
	want, err := w.s.KeyClicksFromDatabase(ctx, q)
	require.NoError(t, err)
	require.Equal(t, normalRead(want), normalRead(got), "while the index is built again")
	require.Eventually(t, func() bool {
		return w.s.CandidateIndexBuilds() > builds && !w.s.CandidateIndexBuilding()
	}, 10*time.Second, 10*time.Millisecond, "built again")
	w.requireSameAsDatabase(t, "built again")

	// A day and a half later, with no read in between, the clicks older
	// than a match's window are dropped, and reads still answer as the
	// database does.
	held := w.s.CandidateIndexClicks()
	w.now = w.now.Add(36 * time.Hour)
	w.insert(t, 50, time.Hour)
	require.Eventually(t, func() bool { return w.s.CandidateIndexClicks() < held }, 10*time.Second, 10*time.Millisecond)
	w.requireSameAsDatabase(t, "old clicks dropped")
}

// claimElsewhere marks click c of organization org claimed in the database
// alone, as another process's claim would: on SQLite, where the click may
// be in its segment alone, by writing its row claimed.
func claimElsewhere(t *testing.T, s *store.Store, org uuid.UUID, c attribution.Click) {
	t.Helper()
	ctx := t.Context()
	install := uuid.Must(uuid.NewV7())
	res, err := s.DB().NewUpdate().Table("clicks").Set("claimed_by_install = ?", install).Where("id = ?", c.ID).Exec(ctx)
	require.NoError(t, err)
	if n, err := res.RowsAffected(); err == nil && n == 1 {
		return
	}
	require.Equal(t, "sqlite", s.Dialect(), "every candidate has a row on PostgreSQL")
	row := map[string]any{
		"id": c.ID, "org_id": org, "link_id": c.LinkID, "app_id": c.AppID, "domain": "", "occurred_at": c.OccurredAt,
		"source": "redirect", "platform": c.Platform, "os": "", "os_version": c.OSVersion, "device_model": c.DeviceModel,
		"browser": "", "in_app_browser": "", "ip_key": c.IPKey, "user_agent": c.UserAgent, "accept_language": c.AcceptLanguage,
		"utm_source": "", "utm_medium": "", "utm_campaign": "", "utm_term": "", "utm_content": "", "claimed_by_install": install,
	}
	_, err = s.DB().NewInsert().Model(&row).TableExpr("clicks").Exec(ctx)
	require.NoError(t, err)
}

// candidateInstall is a probabilistic install that claims c.
func candidateInstall(w *candidateWorld, c attribution.Click) (attribution.InstallRecord, attribution.Attempt) {
	return claimOf(w.org, c.ID, c.LinkID, c.AppID, w.now)
}

// TestCandidateIndexFollowsAnotherProcess checks that the index of one
// store follows the rows another store on the same file writes (as
// hoplink-api follows hoplink-redirect's clicks), and learns the clicks
// the other claims when its own claim of one fails.
func TestCandidateIndexFollowsAnotherProcess(t *testing.T) {
	t.Parallel()
	storetest.SkipUnlessSQLite(t)
	ctx := t.Context()
	file := filepath.Join(t.TempDir(), "hoplink.db")
	matcher, err := store.Open(ctx, file)
	require.NoError(t, err)
	t.Cleanup(func() { _ = matcher.Close() })
	require.NoError(t, matcher.Migrate(ctx))
	recorder, err := store.Open(ctx, file)
	require.NoError(t, err)
	t.Cleanup(func() { _ = recorder.Close() })

	w := newCandidateWorld(t, matcher)
	w.insert(t, 200, 30*time.Hour)
	w.requireSameAsDatabase(t, "built")
	other := *w
	other.s = recorder
	other.insert(t, 300, 20*time.Hour)
	w.seq = other.seq
	w.requireSameAsDatabase(t, "another process's rows")

	read, err := w.s.KeyClicks(ctx, w.query(w.keys[0], w.apps[0]))
	require.NoError(t, err)
	require.NotEmpty(t, read.Clicks)
	rec, att := candidateInstall(w, read.Clicks[0])
	require.NoError(t, recorder.Claim(ctx, rec, att))
	rec, att = candidateInstall(w, read.Clicks[0])
	require.ErrorIs(t, matcher.Claim(ctx, rec, att), attribution.ErrClaimed)
	w.requireSameAsDatabase(t, "another process's claim")
}

// TestCandidateIndexFollowsTransactionsInAnyOrder checks, on PostgreSQL,
// that the index reads the clicks of a transaction that commits after
// later ones (another replica's slow batch), and never those of one rolled
// back: a read that followed the rows by a sequence would have passed the
// slow one's rows for good.
func TestCandidateIndexFollowsTransactionsInAnyOrder(t *testing.T) {
	t.Parallel()
	s := storetest.Postgres(t)
	ctx := t.Context()
	w := newCandidateWorld(t, s)
	w.insert(t, 200, 30*time.Hour)
	w.requireSameAsDatabase(t, "built")

	// copyNewest writes, in tx, a copy of the key's newest click of the
	// first app, a minute before w.now: the key's newest click once
	// committed.
	read, err := s.KeyClicks(ctx, w.query(w.keys[1], w.apps[0]))
	require.NoError(t, err)
	require.NotEmpty(t, read.Clicks)
	copyNewest := func(tx bun.Tx) uuid.UUID {
		id := uuid.Must(uuid.NewV7())
		_, err := tx.ExecContext(ctx, `INSERT INTO clicks (id, org_id, link_id, app_id, domain, occurred_at, source,
			platform, os, os_version, device_model, browser, in_app_browser, ip_key, user_agent, accept_language,
			utm_source, utm_medium, utm_campaign, utm_term, utm_content)
			SELECT ?, org_id, link_id, app_id, domain, ?, source, platform, os, os_version, device_model, browser,
			in_app_browser, ip_key, user_agent, accept_language, utm_source, utm_medium, utm_campaign, utm_term,
			utm_content FROM clicks WHERE id = ?`, id, w.now.Add(-time.Minute), read.Clicks[0].ID)
		require.NoError(t, err)
		return id
	}
	slow, err := s.DB().BeginTx(ctx, nil)
	require.NoError(t, err)
	slowID := copyNewest(slow)
	undone, err := s.DB().BeginTx(ctx, nil)
	require.NoError(t, err)
	copyNewest(undone)

	// Later transactions commit first.
	w.insert(t, 100, 10*time.Hour)
	w.requireSameAsDatabase(t, "later transactions committed, an earlier one still open")
	require.NoError(t, undone.Rollback())
	w.requireSameAsDatabase(t, "a transaction rolled back")
	require.NoError(t, slow.Commit())
	w.requireSameAsDatabase(t, "the earlier transaction committed last")
	read, err = s.KeyClicks(ctx, w.query(w.keys[1], w.apps[0]))
	require.NoError(t, err)
	require.Equal(t, slowID, read.Clicks[0].ID, "the slow transaction's click is the key's newest")
}

// TestFirstKeyReadWaitsForTheIndex checks, on SQLite, that a key read made
// while the candidate index's first build runs in the background (a table
// of more segments than a first read builds for itself) waits for it and
// is answered by it, not by decoding the organization's segments.
func TestFirstKeyReadWaitsForTheIndex(t *testing.T) {
	t.Parallel()
	storetest.SkipUnlessSQLite(t)
	ctx := t.Context()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "hoplink.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, s.Migrate(ctx))
	w := newCandidateWorld(t, s)
	for range store.CandidateBuildNowSegments {
		w.insert(t, 1, 20*time.Hour) // a segment each
	}

	q := w.query(w.keys[0], w.apps[0])
	got, err := s.KeyClicks(ctx, q)
	require.NoError(t, err)
	require.Zero(t, s.SegmentKeyReads(), "answered by the index")
	require.Equal(t, 1, s.CandidateIndexBuilds())
	want, err := s.KeyClicksFromDatabase(ctx, q)
	require.NoError(t, err)
	require.NotEmpty(t, want.Clicks)
	require.Equal(t, normalRead(want), normalRead(got))
}
