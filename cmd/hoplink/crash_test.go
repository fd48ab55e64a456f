package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// The crash tests of issue 16: every redirect a client received has
// exactly one stored click and one count, whatever happened to the server
// process (kill -9) or to its database (cut for 10 s, then SIGTERM) while
// it answered.

// crashSlug is the link the load redirects through.
const crashSlug = "crash"

// seedCrashLink creates, on the database dsn, an organization whose
// allowance no load reaches and a link on the default link domain.
func seedCrashLink(t *testing.T, dsn string) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Migrate(ctx))
	now := time.Now().UTC()
	o := &org.Organization{ID: uuid.Must(uuid.NewV7()), Name: "Crash", Slug: "crash-" + uuid.NewString()[:8],
		Plan: org.PlanScale, MonthlyClickLimit: 1 << 40, BillingPeriodStart: now, CreatedAt: now, UpdatedAt: now}
	require.NoError(t, s.CreateOrganization(ctx, o, nil))
	l := &linking.Link{ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, Domain: "hop.localhost", Slug: crashSlug,
		DestinationURL: "https://example.com/landing", IsActive: true, Tags: []string{}, CreatedAt: now, UpdatedAt: now}
	require.NoError(t, s.CreateLink(ctx, l, linking.LinkQuota{}))
	return o.ID
}

// storedClicksByContent counts the stored clicks of orgID by their
// utm_content, and returns the organization's click counter (every
// billing month summed). Clicks are read from the clicks table.
func storedClicksByContent(t *testing.T, dsn string, orgID uuid.UUID) (map[string]int, int64) {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()
	// Stored clicks live in the organization's segments (store/click_segments.go).
	var segments [][]byte
	require.NoError(t, s.DB().NewSelect().Table("click_segments").Column("data").
		Where("org_id = ?", orgID).Scan(ctx, &segments))
	byContent := map[string]int{}
	for _, data := range segments {
		clicks, err := analytics.DecodeSegment(orgID, data)
		require.NoError(t, err)
		for _, c := range clicks {
			byContent[c.UTMContent]++
		}
	}
	var counted int64
	require.NoError(t, s.DB().NewSelect().Table("click_counts").ColumnExpr("COALESCE(SUM(count), 0)").
		Where("org_id = ?", orgID).Scan(ctx, &counted))
	return byContent, counted
}

// redirectLoad sends at most perWorker redirects from each of workers
// goroutines to srv, each with a utm_content of its own, and keeps the
// values of those answered 302. A worker stops at its first error (the
// server is gone) or when stop is closed.
type redirectLoad struct {
	mu       sync.Mutex
	received []string
	count    atomic.Int64
	done     chan struct{}
}

func startRedirectLoad(srv *server, workers, perWorker int, stop <-chan struct{}) *redirectLoad {
	l := &redirectLoad{done: make(chan struct{})}
	client := &http.Client{
		Timeout:       5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport:     &http.Transport{MaxIdleConnsPerHost: workers},
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				select {
				case <-stop:
					return
				default:
				}
				content := fmt.Sprintf("w%d-%d", w, i)
				req, _ := http.NewRequest(http.MethodGet,
					"http://"+srv.addr+"/"+crashSlug+"?utm_content="+url.QueryEscape(content), nil)
				req.Host = "hop.localhost"
				req.Header.Set("User-Agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0 Safari/537.36")
				resp, err := client.Do(req)
				if err != nil {
					if isGone(srv) {
						return
					}
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusFound {
					l.mu.Lock()
					l.received = append(l.received, content)
					l.mu.Unlock()
					l.count.Add(1)
				}
			}
		}()
	}
	go func() { wg.Wait(); close(l.done) }()
	return l
}

// isGone reports whether srv's process has exited.
func isGone(srv *server) bool {
	select {
	case <-srv.exited:
		return true
	default:
		return false
	}
}

// waitReceived waits until the load has received n redirects or ended.
func (l *redirectLoad) waitReceived(t *testing.T, n int64) {
	t.Helper()
	limit := time.NewTimer(processLimit)
	defer limit.Stop()
	for l.count.Load() < n {
		select {
		case <-l.done:
			return
		case <-limit.C:
			t.Fatalf("the load received %d redirects of %d within %v", l.count.Load(), n, processLimit)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (l *redirectLoad) wait(t *testing.T) []string {
	t.Helper()
	select {
	case <-l.done:
	case <-time.After(processLimit):
		t.Fatalf("the load did not end within %v", processLimit)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.received...)
}

// spoolBytes is the size of the chunk files of the spool dir.
func spoolBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var size int64
	for _, f := range spoolChunks(t, dir) {
		if info, err := os.Stat(f); err == nil {
			size += info.Size()
		}
	}
	return size
}

// spoolChunks lists the chunk files of the spool dir.
func spoolChunks(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.chunk"))
	require.NoError(t, err)
	return files
}

// waitSpoolDrained waits until every chunk of left, the chunk files an
// earlier process left in its spool, has been written and deleted. (The
// new process's own active chunk may be a file of any size: a mapped
// chunk is allocated whole.)
func waitSpoolDrained(t *testing.T, srv *server, left []string) {
	t.Helper()
	deadline := time.Now().Add(processLimit)
	for {
		var waiting []string
		for _, f := range left {
			if _, err := os.Stat(f); err == nil {
				waiting = append(waiting, filepath.Base(f))
			}
		}
		if len(waiting) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the spool still holds %v after %v\nstderr: %s", waiting, processLimit, srv.stderr)
		}
		select {
		case <-srv.exited:
			t.Fatalf("hoplink exited while draining its spool\nstderr: %s", srv.stderr)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// assertEachOnce requires one stored click per redirect received, none
// twice, and the counter equal to the clicks stored.
func assertEachOnce(t *testing.T, received []string, stored map[string]int, counted int64) {
	t.Helper()
	missing, twice, rows := 0, 0, 0
	for _, c := range received {
		if stored[c] != 1 {
			missing++
		}
	}
	for c, n := range stored {
		rows += n
		if n > 1 {
			twice++
			t.Errorf("utm_content %s stored %d times", c, n)
		}
	}
	assert.Zero(t, missing, "every redirect received has its click (%d received, %d stored)", len(received), rows)
	assert.Zero(t, twice, "no click is stored twice")
	// A request whose answer the kill cut off may have its click stored:
	// rows may exceed what the client received, never fall short.
	assert.GreaterOrEqual(t, rows, len(received))
	assert.Equal(t, int64(rows), counted, "the monthly count moves with the rows")
	t.Logf("redirects received %d, clicks stored %d, counted %d", len(received), rows, counted)
}

// kill9 kills srv's process with SIGKILL and waits for it.
func (srv *server) kill9(t *testing.T) {
	t.Helper()
	require.NoError(t, srv.cmd.Process.Signal(syscall.SIGKILL))
	select {
	case <-srv.exited:
	case <-time.After(processLimit):
		t.Fatalf("hoplink did not die of SIGKILL")
	}
}

func skipCrashTest(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the hoplink binary under load and kills it; skipped with -short")
	}
	if runtime.GOOS == "windows" {
		t.Skip("kill -9 and SIGTERM are Unix signals")
	}
}

// kill -9 in the middle of a load on SQLite loses no redirect's click and
// stores none twice.
func TestCrashKill9OnSQLiteLosesNoClick(t *testing.T) {
	skipCrashTest(t)
	bin := buildHoplink(t)
	dataDir := t.TempDir()
	db := filepath.Join(dataDir, "hoplink.db")
	orgID := seedCrashLink(t, db)

	srv := startServe(t, bin, "--db", db, "--no-bootstrap")
	stop := make(chan struct{})
	defer close(stop)
	load := startRedirectLoad(srv, 4, 2500, stop)
	load.waitReceived(t, 3000)
	srv.kill9(t)
	received := load.wait(t)
	require.NotEmpty(t, received)
	t.Logf("left in the spool by the kill: %d bytes", spoolBytes(t, filepath.Join(dataDir, "hoplink.spool")))

	left := spoolChunks(t, filepath.Join(dataDir, "hoplink.spool"))
	srv = startServe(t, bin, "--db", db, "--no-bootstrap")
	waitSpoolDrained(t, srv, left)
	srv.stop(t)

	stored, counted := storedClicksByContent(t, db, orgID)
	assertEachOnce(t, received, stored, counted)
}

// PostgreSQL cut off for 10 s in the middle of a load, then SIGTERM while
// it is cut: the clicks wait in the spool, and the next start writes each
// once.
func TestCrashPostgresCutThenSIGTERMLosesNoClick(t *testing.T) {
	skipCrashTest(t)
	dsn := storetest.PostgresDSN(t)
	bin := buildHoplink(t)
	orgID := seedCrashLink(t, dsn)

	target, err := url.Parse(dsn)
	require.NoError(t, err)
	proxy := storetest.NewTCPProxy(t, target.Host)
	proxied := *target
	proxied.Host = proxy.Addr()
	// A lost connection is noticed within a bounded time.
	q := proxied.Query()
	q.Set("connect_timeout", "2")
	proxied.RawQuery = q.Encode()

	dataDir := t.TempDir()
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	secretFile := filepath.Join(dataDir, "secret")
	require.NoError(t, os.WriteFile(secretFile, []byte(hex.EncodeToString(secret)), 0o600))
	spool := filepath.Join(dataDir, "spool")
	args := []string{"--db", proxied.String(), "--secret-file", secretFile, "--spool-dir", spool, "--no-bootstrap"}

	srv := startServe(t, bin, args...)
	stop := make(chan struct{})
	load := startRedirectLoad(srv, 4, 2500, stop)
	load.waitReceived(t, 1500)
	proxy.Stop()
	before := load.count.Load()
	cut := time.After(10 * time.Second)
	<-cut
	during := load.count.Load() - before
	close(stop)
	received := load.wait(t)
	srv.stop(t)
	t.Logf("left in the spool by SIGTERM: %d bytes", spoolBytes(t, spool))
	assert.Contains(t, srv.stderr.String(), "writing clicks failed", "the outage is logged")
	t.Logf("redirects answered while the database was cut: %d", during)

	proxy.Start()
	left := spoolChunks(t, spool)
	srv = startServe(t, bin, args...)
	waitSpoolDrained(t, srv, left)
	srv.stop(t)

	stored, counted := storedClicksByContent(t, dsn, orgID)
	assertEachOnce(t, received, stored, counted)
	assert.NotContains(t, strings.ToLower(srv.stderr.String()), "panic")
}
