package attribution

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
)

// Windows and bounds of matching (issue 5, item 3).
const (
	// ReplayWindow is how long after an install the same device's request
	// replays its answer.
	ReplayWindow = 24 * time.Hour
	// DefaultMatchWindowHours is a link's deterministic match window when
	// its match_window_hours is null.
	DefaultMatchWindowHours = 168
	// ProbabilisticWindow is the longest a click may precede an install
	// matched probabilistically (shorter when the link's match_window_hours
	// is).
	ProbabilisticWindow = 24 * time.Hour
	// CGNATWindow replaces ProbabilisticWindow behind carrier-grade NAT.
	CGNATWindow = 6 * time.Hour
	// ClaimSessionWindow is how far before the claimed click a claim takes
	// the same device's other clicks, and the span of a Session.
	ClaimSessionWindow = 30 * time.Minute
	// MaxCandidateClicks bounds the clicks read for one IP key. A key with
	// at least as many clicks in ProbabilisticWindow (all apps, counted
	// first through the index alone) is busy: an IPv4 address is then
	// carrier-grade NAT whatever its devices (an IPv6 /64 stays ipv6). Its
	// candidates are its clicks of the request's app of the last
	// CGNATWindow (a carrier NAT address's cannot be older), the newest
	// MaxCandidateClicks of them, and its background is a sample, the
	// newest BusyBackgroundClicks clicks of every app, over the span they
	// cover (Background.Over).
	MaxCandidateClicks = 500
	// BusyBackgroundClicks is how many of a busy key's newest clicks (every
	// app, within CGNATWindow) are read as its background. The odds weigh
	// the delay density against the key's click rate, and the signal
	// ratios against its devices' signal frequencies: a sample of this
	// size estimates both without bias, less precisely than six hours of a
	// busy key (hundreds of clicks, up to MaxCandidateClicks) but well
	// enough for a key whose ip factor already counts for little, in a
	// fraction of the rows read.
	BusyBackgroundClicks = 100
	// minBackgroundSpan floors the span of a busy key's background sample,
	// so that a burst of clicks within a moment still has a rate.
	minBackgroundSpan = time.Minute
	// claimAttempts is how often Match starts over after losing a claim.
	claimAttempts = 3
)

// KeyAppMismatchMessage is the one message of KEY_APP_MISMATCH, whether
// the key is tied to another app or the app is unknown.
const KeyAppMismatchMessage = "this SDK key cannot be used for this app"

// MatchInput is one POST /v1/attribution/match as the Matcher needs it.
type MatchInput struct {
	// OrgID is the SDK key's organization.
	OrgID uuid.UUID
	// KeyAppID is the app the SDK key is tied to, nil for an untied key.
	KeyAppID *uuid.UUID
	// AppHeader is the X-Service-App-Id header: an app id, iOS bundle id or
	// Android package name; "" when absent.
	AppHeader string
	// Request is the body; it must have passed MatchRequest.Validate.
	Request MatchRequest
	// ClientIP is the client's address (DESIGN.md, client IP).
	ClientIP netip.Addr
	// At is the time of the request; zero means the Matcher's clock.
	At time.Time
}

// MatchResult is the response of POST /v1/attribution/match. An unmatched
// result marshals as {"matched": false} only (SPEC.md).
type MatchResult struct {
	Matched         bool
	MatchType       MatchType
	MatchConfidence float64
	LinkID          uuid.UUID
	DeepLinkURL     *string
	DestinationURL  *string
	// CustomParams is never nil on a match.
	CustomParams map[string]string
	InstallID    uuid.UUID
	AppID        *uuid.UUID
}

// MarshalJSON writes the SPEC.md response.
func (r MatchResult) MarshalJSON() ([]byte, error) {
	if !r.Matched {
		return []byte(`{"matched":false}`), nil
	}
	params := r.CustomParams
	if params == nil {
		params = map[string]string{}
	}
	return json.Marshal(struct {
		Matched         bool              `json:"matched"`
		MatchType       MatchType         `json:"match_type"`
		MatchConfidence float64           `json:"match_confidence"`
		LinkID          uuid.UUID         `json:"link_id"`
		DeepLinkURL     *string           `json:"deep_link_url"`
		DestinationURL  *string           `json:"destination_url"`
		CustomParams    map[string]string `json:"custom_params"`
		InstallID       uuid.UUID         `json:"install_id"`
		AppID           *uuid.UUID        `json:"app_id"`
	}{true, r.MatchType, r.MatchConfidence, r.LinkID, r.DeepLinkURL, r.DestinationURL, params, r.InstallID, r.AppID})
}

// MatcherOptions configure a Matcher. The zero value uses the defaults.
type MatcherOptions struct {
	// Clock is the time of a request without MatchInput.At, and of list
	// calls; time.Now when nil.
	Clock func() time.Time
	// Model is the scorer's constants; DefaultModel when nil.
	Model *Model
	// NewID returns ids for installs and attempts; UUIDv7 when nil.
	NewID func() uuid.UUID
	// AppsTTL is how long an organization's apps are kept in memory
	// between reads: DefaultAppsTTL when 0, never kept when negative. The
	// app services of this process call InvalidateAll after every app
	// write, so their changes are seen at once; replicas, and changes made
	// directly in the database, within AppsTTL.
	AppsTTL time.Duration
	// OnAttempt, when not nil, is told of every attempt once it is
	// recorded (matched by a claim or a replay, or not matched with its
	// FailReason), on the caller's goroutine. It must not block, and must
	// not keep or change a.
	OnAttempt func(a *Attempt)
}

// The apps cache of a Matcher.
const (
	// DefaultAppsTTL is MatcherOptions.AppsTTL's default, that of the link
	// resolver's cache.
	DefaultAppsTTL = linking.DefaultResolveTTL
	// MaxCachedOrgs bounds the organizations whose apps are kept; the cache
	// starts empty again when it is full.
	MaxCachedOrgs = 10_000
)

// Matcher matches installs to clicks and lists installs and attempts. It is
// safe for concurrent use.
type Matcher struct {
	store Store
	clock func() time.Time
	model *Model
	newID func() uuid.UUID
	// onAttempt is MatcherOptions.OnAttempt.
	onAttempt func(a *Attempt)

	appsTTL time.Duration
	mu      sync.Mutex
	apps    map[uuid.UUID]cachedApps
	// gen counts invalidations, so that a read that raced one is not kept.
	gen uint64
}

// cachedApps are an organization's apps as read at a time.
type cachedApps struct {
	apps []App
	at   time.Time
}

// NewMatcher returns a Matcher over store.
func NewMatcher(store Store, opts MatcherOptions) *Matcher {
	m := &Matcher{store: store, clock: opts.Clock, model: opts.Model, newID: opts.NewID,
		onAttempt: opts.OnAttempt, appsTTL: opts.AppsTTL, apps: map[uuid.UUID]cachedApps{}}
	if m.appsTTL == 0 {
		m.appsTTL = DefaultAppsTTL
	}
	if m.clock == nil {
		m.clock = time.Now
	}
	if m.model == nil {
		m.model = &DefaultModel
	}
	if m.newID == nil {
		m.newID = func() uuid.UUID { return uuid.Must(uuid.NewV7()) }
	}
	return m
}

// request is one Match call's state.
type request struct {
	in          *MatchInput
	apps        []uuid.UUID
	now         time.Time
	deviceID    *uuid.UUID
	signals     Signals
	app         *uuid.UUID
	refClick    *Click
	att         Attempt
	isReinstall *bool
	after       time.Time
}

// Match answers one attribution request (see the package doc for the
// order of the stages) and records its attempt. It returns 403
// KEY_APP_MISMATCH as an *errcode.Error, after recording the attempt with
// fail_reason key_app_mismatch; every other outcome is a MatchResult, with
// Matched false when nothing matched. in.Request must be valid.
func (m *Matcher) Match(ctx context.Context, in MatchInput) (MatchResult, error) {
	r := &request{in: &in, now: in.At}
	if r.now.IsZero() {
		r.now = m.clock()
	}
	// Times are stored and written with millisecond precision, as every
	// other resource's (DESIGN.md).
	r.now = r.now.UTC().Truncate(time.Millisecond)
	if in.Request.DeviceID != "" {
		if id, err := uuid.Parse(in.Request.DeviceID); err == nil {
			r.deviceID = &id
		}
	}
	r.signals = RequestSignals(&in.Request)
	r.att = Attempt{
		ID: m.newID(), OrgID: in.OrgID, CreatedAt: r.now, Platform: in.Request.Platform,
		Signals: []string{}, IPClass: classPtr(ClassifyIP(in.ClientIP, 0)),
	}

	apps, err := m.orgApps(ctx, in.OrgID)
	if err != nil {
		return MatchResult{}, fmt.Errorf("attribution: apps: %w", err)
	}
	app, ok := resolveApp(apps, in.KeyAppID, in.AppHeader, in.Request.Platform)
	if !ok {
		r.att.AppID = in.KeyAppID
		if err := m.fail(ctx, r, FailKeyAppMismatch); err != nil {
			return MatchResult{}, err
		}
		return MatchResult{}, errcode.New(errcode.KeyAppMismatch, KeyAppMismatchMessage)
	}
	r.app = app
	for i := range apps {
		r.apps = append(r.apps, apps[i].ID)
	}

	if in.Request.Platform == PlatformAndroid && in.Request.Referrer != "" {
		if id, ok := linking.ClickIDFromReferrer(in.Request.Referrer); ok {
			c, err := m.store.MatchClick(ctx, in.OrgID, uuid.MustParse(id))
			switch {
			case errors.Is(err, errcode.ErrNotFound):
			case err != nil:
				return MatchResult{}, fmt.Errorf("attribution: referrer click: %w", err)
			default:
				r.refClick = c
			}
		}
	}
	if r.app == nil {
		if r.refClick == nil || r.refClick.AppID == nil {
			return MatchResult{}, m.fail(ctx, r, FailAmbiguousApp)
		}
		// The referrer names the link, and through it the app: a lookup
		// across the organization's apps.
		r.app = r.refClick.AppID
		r.att.FailReason = reasonPtr(FailAmbiguousApp)
	}
	r.att.AppID = r.app

	for range claimAttempts {
		res, done, err := m.attempt(ctx, r)
		if err != nil || done {
			return res, err
		}
	}
	return MatchResult{}, m.fail(ctx, r, FailCandidatesClaimed)
}

// orgApps returns the organization's apps, from the cache when they were
// read less than appsTTL ago.
func (m *Matcher) orgApps(ctx context.Context, orgID uuid.UUID) ([]App, error) {
	if m.appsTTL < 0 {
		return m.store.MatchApps(ctx, orgID)
	}
	now := m.clock()
	m.mu.Lock()
	e, ok := m.apps[orgID]
	gen := m.gen
	m.mu.Unlock()
	if ok && now.Sub(e.at) < m.appsTTL && !now.Before(e.at) {
		return e.apps, nil
	}
	apps, err := m.store.MatchApps(ctx, orgID)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.gen == gen {
		if len(m.apps) >= MaxCachedOrgs {
			clear(m.apps)
		}
		m.apps[orgID] = cachedApps{apps: apps, at: now}
	}
	return apps, nil
}

// InvalidateAll forgets every organization's apps. An app service of this
// process calls it on every app write (linking.AppServiceOptions.OnAppChange).
func (m *Matcher) InvalidateAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gen++
	clear(m.apps)
}

// attempt runs replay, deterministic and probabilistic matching once. done
// is false when a claim was lost and Match should start over.
func (m *Matcher) attempt(ctx context.Context, r *request) (MatchResult, bool, error) {
	in := r.in
	since := r.now.Add(-ReplayWindow)
	var (
		rec   *InstallRecord
		prior []InstallRecord
		err   error
	)
	switch {
	case r.deviceID != nil && r.isReinstall == nil:
		// One read serves the replay and, when nothing is replayed, the
		// reinstall check.
		var all []InstallRecord
		if all, err = m.store.DeviceInstalls(ctx, in.OrgID, *r.deviceID); err != nil {
			return MatchResult{}, true, fmt.Errorf("attribution: device installs: %w", err)
		}
		for i := range all {
			if rec == nil && sameAppOrNone(all[i].AppID, r.app) && !all[i].InstalledAt.Before(since) {
				rec = &all[i]
			}
			if all[i].InstalledAt.Before(r.now) {
				prior = append(prior, all[i])
			}
		}
	case r.deviceID != nil || in.Request.Fingerprint != "":
		rec, err = m.store.ReplayInstall(ctx, in.OrgID, r.app, r.deviceID, in.Request.Fingerprint, since)
		switch {
		case errors.Is(err, errcode.ErrNotFound):
			rec = nil
		case err != nil:
			return MatchResult{}, true, fmt.Errorf("attribution: replay: %w", err)
		}
	}
	if rec != nil && rec.Payload != nil {
		return m.replay(ctx, r, rec)
	}

	if r.deviceID != nil && r.isReinstall == nil {
		reinstall := len(prior) > 0
		r.isReinstall = &reinstall
		appsSeen := map[uuid.UUID]bool{}
		for _, p := range prior {
			if p.AppID != nil {
				appsSeen[*p.AppID] = true
			}
			if sameApp(p.AppID, r.app) && p.InstalledAt.After(r.after) {
				r.after = p.InstalledAt
			}
		}
		if len(appsSeen) > 1 {
			r.att.FailReason = reasonPtr(FailAmbiguousApp)
		}
	}

	if c := r.refClick; c != nil && !c.Claimed && sameApp(c.AppID, r.app) && m.inDeterministicWindow(c, r) {
		session, err := m.sessionOf(ctx, r, c)
		if err != nil {
			return MatchResult{}, true, err
		}
		r.att.Signals = []string{"referrer"}
		res, err := m.claim(ctx, r, session, MatchDeterministic, 1)
		if errors.Is(err, ErrClaimed) {
			r.refClick.Claimed = true
			return MatchResult{}, false, nil
		}
		return res, true, err
	}
	return m.probabilistic(ctx, r)
}

// probabilistic is the probabilistic stage.
func (m *Matcher) probabilistic(ctx context.Context, r *request) (MatchResult, bool, error) {
	in := r.in
	r.att.Signals = []string{}
	r.att.Candidates = CandidateCounts{}
	r.att.TopConfidence, r.att.RunnerUpConfidence = nil, nil
	if !r.signals.Usable() {
		return MatchResult{}, true, m.fail(ctx, r, FailNoSignals)
	}
	key := IPKey(in.ClientIP)
	if key == "" {
		return MatchResult{}, true, m.fail(ctx, r, FailNoCandidates)
	}
	q := KeyQuery{
		CandidateQuery: CandidateQuery{
			OrgID: in.OrgID, AppIDs: r.apps, IPKey: key,
			Since: r.now.Add(-ProbabilisticWindow), Until: r.now.Add(time.Millisecond), Limit: MaxCandidateClicks,
		},
		AppID: *r.app, BusySince: r.now.Add(-CGNATWindow), Background: BusyBackgroundClicks,
	}
	read, err := m.store.KeyClicks(ctx, q)
	if err != nil {
		return MatchResult{}, true, fmt.Errorf("attribution: candidates: %w", err)
	}
	clicks, busy := read.Clicks, read.Busy
	var bg Background
	if busy {
		bg = NewBackground(SessionsOf(read.Background, ClaimSessionWindow)).
			Over(min(backgroundSpan(read.Background, r.now), m.model.BackgroundWindow))
	} else {
		bg = NewBackground(SessionsOf(clicks, ClaimSessionWindow))
	}
	class := ClassifyIP(in.ClientIP, bg.Devices())
	if class == IPClassIPv4 && busy {
		class = IPClassCGNAT
	}
	r.att.IPClass = classPtr(class)
	var own []Click
	for i := range clicks {
		if sameApp(clicks[i].AppID, r.app) {
			own = append(own, clicks[i])
		}
	}
	clicks = own
	r.att.Candidates.Found = len(clicks)
	if len(clicks) == 0 {
		return MatchResult{}, true, m.fail(ctx, r, FailNoCandidates)
	}

	window := ProbabilisticWindow
	if class == IPClassCGNAT {
		window = CGNATWindow
	}
	var eligible, unclaimed []Click
	for i := range clicks {
		if m.eligible(&clicks[i], r, window) {
			eligible = append(eligible, clicks[i])
			if !clicks[i].Claimed {
				unclaimed = append(unclaimed, clicks[i])
			}
		}
	}
	r.att.Candidates.Eligible = len(eligible)
	r.att.Candidates.Unclaimed = len(unclaimed)
	switch {
	case len(eligible) == 0:
		return MatchResult{}, true, m.fail(ctx, r, FailCandidatesFiltered)
	case len(unclaimed) == 0:
		return MatchResult{}, true, m.fail(ctx, r, FailCandidatesClaimed)
	}

	sessions := SessionsOf(unclaimed, ClaimSessionWindow)
	scored := m.model.Score(r.signals, r.now, sessions, bg)
	for _, s := range scored {
		if s.Odds > 0 {
			r.att.Candidates.Scored++
		}
	}
	if r.att.Candidates.Scored == 0 {
		return MatchResult{}, true, m.fail(ctx, r, FailScoredZero)
	}
	d := Decide(scored)
	r.att.TopConfidence = floatPtr(round4(scored[d.Best].Probability))
	if d.RunnerUp >= 0 {
		r.att.RunnerUpConfidence = floatPtr(round4(scored[d.RunnerUp].Probability))
	}
	r.att.Signals = scored[d.Best].Decisive()
	if !d.Matched {
		return MatchResult{}, true, m.fail(ctx, r, FailNoMatch)
	}
	res, err := m.claim(ctx, r, sessions[scored[d.Best].Session].Clicks, MatchProbabilistic, round4(scored[d.Best].Probability))
	if errors.Is(err, ErrClaimed) {
		return MatchResult{}, false, nil
	}
	return res, true, err
}

// backgroundSpan is the span a busy key's background sample covers: from
// its oldest click to now when the sample is full (BusyBackgroundClicks),
// otherwise the whole CGNATWindow it was read from; never less than
// minBackgroundSpan.
func backgroundSpan(sample []Click, now time.Time) time.Duration {
	if len(sample) < BusyBackgroundClicks {
		return CGNATWindow
	}
	oldest := sample[0].OccurredAt
	for i := range sample {
		if sample[i].OccurredAt.Before(oldest) {
			oldest = sample[i].OccurredAt
		}
	}
	return min(max(now.Sub(oldest), minBackgroundSpan), CGNATWindow)
}

// eligible applies the platform, bot, window and OS downgrade filters.
func (m *Matcher) eligible(c *Click, r *request, window time.Duration) bool {
	if c.Platform != string(r.in.Request.Platform) || c.OccurredAt.After(r.now) {
		return false
	}
	age := r.now.Sub(c.OccurredAt)
	if age > window || age > linkWindow(c) || !c.OccurredAt.After(r.after) {
		return false
	}
	if bot, _ := linking.IsBot(c.UserAgent); bot {
		return false
	}
	if cmp, ok := CompareOSVersions(r.signals.OSVersion, ClickSignals(c).OSVersion); ok && cmp < 0 {
		return false
	}
	return true
}

func (m *Matcher) inDeterministicWindow(c *Click, r *request) bool {
	return !c.OccurredAt.After(r.now) && r.now.Sub(c.OccurredAt) <= linkWindow(c) && c.OccurredAt.After(r.after)
}

// linkWindow is a click's link's match_window_hours as a duration.
func linkWindow(c *Click) time.Duration {
	h := DefaultMatchWindowHours
	if c.MatchWindowHours != nil {
		h = *c.MatchWindowHours
	}
	return time.Duration(h) * time.Hour
}

// sessionOf returns c and the same device's unclaimed clicks of the
// ClaimSessionWindow before it, c first.
func (m *Matcher) sessionOf(ctx context.Context, r *request, c *Click) ([]Click, error) {
	out := []Click{*c}
	if c.IPKey == "" || c.AppID == nil {
		return out, nil
	}
	clicks, err := m.store.CandidateClicks(ctx, CandidateQuery{
		OrgID: r.in.OrgID, AppIDs: []uuid.UUID{*c.AppID}, IPKey: c.IPKey,
		Since: c.OccurredAt.Add(-ClaimSessionWindow), Until: c.OccurredAt.Add(time.Millisecond), Limit: MaxCandidateClicks,
	})
	if err != nil {
		return nil, fmt.Errorf("attribution: session: %w", err)
	}
	key := DeviceKey(c)
	for i := range clicks {
		if clicks[i].ID != c.ID && !clicks[i].Claimed && clicks[i].Platform == c.Platform && DeviceKey(&clicks[i]) == key &&
			c.OccurredAt.After(r.after) && clicks[i].OccurredAt.After(r.after) {
			out = append(out, clicks[i])
		}
	}
	return out, nil
}

// claim creates the install for session (its first click delivered).
func (m *Matcher) claim(ctx context.Context, r *request, session []Click, mt MatchType, confidence float64) (MatchResult, error) {
	in := r.in
	click := session[0]
	link, err := m.store.MatchLink(ctx, in.OrgID, click.LinkID)
	if err != nil {
		if errors.Is(err, errcode.ErrNotFound) {
			return MatchResult{}, ErrClaimed // deleted since it was read: start over
		}
		return MatchResult{}, fmt.Errorf("attribution: link: %w", err)
	}
	payload := &Payload{
		MatchType: mt, MatchConfidence: confidence, LinkID: link.ID,
		DestinationURL: strPtr(link.DestinationURL), CustomParams: queryParams(link.DestinationURL), AppID: r.app,
	}
	switch in.Request.Platform {
	case PlatformIOS:
		payload.DeepLinkURL = link.IOSURL
	case PlatformAndroid:
		payload.DeepLinkURL = link.AndroidURL
	}
	rec := InstallRecord{
		Install: Install{
			ID: m.newID(), ClickID: &click.ID, LinkID: &link.ID, AppID: r.app,
			MatchGuaranteed: mt == MatchDeterministic, IsReinstall: r.isReinstall, InstalledAt: r.now,
			HasDeviceID: r.deviceID != nil, HasDeviceFingerprint: in.Request.Fingerprint != "", HasMatchedPayload: true,
		},
		OrgID: in.OrgID, DeviceID: r.deviceID, Fingerprint: in.Request.Fingerprint, Platform: in.Request.Platform,
		Payload: payload,
	}
	if in.ClientIP.IsValid() {
		rec.IP = in.ClientIP.String()
	}
	for _, c := range session {
		rec.ClaimedClickIDs = append(rec.ClaimedClickIDs, c.ID)
	}
	att := r.att
	att.Matched = true
	att.MatchSource = sourcePtr(SourceClaim)
	att.MatchType = &mt
	att.InstallID = &rec.ID
	if err := m.store.Claim(ctx, rec, att); err != nil {
		if errors.Is(err, ErrClaimed) {
			return MatchResult{}, err
		}
		return MatchResult{}, fmt.Errorf("attribution: claim: %w", err)
	}
	m.recorded(&att)
	return resultOf(rec.ID, payload), nil
}

// replay answers from an earlier install.
func (m *Matcher) replay(ctx context.Context, r *request, rec *InstallRecord) (MatchResult, bool, error) {
	att := r.att
	att.Matched = true
	att.MatchSource = sourcePtr(SourceReplay)
	mt := rec.Payload.MatchType
	att.MatchType = &mt
	att.InstallID = &rec.ID
	if r.deviceID != nil {
		att.Signals = []string{"device_id"}
	} else {
		att.Signals = []string{"fingerprint"}
	}
	if err := m.store.RecordAttempt(ctx, att); err != nil {
		return MatchResult{}, true, fmt.Errorf("attribution: attempt: %w", err)
	}
	m.recorded(&att)
	return resultOf(rec.ID, rec.Payload), true, nil
}

// fail records an unmatched attempt with reason.
func (m *Matcher) fail(ctx context.Context, r *request, reason FailReason) error {
	att := r.att
	att.Matched = false
	att.FailReason = reasonPtr(reason)
	if err := m.store.RecordAttempt(ctx, att); err != nil {
		return fmt.Errorf("attribution: attempt: %w", err)
	}
	m.recorded(&att)
	return nil
}

// recorded tells OnAttempt of att, recorded.
func (m *Matcher) recorded(att *Attempt) {
	if m.onAttempt != nil {
		m.onAttempt(att)
	}
}

func resultOf(installID uuid.UUID, p *Payload) MatchResult {
	params := p.CustomParams
	if params == nil {
		params = map[string]string{}
	}
	return MatchResult{
		Matched: true, MatchType: p.MatchType, MatchConfidence: p.MatchConfidence, LinkID: p.LinkID,
		DeepLinkURL: p.DeepLinkURL, DestinationURL: p.DestinationURL, CustomParams: params,
		InstallID: installID, AppID: p.AppID,
	}
}

// resolveApp returns the app a request is for: ok is false for
// KEY_APP_MISMATCH; app is nil when it cannot be told.
func resolveApp(apps []App, keyApp *uuid.UUID, header string, p Platform) (app *uuid.UUID, ok bool) {
	header = strings.TrimSpace(header)
	if header != "" {
		found := findApp(apps, header, p)
		if found == nil || (keyApp != nil && *keyApp != found.ID) {
			return nil, false
		}
		id := found.ID // not a pointer into the cached apps
		return &id, true
	}
	if keyApp != nil {
		for i := range apps {
			if apps[i].ID == *keyApp {
				return keyApp, true
			}
		}
		return nil, false
	}
	var match []uuid.UUID
	for i := range apps {
		if p == PlatformIOS && apps[i].IOSBundleID != "" || p == PlatformAndroid && apps[i].AndroidPackageName != "" {
			match = append(match, apps[i].ID)
		}
	}
	if len(match) == 0 && len(apps) == 1 {
		match = append(match, apps[0].ID)
	}
	if len(match) == 1 {
		return &match[0], true
	}
	return nil, true
}

// findApp finds the app header names: by id, else by the platform's own
// identifier, else by the other platform's.
func findApp(apps []App, header string, p Platform) *App {
	if id, err := uuid.Parse(header); err == nil && len(header) == 36 {
		for i := range apps {
			if apps[i].ID == id {
				return &apps[i]
			}
		}
		return nil
	}
	own := func(a *App) string { return a.IOSBundleID }
	other := func(a *App) string { return a.AndroidPackageName }
	if p == PlatformAndroid {
		own, other = other, own
	}
	for _, get := range []func(*App) string{own, other} {
		for i := range apps {
			if get(&apps[i]) == header {
				return &apps[i]
			}
		}
	}
	return nil
}

// queryParams returns the query parameters of u, the first value of each.
func queryParams(u string) map[string]string {
	out := map[string]string{}
	parsed, err := url.Parse(u)
	if err != nil {
		return out
	}
	for k, v := range parsed.Query() {
		if len(v) > 0 {
			out[k] = v[0]
		}
	}
	return out
}

func sameApp(a, b *uuid.UUID) bool {
	return a != nil && b != nil && *a == *b
}

// sameAppOrNone is sameApp, or both nil: an install without an app replays
// for a request without one.
func sameAppOrNone(a, b *uuid.UUID) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func round4(f float64) float64 { return math.Round(f*10000) / 10000 }

func floatPtr(f float64) *float64          { return &f }
func strPtr(s string) *string              { return &s }
func reasonPtr(r FailReason) *FailReason   { return &r }
func sourcePtr(s MatchSource) *MatchSource { return &s }
func classPtr(c IPClass) *IPClass {
	if c == "" {
		return nil
	}
	return &c
}
