package store

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unique"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/attribution"
)

// The candidate index answers attribution's read of an IP key (KeyClicks)
// from memory. The key's read was most of a match's time: a
// carrier NAT address has about a thousand clicks a day, and counting them,
// reading the app's clicks of six hours and a background sample through the
// (app_id, platform, ip_key, occurred_at) index took 3 to 5 ms through the
// pure-Go driver (BENCHMARKS.md, "Where a match's time goes"); in memory it
// is a map lookup and a copy.
//
// The database stays what every process reads (docs/decisions.md, "Click
// store"): the index is a copy, built in the process that matches, from the
// clicks of the last day, and kept up to date by reading those written
// since. On SQLite it follows click_segments by rowid
// (candidates_segments.go): SQLite gives a row of a rowid table the
// largest rowid plus one, and its one writer commits rows in that order, so
// the segments after the last one read are those written since, whichever
// process wrote them. A rowid is reused only when the table's last rows are
// deleted, and VACUUM may renumber them; both change what the last segment
// read holds, so every read checks it first and, when it changed, the index
// is built again while the database answers in its place.
//
// PostgreSQL has no such order: several replicas write clicks, and
// transactions commit in any order, so a sequence's values would not do
// either. Each row carries the id of the transaction that wrote it (txid,
// migration 20261203000007), and the index keeps the last read's snapshot:
// the rows of transactions at or after its xmax, or in progress then, are
// exactly the rows committed since. One statement takes its own snapshot
// and reads those rows (candidateTailPG); the build reads in one
// repeatable-read transaction and starts from its snapshot.
//
// Before every key read the index reads what was written since its last
// read, so a match sees every click committed before it began, as the
// database would show it. On SQLite the segments the process's own click
// writer commits are handed to it directly (appendedSegments), not read
// back. Clicks of a link deleted since they were read stay until they are
// a day old: the matcher drops them as candidates (KeyClicks reads the links' windows), and they
// still count among the devices behind the address. A claim made by this
// process marks its clicks at once; one made by another process (two
// servers on one file, or another replica) is seen when this process's
// claim of the same click fails, which marks it too, and the matcher then
// tries again without it.
//
// The index holds the clicks of links with an app (only those are
// candidates), from an hour before the latest read's window (the window of
// a server's start, at first; evict); KeyClicks of an older window, and
// any read while the index is being built again, go to the database (on
// SQLite a read waits for the first build: KeyClicks). Its memory
// is about 160 bytes a click plus the distinct user agents; past
// candidateIndexMax clicks it gives up and the database answers every
// read.
const (
	// candidateIndexMax bounds the clicks the index holds.
	candidateIndexMax = 20_000_000
	// candidateTailEvery is how often the index reads new rows when no
	// match asks for it, so that a match's own read stays short.
	candidateTailEvery = 250 * time.Millisecond
	// candidateSlack is how much older than a window's start the index
	// keeps clicks, and how long clicks may be held before they are
	// dropped.
	candidateSlack = time.Hour
	// candidateBuildWait is how long a key read on SQLite waits for the
	// index's first build (KeyClicks).
	candidateBuildWait = 10 * time.Second
	// candidateBuildNow is the size of a clicks table on PostgreSQL, in
	// rows, that the first read builds the index for itself.
	candidateBuildNow = 50_000
)

// candidateKey is an organization's IP key.
type candidateKey struct {
	org uuid.UUID
	ip  string
}

// candidate is a click as the index holds it: the fields KeyClicks returns,
// its strings interned.
type candidate struct {
	id, link, app uuid.UUID
	// at is the click's time in nanoseconds since the epoch.
	at                                          int64
	platform, osVersion, model, agent, language unique.Handle[string]
	claimed                                     bool
}

// candidateOf is the click whose row holds these values as the index
// holds it, and whether it is a candidate: a click of a link with an app,
// on a platform the matcher reads. A click that is not has only its id.
func candidateOf(id, link uuid.UUID, app *uuid.UUID, at time.Time, platform, osVersion, model, agent, language string) (candidate, bool) {
	if app == nil || !slices.Contains(clickPlatforms, platform) {
		return candidate{id: id}, false
	}
	return candidate{
		id: id, link: link, app: *app,
		// A row holds the time to the microsecond (sqliteTimeFormat).
		at:       at.UTC().Truncate(time.Microsecond).UnixNano(),
		platform: unique.Make(platform), osVersion: unique.Make(osVersion),
		model: unique.Make(model), agent: unique.Make(agent), language: unique.Make(language),
	}, true
}

// compare orders candidates by time, then id, as the database orders them.
func (c *candidate) compare(d *candidate) int {
	if n := cmp.Compare(c.at, d.at); n != 0 {
		return n
	}
	return bytes.Compare(c.id[:], d.id[:])
}

func (c *candidate) click(ip string) attribution.Click {
	app := c.app
	return attribution.Click{
		ID: c.id, LinkID: c.link, AppID: &app, OccurredAt: time.Unix(0, c.at).UTC(),
		Platform: c.platform.Value(), OSVersion: c.osVersion.Value(), DeviceModel: c.model.Value(),
		UserAgent: c.agent.Value(), AcceptLanguage: c.language.Value(), IPKey: ip, Claimed: c.claimed,
	}
}

// candidateIndex is the index; see the comment above.
type candidateIndex struct {
	s *Store

	// pg is set on PostgreSQL, where the index follows the rows by the
	// transaction that wrote them instead of by rowid.
	pg bool

	// tailMu is held by the one goroutine that reads new rows or builds
	// (lockTail), as a one-slot channel: a match waits for it no longer
	// than its deadline, while the index's own goroutine, whose reads have
	// none, may hold it for the driver's read timeout (ten seconds) on a
	// database that stops answering.
	tailMu chan struct{}
	// last is the rowid of the last row read and lastID its id (SQLite);
	// xmax and xip are the last read's snapshot (PostgreSQL): the rows of
	// transactions at or after xmax, or in xip (in progress then), are the
	// only ones committed since. Read and written under tailMu.
	last   int64
	lastID uuid.UUID
	xmax   uint64
	xip    []string

	mu    sync.RWMutex
	keys  map[candidateKey][]candidate
	ready bool
	// off is set when the index gave up for good (too many clicks).
	off bool
	// from is where the clicks held start, in nanoseconds; want is where
	// the windows asked for start, less candidateSlack; newest is the
	// time of the newest click held.
	from, want, newest int64
	n                  int
	// builds counts the builds put in place.
	builds int

	start sync.Once
	stop  func()
	// firstBuilt is closed once the first build is in place, or the index
	// gave up or was closed before it (markFirstBuilt).
	firstBuilt     chan struct{}
	firstBuiltOnce sync.Once
}

func newCandidateIndex(s *Store) *candidateIndex {
	return &candidateIndex{s: s, pg: s.Dialect() == "pg", keys: map[candidateKey][]candidate{}, firstBuilt: make(chan struct{}),
		tailMu: make(chan struct{}, 1)}
}

// lockTail takes tailMu, waiting no longer than ctx; unlockTail releases it.
func (x *candidateIndex) lockTail(ctx context.Context) error {
	select {
	case x.tailMu <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (x *candidateIndex) unlockTail() { <-x.tailMu }

// markFirstBuilt releases the reads waiting for the first build.
func (x *candidateIndex) markFirstBuilt() {
	x.firstBuiltOnce.Do(func() { close(x.firstBuilt) })
}

// waitFirstBuild waits, up to candidateBuildWait or ctx's end, for the
// index's first build when a read started it and it is running, and
// reports whether it waited for one that ended.
func (x *candidateIndex) waitFirstBuild(ctx context.Context) bool {
	if x == nil {
		return false
	}
	select {
	case <-x.firstBuilt:
		return false // built before: the index declined the read for another reason
	default:
	}
	t := time.NewTimer(candidateBuildWait)
	defer t.Stop()
	select {
	case <-x.firstBuilt:
		return true
	case <-ctx.Done():
	case <-t.C:
	}
	return false
}

// close stops the index's goroutine, if it started, and waits for it.
func (x *candidateIndex) close() {
	x.start.Do(func() {}) // a later read starts nothing
	if x.stop != nil {
		x.stop()
	}
	x.markFirstBuilt()
}

// use reports whether the index answers q, having read the rows appended
// since its last read. The first call starts the index's goroutine, which
// builds it; until it is built, use reports false.
func (x *candidateIndex) use(ctx context.Context, q *attribution.KeyQuery) bool {
	since := q.Since.Add(-candidateSlack).UnixNano()
	x.start.Do(func() { x.run(ctx, since) })
	x.mu.RLock()
	ok := x.ready && q.Since.UnixNano() >= x.from && q.BusySince.UnixNano() >= x.from
	moved := since > x.want
	x.mu.RUnlock()
	if moved {
		x.mu.Lock()
		x.want = max(x.want, since)
		x.mu.Unlock()
	}
	if !ok {
		return false
	}
	if err := x.tail(ctx); err != nil {
		return false
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.ready
}

// run starts the goroutine that builds the index from the clicks at or
// after from and then reads new rows every candidateTailEvery, building it
// again whenever a read finds it out of date, until close. A table of fewer
// than candidateBuildNow rows is read at once, by the caller: a small
// database (a new deployment, a test's) is answered from memory from its
// first read.
func (x *candidateIndex) run(ctx context.Context, from int64) {
	x.want = from
	// SQLite's rows ever written; PostgreSQL's estimate of the rows there,
	// -1 (taken as none) before the table was first analysed.
	size, small := "SELECT coalesce(max(rowid), 0) FROM click_segments", int64(candidateBuildNowSegments)
	if x.pg {
		size, small = "SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = 'clicks'::regclass", candidateBuildNow
	}
	var rows int64
	err := x.s.db.QueryRowContext(ctx, size).Scan(&rows)
	if err == nil && rows < small {
		_ = x.build(ctx)
	}
	x.loop()
}

// prepare starts the index's goroutine for the clicks at or after from,
// unless a read started it already, and returns once the index is built.
func (x *candidateIndex) prepare(ctx context.Context, from int64) error {
	x.start.Do(func() {
		x.want = from
		x.loop()
	})
	return x.build(ctx)
}

// loop starts the goroutine of run.
func (x *candidateIndex) loop() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(candidateTailEvery)
		defer t.Stop()
		for {
			x.mu.RLock()
			ready, off := x.ready, x.off
			x.mu.RUnlock()
			switch {
			case off:
				return
			case !ready:
				// A build that fails (the database unreachable) is tried
				// again at the next tick.
				_ = x.build(ctx)
			default:
				_ = x.tail(ctx)
				x.evict()
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
	x.stop = func() {
		cancel()
		wg.Wait()
	}
}

// build reads the clicks of the last day into a new index and puts it in
// place, unless it is in place already, organization by organization.
// On SQLite it reads the segments up to the last one written when it
// starts (readSegments); on PostgreSQL the rows its snapshot shows (one
// repeatable-read transaction), through the (org_id, occurred_at) index.
// What was written after those is the tail's.
func (x *candidateIndex) build(ctx context.Context) error {
	if err := x.lockTail(ctx); err != nil {
		return err
	}
	defer x.unlockTail()
	x.mu.RLock()
	from, done := x.want, x.ready || x.off
	x.mu.RUnlock()
	if done {
		return nil
	}

	b := candidateBuild{keys: map[candidateKey][]candidate{}}
	var (
		last   int64
		lastID uuid.UUID
		xmax   uint64
		xip    []string
		err    error
	)
	if x.pg {
		err = x.s.db.RunInTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}, func(ctx context.Context, tx bun.Tx) error {
			var snap string
			if err := tx.QueryRowContext(ctx, "SELECT pg_current_snapshot()::text").Scan(&snap); err != nil {
				return err
			}
			if xmax, xip, err = parseSnapshot(snap); err != nil {
				return err
			}
			return b.read(ctx, tx, "c.org_id = ? AND c.occurred_at >= ?", time.Unix(0, from).UTC())
		})
	} else {
		err = x.s.db.QueryRowContext(ctx, "SELECT rowid, id FROM click_segments ORDER BY rowid DESC LIMIT 1").Scan(&last, &lastID)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		err = b.readSegments(ctx, x.s.db, from, last)
	}
	if err != nil {
		return err
	}
	if b.n > candidateIndexMax {
		x.mu.Lock()
		x.n = b.n
		x.giveUpWhenFull()
		x.mu.Unlock()
		return nil
	}
	for _, cs := range b.keys {
		slices.SortFunc(cs, func(a, b candidate) int { return a.compare(&b) })
	}
	x.last, x.lastID, x.xmax, x.xip = last, lastID, xmax, xip
	x.mu.Lock()
	x.keys, x.n, x.from, x.ready = b.keys, b.n, from, true
	x.newest = max(x.newest, b.newest)
	x.builds++
	x.mu.Unlock()
	x.markFirstBuilt()
	return nil
}

// candidateBuild is a build's index in the making.
type candidateBuild struct {
	keys   map[candidateKey][]candidate
	n      int
	newest int64
}

// add puts c under k in the build's index.
func (b *candidateBuild) add(k candidateKey, c candidate) {
	b.keys[k] = append(b.keys[k], c)
	b.n++
	b.newest = max(b.newest, c.at)
}

// orgsWithApps lists the organizations that have an app: only their
// clicks can be candidates.
func orgsWithApps(ctx context.Context, db bun.IDB) ([]uuid.UUID, error) {
	var orgs []uuid.UUID
	err := db.NewSelect().Table("apps").ColumnExpr("DISTINCT org_id").Scan(ctx, &orgs)
	return orgs, err
}

// read adds, on PostgreSQL, the candidates of every organization with an
// app, of its rows where holds (with the organization as the first
// argument), stopping once it has more than candidateIndexMax.
func (b *candidateBuild) read(ctx context.Context, db bun.IDB, where string, args ...any) error {
	orgs, err := orgsWithApps(ctx, db)
	if err != nil {
		return err
	}
	for _, org := range orgs {
		rows, err := db.NewSelect().TableExpr("clicks AS c").ColumnExpr(keyClickColumns).ColumnExpr("c.org_id").
			Where(where, append([]any{org}, args...)...).Rows(ctx)
		if err != nil {
			return err
		}
		err = scanCandidates(rows, nil, func(k candidateKey, c candidate, ok bool) {
			if ok {
				b.add(k, c)
			}
		})
		if err != nil || b.n > candidateIndexMax {
			return err
		}
	}
	return nil
}

// parseSnapshot returns the xmax and the in-progress list of a PostgreSQL
// snapshot in its text form, xmin:xmax:xip,...
func parseSnapshot(snap string) (xmax uint64, xip []string, err error) {
	bad := fmt.Errorf("snapshot %q is not xmin:xmax:xip", snap)
	parts := strings.Split(snap, ":")
	if len(parts) != 3 {
		return 0, nil, bad
	}
	if parts[2] != "" {
		xip = strings.Split(parts[2], ",")
	}
	for _, id := range append([]string{parts[0], parts[1]}, xip...) {
		if _, err := strconv.ParseUint(id, 10, 64); err != nil {
			return 0, nil, bad
		}
	}
	xmax, _ = strconv.ParseUint(parts[1], 10, 64)
	return xmax, xip, nil
}

// tail reads the rows appended since the last read into the index. On
// SQLite the read starts at the last row read, which must still hold the
// click it held; when it does not, the index is marked out of date for the
// goroutine to build again.
func (x *candidateIndex) tail(ctx context.Context) error {
	if err := x.lockTail(ctx); err != nil {
		return err
	}
	defer x.unlockTail()
	x.mu.RLock()
	ready, from := x.ready, x.from
	x.mu.RUnlock()
	if !ready {
		return nil
	}
	if x.pg {
		return x.tailPG(ctx, from)
	}
	return x.tailSegments(ctx, from)
}

// candidateTailPG reads, in one statement, its own snapshot and the rows of
// clicks that the last read's snapshot did not show: those of transactions
// at or after its xmax ($1) or in progress then ($2). The transactions the
// new snapshot shows are then read for good; those it lists in progress
// are the next read's.
const candidateTailPG = `SELECT s.snap, ` + keyClickColumns + `, c.org_id
FROM (SELECT pg_current_snapshot()::text AS snap) AS s
LEFT JOIN LATERAL (
	SELECT * FROM clicks WHERE txid >= $1::xid8 OR txid = ANY($2::xid8[])
) AS c ON true`

// tailPG is tail on PostgreSQL, where several replicas write clicks and
// their transactions commit in any order.
func (x *candidateIndex) tailPG(ctx context.Context, from int64) error {
	stmt, err := x.s.preparedStmt(ctx, candidateTailPG)
	if err != nil {
		return err
	}
	rows, err := stmt.QueryContext(ctx, strconv.FormatUint(x.xmax, 10), pgArray(x.xip))
	if err != nil {
		return err
	}
	var (
		snap  sql.NullString
		batch candidateBatch
	)
	err = scanCandidates(rows, []any{&snap}, func(k candidateKey, c candidate, ok bool) {
		if ok && c.at >= from {
			batch.add(k, c)
		}
	})
	if err != nil {
		return err
	}
	xmax, xip, err := parseSnapshot(snap.String)
	if err != nil {
		return err
	}
	if xmax < x.xmax {
		// Transaction ids went back: another database answers the DSN
		// (restored from a dump, say), whose new rows the last snapshot
		// would never show. Built again, as on SQLite when rowids are
		// written again.
		x.outOfDate()
		return nil
	}
	x.xmax, x.xip = xmax, xip
	x.insertBatch(&batch)
	return nil
}

// outOfDate empties the index for the goroutine to build it again.
func (x *candidateIndex) outOfDate() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.ready, x.keys, x.n = false, map[candidateKey][]candidate{}, 0
}

// candidateBatch is the candidates one read of the tail found.
type candidateBatch struct {
	cs   []candidate
	keys []candidateKey
}

func (b *candidateBatch) add(k candidateKey, c candidate) {
	b.cs, b.keys = append(b.cs, c), append(b.keys, k)
}

// insertBatch puts b's candidates in the index.
func (x *candidateIndex) insertBatch(b *candidateBatch) {
	if len(b.cs) == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for i := range b.cs {
		x.insert(b.keys[i], b.cs[i])
	}
	x.giveUpWhenFull()
}

// giveUpWhenFull turns the index off for good once it holds more than
// candidateIndexMax clicks; x.mu is held.
func (x *candidateIndex) giveUpWhenFull() {
	if x.n > candidateIndexMax {
		x.off, x.ready, x.keys = true, false, nil
		x.markFirstBuilt()
	}
}

// insert adds c under k in time order; x.mu is held.
func (x *candidateIndex) insert(k candidateKey, c candidate) {
	cs := x.keys[k]
	i := len(cs)
	for i > 0 && c.compare(&cs[i-1]) < 0 {
		i--
	}
	x.keys[k] = slices.Insert(cs, i, c)
	x.n++
	x.newest = max(x.newest, c.at)
}

// evict drops the clicks older than the windows asked for need, once that
// frees at least candidateSlack of them. Without reads (a server that
// records clicks and matches no install), the window is the one a match
// would ask for now: of the day before the newest click held, or before
// the clock when that is earlier (a click from a clock running ahead).
func (x *candidateIndex) evict() {
	x.mu.Lock()
	defer x.mu.Unlock()
	horizon := min(x.newest, time.Now().UnixNano()) - int64(attribution.ProbabilisticWindow+candidateSlack)
	x.want = max(x.want, horizon)
	if !x.ready || x.want-x.from < int64(candidateSlack) {
		return
	}
	for k, cs := range x.keys {
		i := 0
		for i < len(cs) && cs[i].at < x.want {
			i++
		}
		switch {
		case i == len(cs):
			delete(x.keys, k)
		case i > 0:
			x.keys[k] = slices.Clone(cs[i:])
		}
		x.n -= i
	}
	x.from = x.want
}

// markClaimed marks the clicks of org on the keys ips claimed: ids[i] is on
// ips[i].
func (x *candidateIndex) markClaimed(org uuid.UUID, ids []uuid.UUID, ips []string) {
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for i, id := range ids {
		cs := x.keys[candidateKey{org, ips[i]}]
		for j := range cs {
			if cs[j].id == id {
				cs[j].claimed = true
			}
		}
	}
}

// read answers q from the index; use must have reported true. The clicks
// are without their links' windows (KeyClicks adds them).
func (x *candidateIndex) read(q *attribution.KeyQuery) attribution.KeyRead {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return readKey(x.keys[candidateKey{q.OrgID, q.IPKey}], q)
}

// readKey answers q from cs, the clicks of its key in time order.
func readKey(cs []candidate, q *attribution.KeyQuery) attribution.KeyRead {
	since, until, busySince := q.Since.UnixNano(), q.Until.UnixNano(), q.BusySince.UnixNano()
	lo := firstAtOrAfter(cs, since)
	hi := firstAtOrAfter(cs, until)
	n := 0
	for i := lo; i < hi && n < q.Limit; i++ {
		if slices.Contains(q.AppIDs, cs[i].app) {
			n++
		}
	}
	if n == 0 {
		return attribution.KeyRead{}
	}
	newest := func(lo int, keep func(*candidate) bool, limit int) []attribution.Click {
		var out []attribution.Click
		for i := hi - 1; i >= lo && len(out) < limit; i-- {
			if keep(&cs[i]) {
				out = append(out, cs[i].click(q.IPKey))
			}
		}
		return out
	}
	anyApp := func(c *candidate) bool { return slices.Contains(q.AppIDs, c.app) }
	if n < q.Limit {
		return attribution.KeyRead{Clicks: newest(lo, anyApp, q.Limit)}
	}
	busyLo := firstAtOrAfter(cs, busySince)
	return attribution.KeyRead{
		Busy:       true,
		Clicks:     newest(busyLo, func(c *candidate) bool { return c.app == q.AppID }, q.Limit),
		Background: newest(busyLo, anyApp, max(q.Background, 0)),
	}
}

// firstAtOrAfter returns the index of the first candidate of cs at or
// after at (len(cs) when there is none).
func firstAtOrAfter(cs []candidate, at int64) int {
	i, _ := slices.BinarySearchFunc(cs, at, func(c candidate, at int64) int {
		if c.at < at {
			return -1
		}
		return 1
	})
	return i
}

// scanCandidates scans rows of pre, keyClickColumns and c.org_id (rows of
// clicks on PostgreSQL), calling add with each and closing rows; ok is
// false for a row that is not a candidate (no app, or a platform the
// matcher does not read). A row without a click (the tail's, which always
// returns one row) is skipped.
func scanCandidates(rows *sql.Rows, pre []any, add func(k candidateKey, c candidate, ok bool)) error {
	defer rows.Close()
	var (
		sc  keyClickScan
		org uuid.NullUUID
	)
	dest := append(append(pre, sc.dest()...), &org)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if !sc.id.Valid {
			continue
		}
		var app *uuid.UUID
		if sc.appID.Valid {
			app = &sc.appID.UUID
		}
		c, ok := candidateOf(sc.id.UUID, sc.linkID.UUID, app, sc.at.Time, sc.platform.String,
			sc.osVersion.String, sc.model.String, sc.agent.String, sc.language.String)
		c.claimed = sc.claimed.Bool
		add(candidateKey{org.UUID, sc.ipKey.String}, c, ok)
	}
	return rows.Err()
}

// markClaimedByID marks click id of org claimed, reading its key from the
// database: a claim of it failed, so another install holds it. A nil id,
// a click that is gone or an index not started marks nothing.
func (x *candidateIndex) markClaimedByID(ctx context.Context, org uuid.UUID, id *uuid.UUID) {
	if x == nil || id == nil {
		return
	}
	var key string
	err := x.s.db.NewSelect().Table("clicks").Column("ip_key").Where("id = ? AND org_id = ?", *id, org).Scan(ctx, &key)
	if err == nil {
		x.markClaimed(org, []uuid.UUID{*id}, []string{key})
	}
}

// PrepareMatching builds the index of candidate clicks that attribution's
// key reads are answered from (candidates.go), for matches at now and
// after; without it the first key read builds it in the background and the
// database answers until it is built. A server calls it at start.
func (s *Store) PrepareMatching(ctx context.Context, now time.Time) error {
	if s.candidates == nil {
		return nil
	}
	from := now.Add(-attribution.ProbabilisticWindow - candidateSlack).UnixNano()
	return s.err("prepare matching", s.candidates.prepare(ctx, from))
}
