package analytics_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
)

// fakeBatchStore is a fakeStore that keeps a mark per spool as the real
// store does, and remembers the identity of each batch it committed.
type fakeBatchStore struct {
	*fakeStore

	mu       sync.Mutex
	marks    map[string]int64
	seqs     []int64
	markFail bool
	// beforeCommit, when set, runs before a batch is committed.
	beforeCommit func(analytics.Batch)
}

func newFakeBatchStore() *fakeBatchStore {
	return &fakeBatchStore{fakeStore: newFakeStore(), marks: map[string]int64{}}
}

func (s *fakeBatchStore) InsertClickBatch(ctx context.Context, b analytics.Batch) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b.Spool != "" && s.marks[b.Spool] >= b.Seq {
		s.report(0)
		return 0, analytics.ErrBatchCommitted
	}
	if s.beforeCommit != nil {
		s.beforeCommit(b)
	}
	n, err := s.InsertClicks(ctx, b.Clicks)
	if err == nil && b.Spool != "" {
		s.marks[b.Spool] = b.Seq
		s.seqs = append(s.seqs, b.Seq)
	}
	return n, err
}

func (s *fakeBatchStore) SpoolMark(_ context.Context, spool string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.markFail {
		return 0, errDown
	}
	return s.marks[spool], nil
}

func (s *fakeBatchStore) setFail(n int) {
	s.fakeStore.mu.Lock()
	s.fail = n
	s.fakeStore.mu.Unlock()
}

func (s *fakeBatchStore) committedSeqs() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int64(nil), s.seqs...)
}

func openSpooled(t *testing.T, s analytics.Store, dir string, opts analytics.RecorderOptions) *analytics.Recorder {
	t.Helper()
	opts.SpoolDir = dir
	if opts.Clock == nil {
		opts.Clock = newFakeClock()
	}
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	r, err := analytics.OpenRecorder(s, opts)
	require.NoError(t, err)
	return r
}

// chunkFiles lists the chunk files of a spool directory.
func chunkFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.chunk"))
	require.NoError(t, err)
	return m
}

// A spooled recorder writes each full chunk as soon as it is rotated and
// the active one on the tick, numbered in order in one spool, and deletes
// each chunk once committed.
func TestSpoolWritesChunksInOrderAndDeletesThem(t *testing.T) {
	s, clock, dir := newFakeBatchStore(), newFakeClock(), t.TempDir()
	r := openSpooled(t, s, dir, analytics.RecorderOptions{BatchSize: 3, Clock: clock})
	stop := start(r)
	orgID := uuid.New()
	for range 2 {
		// One full chunk at a time: chunks that wait together are merged.
		for range 3 {
			require.True(t, r.Record(click(orgID)))
		}
		assert.Equal(t, 3, <-s.attempts)
	}
	require.True(t, r.Record(click(orgID)))
	clock.tick <- clock.Now()
	assert.Equal(t, 1, <-s.attempts, "the tick rotates the active chunk")
	stop()

	assert.Equal(t, []int64{1, 2, 3}, s.committedSeqs())
	assert.Len(t, s.marks, 1, "one spool id")
	st := r.Stats()
	assert.Equal(t, uint64(7), st.Accepted)
	assert.Equal(t, uint64(7), st.Written)
	assert.Zero(t, st.Failed)
	assert.Len(t, chunkFiles(t, dir), 1, "only the empty active chunk stays")
	assert.Zero(t, st.SpoolBytes)
	for _, c := range s.clicks() {
		assert.Equal(t, uuid.Version(7), c.ID.Version())
		assert.Equal(t, "203.0.113.7", c.IPKey, "clicks are normalized")
	}
}

// Chunks that wait while a batch is written are written together, as one
// batch numbered by the last of them, and the chunks an earlier process
// left are written one by one, whatever waits after them.
func TestSpoolMergesWaitingChunks(t *testing.T) {
	dir := t.TempDir()
	// An earlier process left two full chunks (1 and 2) and its empty
	// active one (3).
	down := newFakeBatchStore()
	down.fail = -1
	r := openSpooled(t, down, dir, analytics.RecorderOptions{BatchSize: 3, ShutdownTimeout: time.Millisecond})
	orgID := uuid.New()
	for range 6 {
		require.True(t, r.Record(click(orgID)))
	}
	start(r)()
	require.Len(t, chunkFiles(t, dir), 3)

	s := newFakeBatchStore()
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s.beforeCommit = func(analytics.Batch) {
		once.Do(func() { close(held); <-release })
	}
	r = openSpooled(t, s, dir, analytics.RecorderOptions{BatchSize: 3})
	stop := start(r)
	<-held // chunk 1 is being written; the others wait behind it
	for range 9 {
		require.True(t, r.Record(click(orgID)))
	}
	require.Len(t, chunkFiles(t, dir), 7, "chunks 1 to 3 (left), 4 to 6 (full) and the active 7")
	close(release)
	assert.Equal(t, 3, <-s.attempts, "chunk 1 alone")
	assert.Equal(t, 3, <-s.attempts, "chunk 2 alone: an earlier process's")
	assert.Equal(t, 9, <-s.attempts, "chunks 4 to 6 as one batch")
	stop()

	assert.Equal(t, []int64{1, 2, 6}, s.committedSeqs(), "chunk 3 was empty")
	st := r.Stats()
	assert.Equal(t, uint64(15), st.Written)
	assert.Equal(t, uint64(6), st.Replayed)
	assert.Len(t, s.clicks(), 15)
	assert.Len(t, chunkFiles(t, dir), 1, "only the empty active chunk stays")
}

// With GatherChunks, full chunks wait for one another: without a tick,
// a batch is written only once that many chunks wait (the first, which
// may start before the clicks do, aside), and the tick writes the rest.
func TestSpoolGathersChunks(t *testing.T) {
	s, clock, dir := newFakeBatchStore(), newFakeClock(), t.TempDir()
	r := openSpooled(t, s, dir, analytics.RecorderOptions{BatchSize: 3, GatherChunks: 4, Clock: clock})
	stop := start(r)
	orgID := uuid.New()
	for range 30 * 3 {
		require.True(t, r.Record(click(orgID)))
	}
	// Every click is in a full chunk (the active one is empty), so that
	// at most three chunks wait for the tick.
	written := 0
	for i := 0; 90-written >= 4*3; i++ {
		n := <-s.attempts
		if i > 0 {
			assert.GreaterOrEqual(t, n, 4*3, "batch %d: four full chunks at least", i)
		}
		written += n
	}
	clock.tick <- clock.Now()
	if written < 90 {
		assert.Equal(t, 90-written, <-s.attempts, "the tick writes the chunks left")
	}
	stop()
	assert.Equal(t, uint64(90), r.Stats().Written)
}

// Every field of a click comes back from the spool as it was recorded.
func TestSpoolKeepsEveryField(t *testing.T) {
	s, dir := newFakeBatchStore(), t.TempDir()
	r := openSpooled(t, s, dir, analytics.RecorderOptions{})
	app, tap := uuid.New(), uuid.New()
	want := analytics.Click{
		ID: uuid.Must(uuid.NewV7()), OrgID: uuid.New(), LinkID: uuid.New(), AppID: &app, Domain: "hop.example",
		Slug: "spring", OccurredAt: time.Date(2026, 11, 22, 10, 0, 0, 123456789, time.UTC), Source: analytics.SourceAppOpen,
		Platform: "ios", OS: "iOS", OSVersion: "18.6", DeviceModel: "iPhone", Browser: "Safari", InAppBrowser: "Instagram",
		IP: "2001:db8:1:2::7", Country: "DE", Region: "BE", City: "Berlin", UserAgent: "Mozilla/5.0 (iPhone) ünïcode",
		AcceptLanguage: "de-DE", Referer: "https://news.example/a?b=c", UTMSource: "s", UTMMedium: "m",
		UTMCampaign: "c", UTMTerm: "t", UTMContent: "hero", TapID: &tap,
	}
	only := click(want.OrgID)
	only.CountOnly, only.Weight = true, 42
	require.True(t, r.Record(want))
	require.True(t, r.Record(only))
	start(r)()
	got := s.clicks()
	require.Len(t, got, 2)
	want.Normalize()
	assert.Equal(t, want, got[0])
	assert.True(t, got[1].CountOnly)
	assert.Equal(t, int64(42), got[1].Weight)
}

// Clicks a stopped recorder could not write stay in the spool, not
// failed, and the next recorder on the directory writes them first, with
// the same ids, before the clicks it takes itself.
func TestSpoolKeepsWhatShutdownCouldNotWrite(t *testing.T) {
	dir := t.TempDir()
	down := newFakeBatchStore()
	down.fail = -1
	r := openSpooled(t, down, dir, analytics.RecorderOptions{ShutdownTimeout: 20 * time.Millisecond})
	orgID := uuid.New()
	var ids []uuid.UUID
	for range 5 {
		c := click(orgID)
		c.ID = uuid.Must(uuid.NewV7())
		ids = append(ids, c.ID)
		require.True(t, r.Record(c))
	}
	start(r)() // the store never answers
	st := r.Stats()
	assert.Zero(t, st.Failed, "clicks left in the spool are not failed")
	assert.Zero(t, st.Written)
	assert.Positive(t, st.SpoolBytes)
	assert.False(t, r.Record(click(orgID)), "a recorder that shut down takes nothing")

	up := newFakeBatchStore()
	r2 := openSpooled(t, up, dir, analytics.RecorderOptions{})
	later := click(orgID)
	require.True(t, r2.Record(later))
	start(r2)()
	got := up.clicks()
	require.Len(t, got, 6)
	for i, id := range ids {
		assert.Equal(t, id, got[i].ID, "the replay comes first, in order")
	}
	st = r2.Stats()
	assert.Equal(t, uint64(5), st.Replayed)
	assert.Equal(t, uint64(6), st.Written)
	assert.Equal(t, st.Accepted+st.Replayed, st.Written)
	assert.Zero(t, st.SpoolBytes)
}

// A process killed mid-write leaves a torn last record: the next start
// drops it and writes every whole record before it.
func TestSpoolDropsATornLastRecord(t *testing.T) {
	dir := t.TempDir()
	down := newFakeBatchStore()
	down.fail = -1
	r := openSpooled(t, down, dir, analytics.RecorderOptions{ShutdownTimeout: time.Millisecond})
	orgID := uuid.New()
	for range 3 {
		require.True(t, r.Record(click(orgID)))
	}
	start(r)()
	files := chunkFiles(t, dir)
	require.Len(t, files, 2, "the chunk of three clicks and the empty active one")
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	third := len(b) / 3
	// Tear the last record at every length: the two before always survive.
	for cut := len(b) - third + 1; cut < len(b); cut += 7 {
		require.NoError(t, os.WriteFile(files[0], b[:cut], 0o600))
		up := newFakeBatchStore()
		r2 := openSpooled(t, up, dir, analytics.RecorderOptions{})
		start(r2)()
		assert.Len(t, up.clicks(), 2, "cut at %d of %d", cut, len(b))
	}
	// A flipped byte in the last record is caught by its checksum.
	b[len(b)-3] ^= 0xff
	require.NoError(t, os.WriteFile(files[0], b, 0o600))
	up := newFakeBatchStore()
	r2 := openSpooled(t, up, dir, analytics.RecorderOptions{})
	start(r2)()
	assert.Len(t, up.clicks(), 2)
}

// A chunk the store committed but the process did not delete (it died in
// between) is not written again: deleted unread when the store's mark
// says so, skipped by the store when the mark cannot be read.
func TestSpoolReplaysACommittedChunkOnce(t *testing.T) {
	for _, markFails := range []bool{false, true} {
		t.Run(map[bool]string{false: "mark read", true: "mark unreadable"}[markFails], func(t *testing.T) {
			dir := t.TempDir()
			s := newFakeBatchStore()
			var saved []byte
			var savedName string
			s.beforeCommit = func(b analytics.Batch) {
				files := chunkFiles(t, dir)
				savedName = files[0]
				var err error
				saved, err = os.ReadFile(savedName)
				require.NoError(t, err)
			}
			r := openSpooled(t, s, dir, analytics.RecorderOptions{})
			orgID := uuid.New()
			for range 4 {
				require.True(t, r.Record(click(orgID)))
			}
			start(r)()
			require.Len(t, s.clicks(), 4)
			// As if the process died after the commit, before the delete.
			require.NoError(t, os.WriteFile(savedName, saved, 0o600))

			s.beforeCommit = nil
			s.markFail = markFails
			r2 := openSpooled(t, s, dir, analytics.RecorderOptions{})
			require.True(t, r2.Record(click(orgID)))
			start(r2)()
			assert.Len(t, s.clicks(), 5, "the committed chunk is not written twice")
			assert.Equal(t, []int64{1, 3}, s.committedSeqs(), "numbers go on after the last chunk on disk")
			assert.Len(t, chunkFiles(t, dir), 1)
			if markFails {
				assert.Equal(t, uint64(4), r2.Stats().Duplicates, "the store skipped the replay")
			} else {
				assert.Zero(t, r2.Stats().Duplicates, "the chunk was deleted unread")
			}
		})
	}
}

// Chunk numbers never go back, even when every chunk but the active one is
// deleted; and an active chunk numbered at or below the store's mark (its
// files were removed by hand) is renumbered past it.
func TestSpoolNumbersNeverGoBack(t *testing.T) {
	dir := t.TempDir()
	s := newFakeBatchStore()
	for round := range 3 {
		r := openSpooled(t, s, dir, analytics.RecorderOptions{})
		require.True(t, r.Record(click(uuid.New())))
		start(r)()
		require.Len(t, s.clicks(), round+1)
	}
	assert.Equal(t, []int64{1, 3, 5}, s.committedSeqs(), "each start goes on after the last chunk on disk")

	for _, f := range chunkFiles(t, dir) {
		require.NoError(t, os.Remove(f))
	}
	r := openSpooled(t, s, dir, analytics.RecorderOptions{})
	require.True(t, r.Record(click(uuid.New())))
	start(r)()
	assert.Equal(t, []int64{1, 3, 5, 6}, s.committedSeqs(), "renumbered past the mark, not skipped")
	assert.Len(t, s.clicks(), 4)
}

// Two recorders never share a spool directory.
func TestSpoolDirectoryIsLocked(t *testing.T) {
	dir := t.TempDir()
	s := newFakeBatchStore()
	r := openSpooled(t, s, dir, analytics.RecorderOptions{})
	_, err := analytics.OpenRecorder(s, analytics.RecorderOptions{SpoolDir: dir, Logger: quiet})
	require.ErrorIs(t, err, analytics.ErrSpoolLocked)
	assert.Contains(t, err.Error(), "--spool-dir")
	start(r)()
	r2, err := analytics.OpenRecorder(s, analytics.RecorderOptions{SpoolDir: dir, Logger: quiet})
	require.NoError(t, err, "a recorder that stopped unlocks it")
	start(r2)()

	_, err = analytics.OpenRecorder(newFakeStore(), analytics.RecorderOptions{SpoolDir: t.TempDir()})
	assert.Error(t, err, "a spool needs a BatchStore")
	assert.Panics(t, func() { analytics.NewRecorder(s, analytics.RecorderOptions{SpoolDir: dir}) })
}

// logLines is a slog handler that keeps the messages it is given.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) Enabled(context.Context, slog.Level) bool { return true }
func (l *logLines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, r.Level.String()+" "+r.Message)
	return nil
}
func (l *logLines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logLines) WithGroup(string) slog.Handler      { return l }

func (l *logLines) count(prefix string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

// While the database is away the spool grows up to its bound; past it
// clicks are counted only, with one warning; when the database returns
// the spool drains, says so once, and every click is written or counted.
func TestSpoolBoundCountsClicksOnlyAndDrains(t *testing.T) {
	s, clock, dir, logs := newFakeBatchStore(), newFakeClock(), t.TempDir(), &logLines{}
	s.fail = -1
	r := openSpooled(t, s, dir, analytics.RecorderOptions{BatchSize: 4, SpoolMaxBytes: 2000, Clock: clock,
		Logger: slog.New(logs), MaxRetryBackoff: 400 * time.Millisecond})
	stop := start(r)
	orgID := uuid.New()
	for range 40 {
		require.True(t, r.Record(click(orgID)))
	}
	st := r.Stats()
	assert.True(t, st.SpoolFull)
	assert.LessOrEqual(t, st.SpoolBytes, int64(2000), "the spool stays within its bound")
	assert.Positive(t, st.Overflowed)
	assert.Equal(t, uint64(40), st.Accepted)
	assert.Equal(t, 1, logs.count("WARN click spool full"), "one warning when it fills")

	for range 5 {
		<-s.attempts // failing, again and again
	}
	s.setFail(0)
	clock.tick <- clock.Now() // spools the overflow sums
	stop()

	st = r.Stats()
	assert.False(t, st.SpoolFull)
	assert.Equal(t, 1, logs.count("INFO click spool has room again"))
	assert.Equal(t, 1, logs.count("WARN writing clicks failed"), "one warning per outage, not per failure")
	assert.Equal(t, 1, logs.count("INFO writing clicks again"))
	assert.Zero(t, st.Failed)
	assert.Equal(t, st.Accepted, st.Written+st.CountedOnly, "every click is written or counted")
	assert.Equal(t, st.Overflowed, st.CountedOnly)
	var counted int64
	for _, c := range s.clicks() {
		counted += c.Clicks()
	}
	assert.Equal(t, int64(40), counted)

	waits := clock.waits()
	require.NotEmpty(t, waits)
	assert.Equal(t, 100*time.Millisecond, waits[0])
	for _, w := range waits {
		assert.LessOrEqual(t, w, 400*time.Millisecond, "the backoff is capped")
	}
	assert.Contains(t, waits, 400*time.Millisecond)
}

// discardBatches is a BatchStore that writes nothing.
type discardBatches struct{ discard }

func (discardBatches) InsertClickBatch(_ context.Context, b analytics.Batch) (int, error) {
	return len(b.Clicks), nil
}

func (discardBatches) SpoolMark(context.Context, string) (int64, error) { return 0, nil }

// BenchmarkRecordSpooled is BenchmarkRecord with a spool: one write(2) per
// click into the active chunk, from every P at once, while Run writes the
// chunks to a store that discards them and deletes them. "overflow/op" is
// the share of clicks that found the spool full.
func BenchmarkRecordSpooled(b *testing.B) {
	r, err := analytics.OpenRecorder(discardBatches{}, analytics.RecorderOptions{SpoolDir: b.TempDir(), Logger: quiet})
	require.NoError(b, err)
	stop := start(r)
	c := click(uuid.New())
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.Record(c)
		}
	})
	b.StopTimer()
	stop()
	st := r.Stats()
	b.ReportMetric(float64(st.Overflowed)/float64(st.Accepted), "overflow/op")
}

// A click too long for a record is normalized (its fields cut to their
// limits) before it is spooled, not refused.
func TestSpoolCutsAnOversizedClick(t *testing.T) {
	s, dir := newFakeBatchStore(), t.TempDir()
	r := openSpooled(t, s, dir, analytics.RecorderOptions{})
	c := click(uuid.New())
	c.Referer = "https://news.example/?q=" + strings.Repeat("x", 100_000)
	c.UserAgent = strings.Repeat("y", 100_000)
	require.True(t, r.Record(c))
	start(r)()
	got := s.clicks()
	require.Len(t, got, 1)
	assert.Len(t, got[0].Referer, analytics.MaxReferer)
	assert.Len(t, got[0].UserAgent, analytics.MaxUserAgent)
	assert.Equal(t, uint64(1), r.Stats().Written)
}

// A chunk a killed process left while it was the active one holds its
// records and, where the chunk is mapped, the zero bytes of the space not
// yet used: the next start writes every record and reports nothing torn.
func TestSpoolReplaysTheActiveChunkOfAKilledProcess(t *testing.T) {
	live := t.TempDir()
	r := openSpooled(t, newFakeBatchStore(), live, analytics.RecorderOptions{})
	orgID := uuid.New()
	var ids []uuid.UUID
	for range 4 {
		c := click(orgID)
		c.ID = uuid.Must(uuid.NewV7())
		ids = append(ids, c.ID)
		require.True(t, r.Record(c))
	}
	// What the kernel holds of the active chunk now is what a kill -9
	// leaves: the process never ran its writer nor closed the chunk.
	files := chunkFiles(t, live)
	require.Len(t, files, 1)
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	if runtime.GOOS == "linux" {
		require.Len(t, b, 1<<20, "the chunk is mapped, its unused end zero")
	}
	left := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(left, filepath.Base(files[0])), b, 0o600))

	s, logs := newFakeBatchStore(), &logLines{}
	r2 := openSpooled(t, s, left, analytics.RecorderOptions{Logger: slog.New(logs)})
	start(r2)()
	got := s.clicks()
	require.Len(t, got, 4)
	for i, id := range ids {
		assert.Equal(t, id, got[i].ID)
	}
	assert.Equal(t, uint64(4), r2.Stats().Replayed)
	assert.Zero(t, logs.count("WARN a click spool chunk ends with a torn record"))
	start(r)()
}

// A chunk is rotated when the next record does not fit the space it was
// given, however few clicks it holds; no click is lost on the way.
func TestSpoolRotatesAFullChunk(t *testing.T) {
	s, dir := newFakeBatchStore(), t.TempDir()
	r := openSpooled(t, s, dir, analytics.RecorderOptions{BatchSize: 100_000})
	orgID := uuid.New()
	const n = 4000 // about 2.6 MB of records with these agents and referers
	for i := range n {
		c := click(orgID)
		c.UserAgent = strings.Repeat("Mozilla/5.0 ", 40) + strconv.Itoa(i)
		c.Referer = "https://news.example/" + strings.Repeat("a", 150)
		require.True(t, r.Record(c))
	}
	assert.Greater(t, len(chunkFiles(t, dir)), 2, "the records were more than one chunk holds")
	start(r)()
	assert.Len(t, s.clicks(), n)
	assert.Equal(t, uint64(n), r.Stats().Written)
	assert.Zero(t, r.Stats().Overflowed)
}
