package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

const exportsPath = "/v1/analytics/exports"

// exportHarness is an API server with the click exports, and the exports'
// worker, which a test runs by hand (RunOnce).
type exportHarness struct {
	*harness
	exports *analytics.Exports
}

// publicURL is the harnesses' --public-url.
const publicURL = "https://api.hop.test"

func newExportHarness(t *testing.T, s *store.Store, opts ...option) *exportHarness {
	t.Helper()
	eh := &exportHarness{}
	opts = append(opts, withAPI(func(h *harness, o *httpapi.Options) {
		eh.exports = analytics.NewExports(s, h.orgs, analytics.ExportsOptions{Clock: h.clock.Now, PublicURL: publicURL,
			PageSize: 4, Owner: "worker-" + uuid.NewString()[:8]})
		o.Exports = eh.exports
	}))
	eh.harness = newHarness(t, s, opts...)
	return eh
}

// runWorker lets the windows settle and runs every waiting job.
func (h *exportHarness) runWorker(t testing.TB) {
	t.Helper()
	h.clock.Advance(analytics.DefaultExportSettle)
	for {
		ran, err := h.exports.RunOnce(context.Background())
		require.NoError(t, err)
		if !ran {
			return
		}
	}
}

// exportBody is the ClickExport resource.
type exportBody struct {
	ID          string            `json:"id"`
	Status      string            `json:"status"`
	Rows        int64             `json:"rows"`
	Filters     map[string]string `json:"filters"`
	Window      struct{ From, To time.Time }
	Failure     *string    `json:"failure"`
	CreatedAt   time.Time  `json:"created_at"`
	CompletedAt *time.Time `json:"completed_at"`
	ExpiresAt   *time.Time `json:"expires_at"`
	DownloadURL *string    `json:"download_url"`
}

func (r *response) export(t testing.TB, status int) exportBody {
	t.Helper()
	require.Equal(t, status, r.status, "body: %s", r.body)
	var e exportBody
	r.decode(t, &e)
	return e
}

// exportLink inserts an active link of orgID created by createdBy (nil:
// none).
func exportLink(t testing.TB, s *store.Store, orgID uuid.UUID, slug string, createdBy *uuid.UUID) *linking.Link {
	t.Helper()
	l := &linking.Link{ID: uuid.Must(uuid.NewV7()), OrgID: orgID, Domain: defaultLinkDomain, Slug: slug,
		DestinationURL: "https://example.com/" + slug, IsActive: true, Tags: []string{}, CreatedBy: createdBy,
		CreatedAt: start, UpdatedAt: start}
	require.NoError(t, s.CreateLink(context.Background(), l, linking.LinkQuota{}))
	return l
}

// exportClick is a click on l at at with every exported field set.
func exportClick(l *linking.Link, at time.Time) analytics.Click {
	return analytics.Click{ID: uuid.Must(uuid.NewV7()), OrgID: l.OrgID, LinkID: l.ID, Domain: l.Domain, Slug: l.Slug,
		OccurredAt: at, Source: analytics.SourceRedirect, Platform: "ios", OS: "iOS", OSVersion: "18.6",
		DeviceModel: "iPhone", Browser: "Safari", IP: "81.2.69.142", UserAgent: "Mozilla/5.0 (iPhone) secret-agent",
		Referer: "https://news.example/", Country: "GB", UTMSource: "newsletter", UTMMedium: "email",
		UTMCampaign: "spring", UTMTerm: "shoes", UTMContent: "hero"}
}

func insertClicks(t testing.TB, s *store.Store, clicks ...analytics.Click) {
	t.Helper()
	_, err := s.InsertClicks(context.Background(), clicks)
	require.NoError(t, err)
}

// download reads the CSV of export id and returns its records.
func (h *exportHarness) download(t testing.TB, key, id string) (*response, [][]string) {
	t.Helper()
	r := h.get(t, key, exportsPath+"/"+id+"/download")
	if r.status != http.StatusOK {
		return r, nil
	}
	records, err := csv.NewReader(bytes.NewReader(r.body)).ReadAll()
	require.NoError(t, err)
	return r, records
}

func TestClickExportLifecycle(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newExportHarness(t, s)
		o := h.newOrg(t, "Acme")
		spring := exportLink(t, s, o.ID, "spring", nil)
		autumn := exportLink(t, s, o.ID, "autumn", nil)
		now := h.clock.Now()
		in := []analytics.Click{
			exportClick(spring, now.Add(-3*time.Hour)),
			exportClick(spring, now.Add(-2*time.Hour)),
			exportClick(spring, now.Add(-time.Hour)),
			exportClick(autumn, now.Add(-90*time.Minute)),                  // another link
			exportClick(spring, now.Add(-48*time.Hour)),                    // before from
			exportClick(spring, now.Add(-30*time.Minute).Add(time.Second)), // at or after to
		}
		in[1].Referer = `=HYPERLINK("https://evil.example","open")`
		in[2].UTMContent = "+1 more"
		insertClicks(t, s, in...)

		from, to := now.Add(-24*time.Hour), now.Add(-30*time.Minute)
		body := fmt.Sprintf(`{"link_id":%q,"from":%q,"to":%q,"country":"GB"}`, spring.ID,
			from.Format(time.RFC3339), to.Format(time.RFC3339))
		e := h.post(t, o.key.raw, exportsPath, body).export(t, http.StatusAccepted)
		assert.Equal(t, "pending", e.Status)
		assert.Equal(t, map[string]string{"link_id": spring.ID.String(), "country": "GB"}, e.Filters)
		assert.True(t, e.Window.From.Equal(from) && e.Window.To.Equal(to), "the window asked for: %v", e.Window)
		assert.Nil(t, e.DownloadURL)
		assert.Nil(t, e.CompletedAt)

		r, _ := h.download(t, o.key.raw, e.ID)
		assertError(t, r, http.StatusConflict, errcode.ExportNotComplete)
		assert.Equal(t, "pending", details(t, r)["status"])

		h.runWorker(t)
		got := h.get(t, o.key.raw, exportsPath+"/"+e.ID).export(t, http.StatusOK)
		assert.Equal(t, "complete", got.Status)
		assert.Equal(t, int64(3), got.Rows)
		require.NotNil(t, got.DownloadURL)
		assert.Equal(t, publicURL+exportsPath+"/"+e.ID+"/download", *got.DownloadURL)
		require.NotNil(t, got.ExpiresAt)
		assert.Equal(t, got.CompletedAt.Add(24*time.Hour), *got.ExpiresAt)

		r, records := h.download(t, o.key.raw, e.ID)
		assert.Equal(t, "text/csv; charset=utf-8", r.header.Get("Content-Type"))
		assert.Equal(t, "attachment; filename=clicks-"+e.ID+".csv", r.header.Get("Content-Disposition"))
		require.Len(t, records, 4, "header and the three clicks of the window and filters")
		assert.Equal(t, analytics.ExportColumns(), records[0])
		assert.Equal(t, []string{in[0].OccurredAt.UTC().Format("2006-01-02T15:04:05.000Z"), spring.ID.String(),
			defaultLinkDomain, "spring", "redirect", "ios", "iOS", "18.6", "iPhone", "Safari", "", "GB",
			"https://news.example/", "newsletter", "email", "spring", "shoes", "hero"}, records[1])
		assert.Equal(t, `'=HYPERLINK("https://evil.example","open")`, records[2][12], "formula neutralised")
		assert.Equal(t, "'+1 more", records[3][17])
		assert.NotContains(t, string(r.body), "81.2.69.142", "no IP")
		assert.NotContains(t, string(r.body), "secret-agent", "no user agent")

		list := h.get(t, o.key.raw, exportsPath)
		require.Equal(t, http.StatusOK, list.status, "body: %s", list.body)
		var page struct {
			Data       []exportBody   `json:"data"`
			Pagination map[string]any `json:"pagination"`
		}
		list.decode(t, &page)
		require.Len(t, page.Data, 1)
		assert.Equal(t, e.ID, page.Data[0].ID)
		assert.EqualValues(t, 1, page.Pagination["total"])

		h.clock.Advance(24 * time.Hour)
		r, _ = h.download(t, o.key.raw, e.ID)
		assertError(t, r, http.StatusGone, errcode.Gone)
		assert.Nil(t, h.get(t, o.key.raw, exportsPath+"/"+e.ID).export(t, http.StatusOK).DownloadURL)
	})
}

func TestClickExportRequestValidation(t *testing.T) {
	t.Parallel()
	h := newExportHarness(t, storetest.SQLite(t))
	o := h.newOrg(t, "Acme")
	now := h.clock.Now()
	tests := []struct {
		name, body string
		fields     []string
	}{
		{"an unknown field", `{"ip":"1.2.3.4"}`, []string{"ip"}},
		{"a link_id that is not a UUID", `{"link_id":"spring"}`, []string{"link_id"}},
		{"a from that is not a date-time", `{"from":"yesterday"}`, []string{"from"}},
		{"an empty filter", `{"country":""}`, []string{"country"}},
		{"from not before to", fmt.Sprintf(`{"from":%q,"to":%q}`, now.Add(-time.Hour).Format(time.RFC3339),
			now.Add(-2*time.Hour).Format(time.RFC3339)), []string{"to"}},
	}
	for _, tt := range tests {
		// Every body but the last breaks the document's schema too.
		r := h.do(t, request{method: http.MethodPost, path: exportsPath, key: o.key.raw, body: tt.body,
			off: tt.name != "from not before to"})
		assertFields(t, assertError(t, r, http.StatusBadRequest, errcode.ValidationError), tt.fields...)
	}
	r := h.do(t, request{method: http.MethodGet, path: exportsPath + "?limit=0", key: o.key.raw, off: true})
	assertError(t, r, http.StatusBadRequest, errcode.ValidationError)
	r = h.do(t, request{method: http.MethodGet, path: exportsPath + "/not-a-uuid", key: o.key.raw, off: true})
	assertError(t, r, http.StatusBadRequest, errcode.InvalidID)
}

// Another organization's export is a 404 on every route, and absent from
// its list.
func TestClickExportOfAnotherOrganizationIsNotFound(t *testing.T) {
	t.Parallel()
	h := newExportHarness(t, storetest.SQLite(t))
	o, other := h.newOrg(t, "Acme"), h.newOrg(t, "Other")
	e := h.post(t, o.key.raw, exportsPath, `{}`).export(t, http.StatusAccepted)
	h.runWorker(t)
	assertError(t, h.get(t, other.key.raw, exportsPath+"/"+e.ID), http.StatusNotFound, errcode.NotFound)
	assertError(t, h.get(t, other.key.raw, exportsPath+"/"+e.ID+"/download"), http.StatusNotFound, errcode.NotFound)
	list := h.get(t, other.key.raw, exportsPath)
	require.Equal(t, http.StatusOK, list.status)
	assert.Contains(t, string(list.body), `"data":[]`)
}

// Scopes and roles as for installs: analytics:read; owners and admins
// export and see every export, a member exports the clicks of their own
// links and sees their own exports; SDK keys are refused.
func TestClickExportScopesAndRoles(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	h := newExportHarness(t, s)
	o := h.newOrg(t, "Acme")
	member := h.newMember(t, o, auth.RoleMember)
	admin := h.newMember(t, o, auth.RoleAdmin)
	mine := exportLink(t, s, o.ID, "mine", &member.id)
	theirs := exportLink(t, s, o.ID, "theirs", &admin.id)
	now := h.clock.Now()
	insertClicks(t, s, exportClick(mine, now.Add(-time.Hour)), exportClick(theirs, now.Add(-time.Hour)))

	linksOnly := h.scopedKey(t, o, auth.ScopeLinksRead)
	assertError(t, h.post(t, linksOnly.raw, exportsPath, `{}`), http.StatusForbidden, errcode.Forbidden)
	assertError(t, h.get(t, linksOnly.raw, exportsPath), http.StatusForbidden, errcode.Forbidden)
	sdk := h.sdkKey(t, o)
	assertError(t, h.post(t, sdk.raw, exportsPath, `{}`), http.StatusForbidden, errcode.SDKKeyRouteForbidden)

	memberKey := h.memberKey(t, member, auth.ScopeAnalyticsRead)
	adminKey := h.memberKey(t, admin, auth.ScopeAnalyticsRead)
	own := h.post(t, memberKey.raw, exportsPath, `{}`).export(t, http.StatusAccepted)
	all := h.post(t, adminKey.raw, exportsPath, `{}`).export(t, http.StatusAccepted)
	h.runWorker(t)

	_, records := h.download(t, memberKey.raw, own.ID)
	require.Len(t, records, 2, "the member's own link only")
	assert.Equal(t, "mine", records[1][3])
	_, records = h.download(t, adminKey.raw, all.ID)
	assert.Len(t, records, 3, "every link for an admin")
	_, records = h.download(t, adminKey.raw, own.ID)
	assert.Len(t, records, 2, "an admin reads the member's export as it was made")

	assertError(t, h.get(t, memberKey.raw, exportsPath+"/"+all.ID), http.StatusNotFound, errcode.NotFound)
	var page struct {
		Data []exportBody `json:"data"`
	}
	h.get(t, memberKey.raw, exportsPath).decode(t, &page)
	require.Len(t, page.Data, 1)
	assert.Equal(t, own.ID, page.Data[0].ID)
	h.get(t, adminKey.raw, exportsPath).decode(t, &page)
	assert.Len(t, page.Data, 2)
}

// The Free plan reads the last 30 days, and keeps exporting once its
// monthly click limit is reached.
func TestClickExportFreeLookback(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	h := newExportHarness(t, s)
	o := h.newOrg(t, "Acme")
	require.Equal(t, "free", string(o.Plan))
	now := h.clock.Now()
	old := now.Add(-31 * 24 * time.Hour).Format(time.RFC3339)
	r := h.post(t, o.key.raw, exportsPath, `{"from":"`+old+`"}`)
	assertError(t, r, http.StatusForbidden, errcode.LookbackExceeded)
	assert.Equal(t, now.Add(-30*24*time.Hour).Format("2006-01-02T15:04:05Z"), details(t, r)["earliest_allowed"])

	l := exportLink(t, s, o.ID, "spring", nil)
	insertClicks(t, s, exportClick(l, now.Add(-time.Hour)),
		analytics.Click{OrgID: o.ID, LinkID: l.ID, OccurredAt: now.Add(-time.Minute), CountOnly: true,
			Weight: int64(o.MonthlyClickLimit)})
	e := h.post(t, o.key.raw, exportsPath, `{}`).export(t, http.StatusAccepted)
	assert.True(t, e.Window.From.Equal(now.Add(-30*24*time.Hour)), "the default window: %v", e.Window.From)
	h.runWorker(t)
	_, records := h.download(t, o.key.raw, e.ID)
	assert.Len(t, records, 2, "past the click limit; the count-only clicks have no row")
}

// A job left running by a worker that died (its lease expired) is finished
// by the worker of a server started afterwards on the same database.
func TestClickExportRestartMidExport(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newExportHarness(t, s)
		o := h.newOrg(t, "Acme")
		l := exportLink(t, s, o.ID, "spring", nil)
		now := h.clock.Now()
		var in []analytics.Click
		for i := range 25 {
			in = append(in, exportClick(l, now.Add(-time.Hour+time.Duration(i)*time.Second)))
		}
		insertClicks(t, s, in...)
		e := h.post(t, o.key.raw, exportsPath, `{}`).export(t, http.StatusAccepted)

		// The first server's worker claims the job, counts a page and dies.
		h.clock.Advance(analytics.DefaultExportSettle)
		at := h.clock.Now()
		job, err := s.ClaimExport(context.Background(), "died", at, at, at.Add(analytics.DefaultExportLease))
		require.NoError(t, err)
		require.NotNil(t, job)
		n, last, err := s.CountExportClicks(context.Background(), job.Scope(), nil, 10)
		require.NoError(t, err)
		require.NoError(t, s.CheckpointExport(context.Background(), job.ID, "died", int64(n), *last, at.Add(analytics.DefaultExportLease)))
		running := h.get(t, o.key.raw, exportsPath+"/"+e.ID).export(t, http.StatusOK)
		assert.Equal(t, "running", running.Status)
		assert.Equal(t, int64(10), running.Rows, "the progress so far")

		restarted := newExportHarness(t, s, withClock(h.clock))
		ran, err := restarted.exports.RunOnce(context.Background())
		require.NoError(t, err)
		assert.False(t, ran, "the dead worker's lease still holds")
		h.clock.Advance(analytics.DefaultExportLease)
		restarted.runWorker(t)

		done := restarted.get(t, o.key.raw, exportsPath+"/"+e.ID).export(t, http.StatusOK)
		assert.Equal(t, "complete", done.Status)
		assert.Equal(t, int64(25), done.Rows)
		_, records := restarted.download(t, o.key.raw, e.ID)
		assert.Len(t, records, 26)
	})
}

// Two API servers on one PostgreSQL database: the export started on one
// and run by its worker downloads from the other.
func TestClickExportDownloadFromASecondServer(t *testing.T) {
	t.Parallel()
	dsn := storetest.PostgresDSN(t)
	open := func() *store.Store {
		s, err := store.Open(context.Background(), dsn)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	first := open()
	require.NoError(t, first.Migrate(context.Background()))
	second := open()
	clock := testkit.NewClock(start)
	a := newExportHarness(t, first, withClock(clock))
	b := newExportHarness(t, second, withClock(clock))
	o := a.newOrg(t, "Acme")
	l := exportLink(t, first, o.ID, "spring", nil)
	insertClicks(t, first, exportClick(l, clock.Now().Add(-time.Hour)), exportClick(l, clock.Now().Add(-time.Minute)))

	e := a.post(t, o.key.raw, exportsPath, `{}`).export(t, http.StatusAccepted)
	assert.Equal(t, "pending", b.get(t, o.key.raw, exportsPath+"/"+e.ID).export(t, http.StatusOK).Status)
	a.runWorker(t)
	got := b.get(t, o.key.raw, exportsPath+"/"+e.ID).export(t, http.StatusOK)
	assert.Equal(t, "complete", got.Status)
	_, records := b.download(t, o.key.raw, e.ID)
	assert.Len(t, records, 3)
}

// A million-row export streams in flat memory. The peak heap is sampled
// while the download runs; the rows per second it reports are the figure
// of BENCHMARKS.md ("Click exports").
func TestClickExportMillionRowsFlatMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a million clicks")
	}
	if testkit.RaceDetector {
		t.Skip("loads a million clicks, too slow under the race detector; .ci/run runs it without")
	}
	storetest.SkipUnlessSQLite(t)
	const total = 1_000_000
	s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "hoplink.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, s.Migrate(context.Background()))
	eh := &exportHarness{}
	h := newHarness(t, s, withAPI(func(h *harness, o *httpapi.Options) {
		eh.exports = analytics.NewExports(s, h.orgs, analytics.ExportsOptions{Clock: h.clock.Now, PublicURL: publicURL})
		o.Exports = eh.exports
	}))
	eh.harness = h
	o := h.newOrg(t, "Acme")
	_, err = s.DB().ExecContext(context.Background(), "UPDATE organizations SET plan = 'growth' WHERE id = ?", o.ID)
	require.NoError(t, err)
	l := exportLink(t, s, o.ID, "spring", nil)
	base := h.clock.Now().Add(-20 * 24 * time.Hour)
	loaded := time.Now()
	batch := make([]analytics.Click, 0, 5000)
	for i := range total {
		c := exportClick(l, base.Add(time.Duration(i)*time.Second))
		c.Referer = fmt.Sprintf("https://news.example/story/%d", i)
		batch = append(batch, c)
		if len(batch) == cap(batch) {
			insertClicks(t, s, batch...)
			batch = batch[:0]
		}
	}
	t.Logf("loaded %d clicks in %s", total, time.Since(loaded).Round(time.Second))
	_, err = s.DB().ExecContext(context.Background(), "PRAGMA wal_checkpoint(TRUNCATE)")
	require.NoError(t, err)

	e := h.post(t, o.key.raw, exportsPath, `{}`).export(t, http.StatusAccepted)
	counted := time.Now()
	eh.runWorker(t)
	t.Logf("counted in %s", time.Since(counted).Round(time.Millisecond))
	got := h.get(t, o.key.raw, exportsPath+"/"+e.ID).export(t, http.StatusOK)
	require.Equal(t, int64(total), got.Rows)

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	baseline := ms.HeapInuse
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})

	// A plain client: the validating one reads the whole body into memory.
	req, err := http.NewRequest(http.MethodGet, h.srv.URL+exportsPath+"/"+e.ID+"/download", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+o.key.raw)
	began := time.Now()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	lines := 0
	var size int64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		lines++
		size += int64(len(sc.Bytes())) + 1
	}
	require.NoError(t, sc.Err())
	took := time.Since(began)
	close(stop)
	wg.Wait()

	assert.Equal(t, total+1, lines, "header and a row per click")
	// What the download adds to the heap, not the heap itself: the
	// package's earlier tests leave theirs behind when it runs whole, and
	// the collector lets the heap grow to twice what is live before it
	// runs. An export held in memory would add more than the CSV's size.
	grew := peak - min(peak, baseline)
	t.Logf("download: %d rows, %d MiB in %s: %.0f rows/s; heap in use %d MiB before, peak %d MiB",
		total, size>>20, took.Round(time.Millisecond), float64(total)/took.Seconds(), baseline>>20, peak>>20)
	assert.Less(t, grew, uint64(size/4), "the heap grew by %d MiB while streaming %d MiB of CSV", grew>>20, size>>20)
}

// After a link is deleted its clicks are in no export, and its slug serves
// a new link whose clicks are.
func TestClickExportLeavesOutADeletedLink(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newExportHarness(t, s)
		o := h.newOrg(t, "Acme")
		gone := exportLink(t, s, o.ID, "gone", nil)
		kept := exportLink(t, s, o.ID, "kept", nil)
		now := h.clock.Now()
		insertClicks(t, s, exportClick(gone, now.Add(-3*time.Hour)), exportClick(kept, now.Add(-2*time.Hour)),
			exportClick(gone, now.Add(-time.Hour)))

		// What DELETE /v1/links/{id} calls (this harness serves no links).
		require.NoError(t, s.DeleteLink(t.Context(), o.ID, gone.ID))
		again := exportLink(t, s, o.ID, "gone", nil)
		insertClicks(t, s, exportClick(again, now.Add(-30*time.Minute)))

		e := h.post(t, o.key.raw, exportsPath, `{}`).export(t, http.StatusAccepted)
		h.runWorker(t)
		got := h.get(t, o.key.raw, exportsPath+"/"+e.ID).export(t, http.StatusOK)
		assert.Equal(t, int64(2), got.Rows)
		_, records := h.download(t, o.key.raw, e.ID)
		require.Len(t, records, 3)
		assert.Equal(t, kept.ID.String(), records[1][1])
		assert.Equal(t, again.ID.String(), records[2][1], "the new link with the reused slug")
	})
}
