package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/webhook"
)

var _ attribution.Store = (*Store)(nil)

// installRow is a row of installs.
type installRow struct {
	bun.BaseModel `bun:"table:installs,alias:i"`

	ID              uuid.UUID  `bun:"id,pk"`
	OrgID           uuid.UUID  `bun:"org_id"`
	AppID           *uuid.UUID `bun:"app_id"`
	LinkID          *uuid.UUID `bun:"link_id"`
	ClickID         *uuid.UUID `bun:"click_id"`
	MatchType       string     `bun:"match_type"`
	MatchConfidence float64    `bun:"match_confidence"`
	MatchGuaranteed bool       `bun:"match_guaranteed"`
	IsReinstall     *bool      `bun:"is_reinstall"`
	InstalledAt     time.Time  `bun:"installed_at"`
	DeviceID        *uuid.UUID `bun:"device_id"`
	Fingerprint     *string    `bun:"fingerprint"`
	IP              string     `bun:"ip"`
	Platform        string     `bun:"platform"`
	Payload         *string    `bun:"payload"`
}

// attemptRow is a row of attribution_attempts.
type attemptRow struct {
	bun.BaseModel `bun:"table:attribution_attempts,alias:aa"`

	ID                 uuid.UUID  `bun:"id,pk"`
	OrgID              uuid.UUID  `bun:"org_id"`
	AppID              *uuid.UUID `bun:"app_id"`
	Matched            bool       `bun:"matched"`
	FailReason         *string    `bun:"fail_reason"`
	MatchSource        *string    `bun:"match_source"`
	MatchType          *string    `bun:"match_type"`
	IPClass            *string    `bun:"ip_class"`
	Platform           string     `bun:"platform"`
	InstallID          *uuid.UUID `bun:"install_id"`
	CandFound          int        `bun:"cand_found"`
	CandEligible       int        `bun:"cand_eligible"`
	CandUnclaimed      int        `bun:"cand_unclaimed"`
	CandScored         int        `bun:"cand_scored"`
	TopConfidence      *float64   `bun:"top_confidence"`
	RunnerUpConfidence *float64   `bun:"runner_up_confidence"`
	Signals            string     `bun:"signals"`
	CreatedAt          time.Time  `bun:"created_at"`
}

// matchClickRow is a click with its link's match window.
type matchClickRow struct {
	ID               uuid.UUID  `bun:"id"`
	OrgID            uuid.UUID  `bun:"org_id"`
	LinkID           uuid.UUID  `bun:"link_id"`
	AppID            *uuid.UUID `bun:"app_id"`
	OccurredAt       time.Time  `bun:"occurred_at"`
	Platform         string     `bun:"platform"`
	OSVersion        string     `bun:"os_version"`
	DeviceModel      string     `bun:"device_model"`
	UserAgent        string     `bun:"user_agent"`
	AcceptLanguage   string     `bun:"accept_language"`
	IPKey            string     `bun:"ip_key"`
	ClaimedByInstall *uuid.UUID `bun:"claimed_by_install"`
	MatchWindowHours *int       `bun:"match_window_hours"`
}

func (r *matchClickRow) click() attribution.Click {
	return attribution.Click{
		ID: r.ID, LinkID: r.LinkID, AppID: r.AppID, OccurredAt: r.OccurredAt.UTC(), Platform: r.Platform,
		OSVersion: r.OSVersion, DeviceModel: r.DeviceModel, UserAgent: r.UserAgent, AcceptLanguage: r.AcceptLanguage,
		IPKey: r.IPKey, Claimed: r.ClaimedByInstall != nil, MatchWindowHours: r.MatchWindowHours,
	}
}

// clickPlatforms are every platform a click can have; naming them lets the
// candidate lookup use the (app_id, platform, ip_key, occurred_at) index.
var clickPlatforms = []string{"ios", "android", "desktop", "unknown"}

func (s *Store) selectMatchClicks() *bun.SelectQuery {
	return s.db.NewSelect().TableExpr("clicks AS c").Join("JOIN links AS l ON l.id = c.link_id").
		ColumnExpr("c.id, c.link_id, c.app_id, c.occurred_at, c.platform, c.os_version, c.device_model").
		ColumnExpr("c.user_agent, c.accept_language, c.ip_key, c.claimed_by_install, l.match_window_hours")
}

// MatchApps implements attribution.Store.
func (s *Store) MatchApps(ctx context.Context, orgID uuid.UUID) ([]attribution.App, error) {
	var rows []struct {
		ID                 uuid.UUID `bun:"id"`
		IOSBundleID        *string   `bun:"ios_bundle_id"`
		AndroidPackageName *string   `bun:"android_package_name"`
	}
	err := s.db.NewSelect().Table("apps").Column("id", "ios_bundle_id", "android_package_name").
		Where("org_id = ?", orgID).OrderExpr("id").Scan(ctx, &rows)
	if err != nil {
		return nil, s.err("match apps", err)
	}
	out := make([]attribution.App, len(rows))
	for i, r := range rows {
		out[i] = attribution.App{ID: r.ID, IOSBundleID: deref(r.IOSBundleID), AndroidPackageName: deref(r.AndroidPackageName)}
	}
	return out, nil
}

// MatchClick implements attribution.Store.
func (s *Store) MatchClick(ctx context.Context, orgID, id uuid.UUID) (*attribution.Click, error) {
	var row matchClickRow
	err := s.selectMatchClicks().Where("c.org_id = ? AND c.id = ?", orgID, id).Limit(1).Scan(ctx, &row)
	if errors.Is(err, sql.ErrNoRows) && s.db.Dialect().Name() != dialect.PG {
		// On SQLite a candidate may be in its segment alone (click_rows.go).
		c, serr := s.matchClickFromSegment(ctx, orgID, id)
		if serr != nil {
			return nil, s.err("match click", serr)
		}
		if c != nil {
			return c, nil
		}
	}
	if err != nil {
		return nil, s.err("match click", err)
	}
	c := row.click()
	return &c, nil
}

// CandidateClicks implements attribution.Store.
//
// On PostgreSQL the clicks are read alone, through the (app_id, platform,
// ip_key, occurred_at) index, newest first, and their links' match windows
// in a second query. On SQLite a candidate may have no row (click_rows.go):
// the key's clicks come from the candidate index, or from the segments
// (keyCandidates).
func (s *Store) CandidateClicks(ctx context.Context, q attribution.CandidateQuery) ([]attribution.Click, error) {
	if len(q.AppIDs) == 0 || q.Limit <= 0 {
		return nil, nil
	}
	var (
		out []attribution.Click
		err error
	)
	if s.db.Dialect().Name() == dialect.PG {
		out, err = s.candidateClicksPG(ctx, q)
	} else {
		out, err = s.candidateClicksSQLite(ctx, q)
	}
	if err != nil || len(out) == 0 {
		return nil, s.err("candidate clicks", err)
	}
	if out, err = s.linkWindows(ctx, q.OrgID, out); err != nil {
		return nil, s.err("candidate clicks", err)
	}
	return out, nil
}

// candidateClicksPG reads CandidateClicks' clicks on PostgreSQL: the
// newest q.Limit.
func (s *Store) candidateClicksPG(ctx context.Context, q attribution.CandidateQuery) ([]attribution.Click, error) {
	rows, err := s.db.NewSelect().TableExpr("clicks AS c").
		ColumnExpr(keyClickColumns).ColumnExpr("c.org_id").
		Where("c.app_id IN (?) AND c.platform IN (?) AND c.ip_key = ?", bun.List(q.AppIDs), bun.List(clickPlatforms), q.IPKey).
		Where("c.occurred_at >= ? AND c.occurred_at < ?", q.Since.UTC(), q.Until.UTC()).
		OrderExpr("c.occurred_at DESC, c.id DESC").Limit(int64(q.Limit)).Rows(ctx)
	if err != nil {
		return nil, err
	}
	return scanOrgClicks(rows, q.OrgID)
}

// candidateClicksSQLite reads CandidateClicks' clicks on SQLite: the
// newest q.Limit of the key's clicks of q.AppIDs.
func (s *Store) candidateClicksSQLite(ctx context.Context, q attribution.CandidateQuery) ([]attribution.Click, error) {
	cs, err := s.keyCandidates(ctx, q.OrgID, q.IPKey, q.Since, q.Until)
	if err != nil {
		return nil, err
	}
	var out []attribution.Click
	for i := len(cs) - 1; i >= 0 && len(out) < q.Limit; i-- {
		if slices.Contains(q.AppIDs, cs[i].app) {
			out = append(out, cs[i].click(q.IPKey))
		}
	}
	return out, nil
}

// scanOrgClicks scans rows of keyClickColumns and c.org_id, keeping the
// clicks of orgID and closing rows. The organization is checked here rather
// than in the query: with it there, SQLite's planner prefers the (org_id,
// occurred_at) index and reads the organization's whole day.
func scanOrgClicks(rows *sql.Rows, orgID uuid.UUID) ([]attribution.Click, error) {
	defer rows.Close()
	var (
		out []attribution.Click
		sc  keyClickScan
		org uuid.UUID
	)
	dest := append(sc.dest(), &org)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if org == orgID {
			out = append(out, sc.click())
		}
	}
	return out, rows.Err()
}

// linkWindows sets the clicks' MatchWindowHours from their links, which
// belong to orgID, and returns them without the clicks of links that are
// gone: a deleted link's rows stay until its compaction removes them
// (link_delete.go), and no install may be attributed to it.
func (s *Store) linkWindows(ctx context.Context, orgID uuid.UUID, clicks []attribution.Click) ([]attribution.Click, error) {
	var linkIDs []uuid.UUID
	seen := map[uuid.UUID]bool{}
	for i := range clicks {
		if !seen[clicks[i].LinkID] {
			seen[clicks[i].LinkID] = true
			linkIDs = append(linkIDs, clicks[i].LinkID)
		}
	}
	rows, err := s.db.NewSelect().Table("links").Column("id", "match_window_hours").
		Where("org_id = ? AND id IN (?)", orgID, bun.List(linkIDs)).Rows(ctx)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byLink := make(map[uuid.UUID]*int, len(linkIDs))
	found := make(map[uuid.UUID]bool, len(linkIDs))
	for rows.Next() {
		var (
			id    uuid.UUID
			hours sql.NullInt64
		)
		if err := rows.Scan(&id, &hours); err != nil {
			return nil, err
		}
		found[id] = true
		if hours.Valid {
			h := int(hours.Int64)
			byLink[id] = &h
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := clicks[:0]
	for i := range clicks {
		if found[clicks[i].LinkID] {
			clicks[i].MatchWindowHours = byLink[clicks[i].LinkID]
			out = append(out, clicks[i])
		}
	}
	return out, nil
}

// KeyClicks implements attribution.Store.
//
// The candidate index answers once it is built (candidates.go). Until then,
// on PostgreSQL one statement counts, reads and joins the links' windows
// (keyClicksPGQuery): the planner keeps to the (app_id, platform, ip_key,
// occurred_at) index with the organization and the join in the query, and
// a round trip costs more than SQLite's call. On SQLite, where a candidate
// may have no row, a read while the index's first build runs waits for it
// (up to candidateBuildWait): the alternative, decoding the organization's
// segments of the window for every match, would cost a busy server's start
// far more.
func (s *Store) KeyClicks(ctx context.Context, q attribution.KeyQuery) (attribution.KeyRead, error) {
	if len(q.AppIDs) == 0 || q.Limit <= 0 {
		return attribution.KeyRead{}, nil
	}
	if s.candidates != nil && s.candidates.use(ctx, &q) {
		return s.indexKeyClicks(ctx, &q)
	}
	if s.db.Dialect().Name() == dialect.PG {
		return s.keyClicksPG(ctx, q)
	}
	if s.candidates.waitFirstBuild(ctx) && s.candidates.use(ctx, &q) {
		return s.indexKeyClicks(ctx, &q)
	}
	return s.keyClicksSQLite(ctx, q)
}

// indexKeyClicks is KeyClicks answered by the candidate index, which use
// has just accepted for q.
func (s *Store) indexKeyClicks(ctx context.Context, q *attribution.KeyQuery) (attribution.KeyRead, error) {
	read := s.candidates.read(q)
	if len(read.Clicks) > 0 {
		clicks, err := s.linkWindows(ctx, q.OrgID, read.Clicks)
		if err != nil {
			return attribution.KeyRead{}, s.err("key clicks", err)
		}
		read.Clicks = clicks
	}
	return read, nil
}

// keyClicksSQLite is KeyClicks read from a SQLite database, where a
// candidate may have no row (click_rows.go): the key's clicks of the window
// from its organization's segments, answered as the candidate index
// answers.
func (s *Store) keyClicksSQLite(ctx context.Context, q attribution.KeyQuery) (attribution.KeyRead, error) {
	s.segmentKeyReads.Add(1)
	since := q.Since
	if q.BusySince.Before(since) {
		since = q.BusySince
	}
	cs, err := s.keyCandidatesFromSegments(ctx, q.OrgID, q.IPKey, since, q.Until)
	if err != nil {
		return attribution.KeyRead{}, s.err("key clicks", err)
	}
	read := readKey(cs, &q)
	if len(read.Clicks) > 0 {
		if read.Clicks, err = s.linkWindows(ctx, q.OrgID, read.Clicks); err != nil {
			return attribution.KeyRead{}, s.err("key clicks", err)
		}
	}
	return read, nil
}

// keyClicksPGQuery is KeyClicks on PostgreSQL, one prepared statement.
// The count (an index-only scan once the visibility map is set) is always
// one row; the key's clicks are joined to it laterally (kind 'c' for what
// KeyRead calls Clicks, 'b' for its Background), so that a key without
// clicks in its window still answers with its count. Only the arms that
// the count selects run: every app's clicks of the day when the key is not
// busy; the app's clicks since busy since and the background sample when it
// is. The sample starts at the time of the key's sample-th newest click
// since busy since, found through the index alone (busy since when it has
// fewer).
//
// Its parameters: $1 the apps, $2 the platforms, $3 the key, $4 since, $5
// until, $6 the limit, $7 the organization, $8 the request's app, $9 busy
// since, $10 the sample's size and $11 the sample's size less one.
const keyClicksPGQuery = `WITH n AS (
	SELECT count(*) AS n FROM (
		SELECT 1 FROM clicks
		WHERE app_id = ANY($1::uuid[]) AND platform = ANY($2::text[]) AND ip_key = $3
			AND occurred_at >= $4 AND occurred_at < $5
		LIMIT $6
	) AS t
)
SELECT n.n, k.kind, k.id, k.link_id, k.app_id, k.occurred_at, k.platform, k.os_version, k.device_model,
	k.user_agent, k.accept_language, k.ip_key, k.claimed, k.match_window_hours
FROM n LEFT JOIN LATERAL ((
	SELECT 'c' AS kind, ` + keyClickColumns + ` AS claimed, l.match_window_hours
	FROM clicks AS c JOIN links AS l ON l.id = c.link_id
	WHERE n.n > 0 AND n.n < $6
		AND c.org_id = $7 AND c.app_id = ANY($1::uuid[]) AND c.platform = ANY($2::text[]) AND c.ip_key = $3
		AND c.occurred_at >= $4 AND c.occurred_at < $5
	ORDER BY c.occurred_at DESC, c.id DESC
	LIMIT $6
) UNION ALL (
	SELECT 'c' AS kind, ` + keyClickColumns + ` AS claimed, l.match_window_hours
	FROM clicks AS c JOIN links AS l ON l.id = c.link_id
	WHERE n.n >= $6
		AND c.org_id = $7 AND c.app_id = $8 AND c.platform = ANY($2::text[]) AND c.ip_key = $3
		AND c.occurred_at >= $9 AND c.occurred_at < $5
	ORDER BY c.occurred_at DESC, c.id DESC
	LIMIT $6
) UNION ALL (
	SELECT 'b' AS kind, ` + keyClickColumns + ` AS claimed, NULL
	FROM clicks AS c
	WHERE n.n >= $6
		AND c.org_id = $7 AND c.app_id = ANY($1::uuid[]) AND c.platform = ANY($2::text[]) AND c.ip_key = $3
		AND c.occurred_at < $5
		AND c.occurred_at >= coalesce((
			SELECT occurred_at FROM clicks
			WHERE app_id = ANY($1::uuid[]) AND platform = ANY($2::text[]) AND ip_key = $3
				AND occurred_at >= $9 AND occurred_at < $5
			ORDER BY occurred_at DESC LIMIT 1 OFFSET $11
		), $9)
	ORDER BY c.occurred_at DESC, c.id DESC
	LIMIT $10
)) AS k ON true`

// pgArray returns values as a PostgreSQL array literal, for a parameter of
// a prepared statement; the values need no quoting (ids, platforms).
func pgArray(values []string) string {
	return "{" + strings.Join(values, ",") + "}"
}

// uuidStrings returns ids as strings.
func uuidStrings(ids []uuid.UUID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}

func (s *Store) keyClicksPG(ctx context.Context, q attribution.KeyQuery) (attribution.KeyRead, error) {
	stmt, err := s.preparedStmt(ctx, keyClicksPGQuery)
	if err != nil {
		return attribution.KeyRead{}, s.err("key clicks", err)
	}
	sample := max(q.Background, 0)
	rows, err := stmt.QueryContext(ctx, pgArray(uuidStrings(q.AppIDs)), pgArray(clickPlatforms), q.IPKey,
		q.Since.UTC(), q.Until.UTC(), q.Limit, q.OrgID, q.AppID, q.BusySince.UTC(), sample, max(sample-1, 0))
	if err != nil {
		return attribution.KeyRead{}, s.err("key clicks", err)
	}
	var (
		read attribution.KeyRead
		n    int
		kind sql.NullString
	)
	err = scanClicksPG(rows, func(dest []any) []any { return append([]any{&n, &kind}, dest...) }, func(c attribution.Click) {
		if kind.String == "b" {
			read.Background = append(read.Background, c)
		} else {
			read.Clicks = append(read.Clicks, c)
		}
	})
	if err != nil {
		return attribution.KeyRead{}, s.err("key clicks", err)
	}
	// Each arm is ordered; their union need not be.
	attribution.SortNewestFirst(read.Clicks)
	attribution.SortNewestFirst(read.Background)
	read.Busy = n >= q.Limit
	return read, nil
}

// scanClicksPG scans rows of leading columns (lead puts their destinations
// before the others), keyClickColumns and a link's match window, calling
// each with every click once its leading columns are scanned; rows without
// a click (the count's row of a key without clicks) are skipped. rows is
// closed.
func scanClicksPG(rows *sql.Rows, lead func([]any) []any, each func(attribution.Click)) error {
	defer rows.Close()
	var (
		sc          keyClickScan
		windowHours sql.NullInt64
	)
	dest := lead(append(sc.dest(), &windowHours))
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if !sc.id.Valid {
			continue
		}
		c := sc.click()
		if windowHours.Valid {
			h := int(windowHours.Int64)
			c.MatchWindowHours = &h
		}
		each(c)
	}
	return rows.Err()
}

// keyClickColumns are the columns of a click that keyClickScan scans, of
// clicks AS c.
const keyClickColumns = "c.id, c.link_id, c.app_id, c.occurred_at, c.platform, c.os_version, c.device_model, " +
	"c.user_agent, c.accept_language, c.ip_key, c.claimed_by_install IS NOT NULL"

// keyClickScan scans keyClickColumns without bun's reflection: a busy key
// has hundreds of clicks, and scanning them was a good part of a match's
// CPU. Every column may be NULL, for the lateral join of keyClicksPGQuery.
type keyClickScan struct {
	id, linkID, appID                           uuid.NullUUID
	at                                          sql.NullTime
	platform, osVersion, model, agent, language sql.NullString
	ipKey                                       sql.NullString
	claimed                                     sql.NullBool
}

func (k *keyClickScan) dest() []any {
	return []any{&k.id, &k.linkID, &k.appID, &k.at, &k.platform, &k.osVersion, &k.model, &k.agent, &k.language, &k.ipKey, &k.claimed}
}

// click returns the scanned click, without its link's window.
func (k *keyClickScan) click() attribution.Click {
	c := attribution.Click{
		ID: k.id.UUID, LinkID: k.linkID.UUID, OccurredAt: k.at.Time.UTC(), Platform: k.platform.String,
		OSVersion: k.osVersion.String, DeviceModel: k.model.String, UserAgent: k.agent.String,
		AcceptLanguage: k.language.String, IPKey: k.ipKey.String, Claimed: k.claimed.Bool,
	}
	if k.appID.Valid {
		app := k.appID.UUID
		c.AppID = &app
	}
	return c
}

// MatchLink implements attribution.Store.
func (s *Store) MatchLink(ctx context.Context, orgID, id uuid.UUID) (*attribution.Link, error) {
	var row struct {
		ID             uuid.UUID  `bun:"id"`
		AppID          *uuid.UUID `bun:"app_id"`
		DestinationURL string     `bun:"destination_url"`
		IOSURL         *string    `bun:"ios_url"`
		AndroidURL     *string    `bun:"android_url"`
	}
	err := s.db.NewSelect().Table("links").Column("id", "app_id", "destination_url", "ios_url", "android_url").
		Where("org_id = ? AND id = ?", orgID, id).Limit(1).Scan(ctx, &row)
	if err != nil {
		return nil, s.err("match link", err)
	}
	return &attribution.Link{ID: row.ID, AppID: row.AppID, DestinationURL: row.DestinationURL, IOSURL: row.IOSURL, AndroidURL: row.AndroidURL}, nil
}

// ReplayInstall implements attribution.Store.
func (s *Store) ReplayInstall(ctx context.Context, orgID uuid.UUID, appID, deviceID *uuid.UUID, fingerprint string, since time.Time) (*attribution.InstallRecord, error) {
	q := s.db.NewSelect().Model((*installRow)(nil)).Where("i.org_id = ?", orgID)
	if appID == nil {
		q = q.Where("i.app_id IS NULL")
	} else {
		q = q.Where("i.app_id = ?", *appID)
	}
	switch {
	case deviceID != nil:
		q = q.Where("i.device_id = ?", *deviceID)
	case fingerprint != "":
		q = q.Where("i.fingerprint = ?", fingerprint)
	default:
		return nil, s.err("replay install", sql.ErrNoRows)
	}
	// No ORDER BY: with one, SQLite's planner walks the (org_id,
	// installed_at) index over every install of the window instead of the
	// device's or fingerprint's few. The newest is picked here.
	var rows []installRow
	err := q.Where("i.installed_at >= ?", since.UTC()).Scan(ctx, &rows)
	if err != nil {
		return nil, s.err("replay install", err)
	}
	if len(rows) == 0 {
		return nil, s.err("replay install", sql.ErrNoRows)
	}
	best := &rows[0]
	for i := range rows {
		if newerInstall(&rows[i], best) {
			best = &rows[i]
		}
	}
	return best.record()
}

func newerInstall(a, b *installRow) bool {
	if !a.InstalledAt.Equal(b.InstalledAt) {
		return a.InstalledAt.After(b.InstalledAt)
	}
	return a.ID.String() > b.ID.String()
}

// DeviceInstalls implements attribution.Store.
func (s *Store) DeviceInstalls(ctx context.Context, orgID, deviceID uuid.UUID) ([]attribution.InstallRecord, error) {
	var rows []installRow
	// Sorted here, not by the query: see ReplayInstall.
	err := s.db.NewSelect().Model((*installRow)(nil)).
		Where("i.org_id = ? AND i.device_id = ?", orgID, deviceID).Scan(ctx, &rows)
	if err != nil {
		return nil, s.err("device installs", err)
	}
	sort.Slice(rows, func(i, j int) bool { return newerInstall(&rows[i], &rows[j]) })
	out := make([]attribution.InstallRecord, len(rows))
	for i := range rows {
		rec, err := rows[i].record()
		if err != nil {
			return nil, err
		}
		out[i] = *rec
	}
	return out, nil
}

// Claim implements attribution.Store.
//
// The install is inserted first: the unique index on installs.click_id
// makes a concurrent claim of the same click wait for this transaction and
// then fail. The clicks are then updated only where claimed_by_install is
// still NULL (on PostgreSQL the update re-checks that after waiting for a
// concurrent claim's row lock); when the install's own click is not
// updated, another install holds it and nothing is written. On SQLite a
// click held by its segment alone gets its row before the install
// (click_rows.go).
func (s *Store) Claim(ctx context.Context, in attribution.InstallRecord, a attribution.Attempt) error {
	row, err := fromInstallRecord(&in)
	if err != nil {
		return err
	}
	att := fromAttempt(&a)
	var (
		claimed []uuid.UUID
		keys    []string
	)
	if s.db.Dialect().Name() == dialect.PG {
		claimed, keys, err = s.claimPG(ctx, &in, &a, &row, &att)
	} else {
		claimed, keys, err = s.claimSQLite(ctx, &in, &a, &row, &att)
	}
	switch {
	case err == nil:
		s.candidates.markClaimed(in.OrgID, claimed, keys)
	case errors.Is(err, attribution.ErrClaimed):
		// Another install holds the click, perhaps one this process's
		// index has not seen claimed (another process's or replica's).
		s.candidates.markClaimedByID(ctx, in.OrgID, in.ClickID)
		return err
	}
	return s.err("claim", err)
}

// claimSQLite is Claim on SQLite, a statement each: the install, the
// update of each click (returning its key, for the candidate index), the
// attempt. It returns the clicks it claimed and their keys.
func (s *Store) claimSQLite(ctx context.Context, in *attribution.InstallRecord, a *attribution.Attempt, row *installRow, att *attemptRow) ([]uuid.UUID, []string, error) {
	var (
		claimed []uuid.UUID
		keys    []string
	)
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// A click in its segment alone gets its row first, which the
		// install refers to (click_rows.go).
		ids := in.ClaimedClickIDs
		if in.ClickID != nil && !slices.Contains(ids, *in.ClickID) {
			ids = append(slices.Clip(ids), *in.ClickID)
		}
		if err := s.writeRowsFromSegments(ctx, tx, in.OrgID, ids); err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
			if uniqueViolation(err) {
				return attribution.ErrClaimed
			}
			return err
		}
		// One statement per click (a session has a few): with id = ? the
		// primary key is always the index used, where an IN list lets
		// SQLite's planner walk the organization's clicks instead. Each
		// returns the click's key, for the candidate index.
		for _, id := range in.ClaimedClickIDs {
			var key string
			err := tx.NewUpdate().Table("clicks").Set("claimed_by_install = ?", in.ID).
				Where("id = ? AND org_id = ? AND claimed_by_install IS NULL", id, in.OrgID).
				Returning("ip_key").Scan(ctx, &key)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				if in.ClickID != nil && id == *in.ClickID {
					return attribution.ErrClaimed
				}
				continue
			case err != nil:
				return err
			}
			claimed, keys = append(claimed, id), append(keys, key)
		}
		if err := s.onInstallAttributed(ctx, tx, in.OrgID, in.ClickID); err != nil {
			return err
		}
		if err := s.emitInstall(ctx, tx, in, a); err != nil {
			return err
		}
		_, err := tx.NewInsert().Model(att).Exec(ctx)
		return err
	})
	return claimed, keys, err
}

// claimPG is Claim on PostgreSQL: one statement inserts the install and the
// attempt and updates the clicks, where SQLite takes a statement each. The
// unique index on installs.click_id and the clicks' row locks decide a
// race as they do there; the statement returns the clicks it updated, and
// when the install's own click is not among them the transaction is rolled
// back.
func (s *Store) claimPG(ctx context.Context, in *attribution.InstallRecord, a *attribution.Attempt, row *installRow, att *attemptRow) ([]uuid.UUID, []string, error) {
	var updated []uuid.UUID
	var keys []string
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		ids := in.ClaimedClickIDs
		if len(ids) == 0 {
			ids = []uuid.UUID{uuid.Nil} // IN () is not valid SQL; no click has the nil id
		}
		updated, keys = nil, nil
		err := tx.NewSelect().
			With("i", tx.NewInsert().Model(row)).
			With("a", tx.NewInsert().Model(att)).
			With("u", tx.NewUpdate().Table("clicks").Set("claimed_by_install = ?", in.ID).
				Where("id IN (?) AND org_id = ? AND claimed_by_install IS NULL", bun.List(ids), in.OrgID).Returning("id, ip_key")).
			Table("u").Column("id", "ip_key").Scan(ctx, &updated, &keys)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			if uniqueViolation(err) {
				return attribution.ErrClaimed
			}
			return err
		}
		if in.ClickID != nil && !slices.Contains(updated, *in.ClickID) && slices.Contains(in.ClaimedClickIDs, *in.ClickID) {
			return attribution.ErrClaimed
		}
		if err := s.onInstallAttributed(ctx, tx, in.OrgID, in.ClickID); err != nil {
			return err
		}
		return s.emitInstall(ctx, tx, in, a)
	})
	return updated, keys, err
}

// RecordAttempt implements attribution.Store.
//
// On PostgreSQL the attempt's transaction commits asynchronously
// (synchronous_commit off for it alone): the match does not wait for the
// WAL to reach the disk, and a crash of the database server may lose the
// attempts of its last moments (never an install, whose claim commits
// synchronously; never the database's consistency). An attempt is a record
// of how a request was decided, not data a client depends on; SQLite under
// WAL with synchronous=NORMAL makes the same trade for every write.
//
// The setting is made by the INSERT's own RETURNING clause (set_config
// with is_local), inside the statement's implicit transaction and before
// its commit, which reads it; the transaction's end restores it. One round
// trip instead of four (BEGIN, SET LOCAL, INSERT, COMMIT).
//
// An unmatched attempt is announced (install.unattributed): when an
// endpoint of the organization subscribes to it, the attempt and the event
// are written in one transaction that commits synchronously, as outbox
// writes must; otherwise the attempt takes the fast path above. Which
// organizations subscribe is read from the list subscribers keeps, not on
// every attempt: on PostgreSQL that query took the median write that ends
// a match from 0.43 to 0.75 ms (BENCHMARKS.md, "Where a match's time
// goes").
func (s *Store) RecordAttempt(ctx context.Context, a attribution.Attempt) error {
	row := fromAttempt(&a)
	if !a.Matched {
		subs, err := s.subscribers(ctx, s.db, webhook.InstallUnattributed)
		if err != nil {
			return s.err("record attempt", err)
		}
		if subs[a.OrgID] {
			err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
				if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
					return err
				}
				ev, err := installUnattributedEvent(&a)
				if err != nil {
					return err
				}
				return s.emit(ctx, tx, ev)
			})
			return s.err("record attempt", err)
		}
	}
	q := s.db.NewInsert().Model(&row)
	if s.Dialect() != "pg" {
		_, err := q.Exec(ctx)
		return s.err("record attempt", err)
	}
	var setting string
	_, err := q.Returning("set_config('synchronous_commit', 'off', true)").Exec(ctx, &setting)
	return s.err("record attempt", err)
}

// ListInstalls implements attribution.Store.
func (s *Store) ListInstalls(ctx context.Context, f attribution.InstallFilter, limit int) ([]attribution.Install, error) {
	q := s.db.NewSelect().Model((*installRow)(nil)).
		Where("i.org_id = ? AND i.installed_at >= ? AND i.installed_at < ?", f.OrgID, f.From.UTC(), f.To.UTC())
	q = appWhere(q, "i.app_id", f.App)
	if f.LinkID != nil {
		q = q.Where("i.link_id = ?", *f.LinkID)
	}
	if f.CreatedBy != nil {
		q = q.Where("i.link_id IN (?)", s.db.NewSelect().Table("links").Column("id").
			Where("org_id = ? AND created_by = ?", f.OrgID, *f.CreatedBy))
	}
	if f.After != nil {
		t := f.After.Time.UTC()
		q = q.Where("(i.installed_at < ? OR (i.installed_at = ? AND i.id < ?))", t, t, f.After.ID)
	}
	var rows []installRow
	if err := q.OrderExpr("i.installed_at DESC, i.id DESC").Limit(int64(limit)).Scan(ctx, &rows); err != nil {
		return nil, s.err("list installs", err)
	}
	out := make([]attribution.Install, len(rows))
	for i := range rows {
		out[i] = rows[i].install()
	}
	return out, nil
}

// ListAttempts implements attribution.Store.
func (s *Store) ListAttempts(ctx context.Context, f attribution.AttemptFilter, limit int) ([]attribution.Attempt, error) {
	q := s.db.NewSelect().Model((*attemptRow)(nil)).
		Where("aa.org_id = ? AND aa.created_at >= ? AND aa.created_at < ?", f.OrgID, f.From.UTC(), f.To.UTC())
	q = appWhere(q, "aa.app_id", f.App)
	if f.Matched != nil {
		q = q.Where("aa.matched = ?", *f.Matched)
	}
	if f.After != nil {
		t := f.After.Time.UTC()
		q = q.Where("(aa.created_at < ? OR (aa.created_at = ? AND aa.id < ?))", t, t, f.After.ID)
	}
	var rows []attemptRow
	if err := q.OrderExpr("aa.created_at DESC, aa.id DESC").Limit(int64(limit)).Scan(ctx, &rows); err != nil {
		return nil, s.err("list attempts", err)
	}
	out := make([]attribution.Attempt, len(rows))
	for i := range rows {
		out[i] = rows[i].attempt()
	}
	return out, nil
}

func appWhere(q *bun.SelectQuery, col string, f attribution.AppFilter) *bun.SelectQuery {
	switch {
	case f.None:
		return q.Where("? IS NULL", bun.Safe(col))
	case f.ID != nil:
		return q.Where("? = ?", bun.Safe(col), *f.ID)
	}
	return q
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func fromInstallRecord(in *attribution.InstallRecord) (installRow, error) {
	row := installRow{
		ID: in.ID, OrgID: in.OrgID, AppID: in.AppID, LinkID: in.LinkID, ClickID: in.ClickID,
		MatchGuaranteed: in.MatchGuaranteed, IsReinstall: in.IsReinstall, InstalledAt: in.InstalledAt.UTC(),
		DeviceID: in.DeviceID, IP: in.IP, Platform: string(in.Platform),
	}
	if in.Fingerprint != "" {
		fp := in.Fingerprint
		row.Fingerprint = &fp
	}
	if in.Payload != nil {
		row.MatchType = string(in.Payload.MatchType)
		row.MatchConfidence = in.Payload.MatchConfidence
		b, err := json.Marshal(in.Payload)
		if err != nil {
			return installRow{}, err
		}
		p := string(b)
		row.Payload = &p
	}
	return row, nil
}

func (r *installRow) install() attribution.Install {
	return attribution.Install{
		ID: r.ID, ClickID: r.ClickID, LinkID: r.LinkID, AppID: r.AppID, MatchGuaranteed: r.MatchGuaranteed,
		IsReinstall: r.IsReinstall, InstalledAt: r.InstalledAt.UTC(), HasDeviceID: r.DeviceID != nil,
		HasDeviceFingerprint: r.Fingerprint != nil, HasMatchedPayload: r.Payload != nil,
	}
}

func (r *installRow) record() (*attribution.InstallRecord, error) {
	rec := &attribution.InstallRecord{
		Install: r.install(), OrgID: r.OrgID, DeviceID: r.DeviceID, Fingerprint: deref(r.Fingerprint), IP: r.IP,
		Platform: attribution.Platform(r.Platform),
	}
	if r.Payload != nil {
		var p attribution.Payload
		if err := json.Unmarshal([]byte(*r.Payload), &p); err != nil {
			return nil, errors.New("store: replay install: stored payload is not valid")
		}
		rec.Payload = &p
	}
	return rec, nil
}

func fromAttempt(a *attribution.Attempt) attemptRow {
	row := attemptRow{
		ID: a.ID, OrgID: a.OrgID, AppID: a.AppID, Matched: a.Matched, Platform: string(a.Platform),
		InstallID: a.InstallID, CandFound: a.Candidates.Found, CandEligible: a.Candidates.Eligible,
		CandUnclaimed: a.Candidates.Unclaimed, CandScored: a.Candidates.Scored, TopConfidence: a.TopConfidence,
		RunnerUpConfidence: a.RunnerUpConfidence, Signals: strings.Join(a.Signals, ","), CreatedAt: a.CreatedAt.UTC(),
	}
	if a.FailReason != nil {
		row.FailReason = ptr(string(*a.FailReason))
	}
	if a.MatchSource != nil {
		row.MatchSource = ptr(string(*a.MatchSource))
	}
	if a.MatchType != nil {
		row.MatchType = ptr(string(*a.MatchType))
	}
	if a.IPClass != nil {
		row.IPClass = ptr(string(*a.IPClass))
	}
	return row
}

func (r *attemptRow) attempt() attribution.Attempt {
	a := attribution.Attempt{
		ID: r.ID, OrgID: r.OrgID, AppID: r.AppID, Matched: r.Matched, Platform: attribution.Platform(r.Platform),
		InstallID: r.InstallID, CreatedAt: r.CreatedAt.UTC(), TopConfidence: r.TopConfidence,
		RunnerUpConfidence: r.RunnerUpConfidence, Signals: []string{},
		Candidates: attribution.CandidateCounts{Found: r.CandFound, Eligible: r.CandEligible, Unclaimed: r.CandUnclaimed, Scored: r.CandScored},
	}
	if r.Signals != "" {
		a.Signals = strings.Split(r.Signals, ",")
	}
	if r.FailReason != nil {
		v := attribution.FailReason(*r.FailReason)
		a.FailReason = &v
	}
	if r.MatchSource != nil {
		v := attribution.MatchSource(*r.MatchSource)
		a.MatchSource = &v
	}
	if r.MatchType != nil {
		v := attribution.MatchType(*r.MatchType)
		a.MatchType = &v
	}
	if r.IPClass != nil {
		v := attribution.IPClass(*r.IPClass)
		a.IPClass = &v
	}
	return a
}

func ptr[T any](v T) *T { return &v }

// emitInstall announces the install a claim created (install.attributed)
// through tx, the claim's transaction.
func (s *Store) emitInstall(ctx context.Context, tx bun.IDB, in *attribution.InstallRecord, a *attribution.Attempt) error {
	ev, err := installAttributedEvent(in, a)
	if err != nil {
		return err
	}
	return s.emit(ctx, tx, ev)
}
