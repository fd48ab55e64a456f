package attribution

import (
	"time"

	"github.com/google/uuid"
)

// FailReason says why an attempt did not match (SPEC.md, attempt record).
// The empty FailReason is JSON null.
type FailReason string

// The fail reasons. Each means exactly what issue 5 says.
const (
	// FailNoSignals: the request carries nothing usable beyond the IP
	// address (no device signal the scorer reads, no referrer click).
	FailNoSignals FailReason = "no_signals"
	// FailNoCandidates: no click of the app in the window for this IP key.
	FailNoCandidates FailReason = "no_candidates"
	// FailCandidatesFiltered: every click found was removed by the platform,
	// OS downgrade, bot or window filters.
	FailCandidatesFiltered FailReason = "candidates_filtered"
	// FailCandidatesClaimed: every click left was already claimed by an
	// install.
	FailCandidatesClaimed FailReason = "candidates_claimed"
	// FailScoredZero: every candidate left was contradicted by a decisive
	// signal (a different device model or screen).
	FailScoredZero FailReason = "scored_zero"
	// FailNoMatch: the best candidate is below MatchThreshold or not
	// RunnerUpFactor times as likely as the runner-up.
	FailNoMatch FailReason = "no_match"
	// FailKeyAppMismatch: the SDK key is tied to another app, or the app is
	// unknown to the organization (403 KEY_APP_MISMATCH).
	FailKeyAppMismatch FailReason = "key_app_mismatch"
	// FailAmbiguousApp: the app could not be told; also set on a matched
	// attempt that looked a device-wide signal up across several apps.
	FailAmbiguousApp FailReason = "ambiguous_app"
)

// MatchSource says how a matched attempt was answered (SPEC.md).
type MatchSource string

// The match sources.
const (
	// SourceClaim: the attempt claimed clicks and created an install.
	SourceClaim MatchSource = "claim"
	// SourceReplay: the attempt answered from an existing install.
	SourceReplay MatchSource = "replay"
)

// MatchType is how an install was matched.
type MatchType string

// The match types of SPEC.md.
const (
	MatchDeterministic MatchType = "deterministic"
	MatchProbabilistic MatchType = "probabilistic"
)

// Install is one install tied to a link (SPEC.md, Install record) as GET
// /v1/installs shows it. The device id, fingerprint, IP address and routing
// payload are stored (InstallRecord) but never part of an Install.
type Install struct {
	// ID equals the install_id of the match response.
	ID uuid.UUID `json:"id"`
	// ClickID is the claimed click whose link was delivered (the latest of
	// the device's session); null only for records without one.
	ClickID *uuid.UUID `json:"click_id"`
	// LinkID is the delivered link; null once that link is deleted.
	LinkID *uuid.UUID `json:"link_id"`
	AppID  *uuid.UUID `json:"app_id"`
	// MatchGuaranteed is true for a deterministic match.
	MatchGuaranteed bool `json:"match_guaranteed"`
	// IsReinstall is whether the device_id was seen on an earlier install
	// of the organization; null when the request carried no device_id.
	IsReinstall          *bool     `json:"is_reinstall"`
	InstalledAt          time.Time `json:"installed_at"`
	HasDeviceID          bool      `json:"has_device_id"`
	HasDeviceFingerprint bool      `json:"has_device_fingerprint"`
	HasMatchedPayload    bool      `json:"has_matched_payload"`
}

// Payload is the routing answer stored with an install and returned again
// on replay.
type Payload struct {
	MatchType       MatchType         `json:"match_type"`
	MatchConfidence float64           `json:"match_confidence"`
	LinkID          uuid.UUID         `json:"link_id"`
	DeepLinkURL     *string           `json:"deep_link_url"`
	DestinationURL  *string           `json:"destination_url"`
	CustomParams    map[string]string `json:"custom_params"`
	AppID           *uuid.UUID        `json:"app_id"`
}

// InstallRecord is an install as stored: the Install plus what is stored
// but never returned.
type InstallRecord struct {
	Install
	OrgID uuid.UUID
	// DeviceID is the request's device_id in lower case, nil when absent.
	DeviceID *uuid.UUID
	// Fingerprint is the request's fingerprint, "" when absent.
	Fingerprint string
	// IP is the client address as text.
	IP       string
	Platform Platform
	// Payload is the stored answer; nil only for records created before
	// routing was stored.
	Payload *Payload
	// ClaimedClickIDs are the clicks the claim takes: ClickID first, then
	// the same device's other clicks of the last ClaimSessionWindow.
	ClaimedClickIDs []uuid.UUID
}

// CandidateCounts are the candidates counted at each probabilistic stage.
type CandidateCounts struct {
	// Found is the clicks of the app on the IP key in the last
	// ProbabilisticWindow.
	Found int `json:"found"`
	// Eligible is those left after the platform, OS downgrade, bot and
	// window filters.
	Eligible int `json:"eligible"`
	// Unclaimed is those left that no install has claimed.
	Unclaimed int `json:"unclaimed"`
	// Scored is the device sessions left with a score above zero.
	Scored int `json:"scored"`
}

// Attempt is one attribution request, matched or not (SPEC.md, attempt
// record), as GET /v1/attribution/attempts shows it. Beyond SPEC.md it
// explains the decision without personal data: no IP, fingerprint or device
// id is ever part of an attempt.
type Attempt struct {
	ID      uuid.UUID `json:"id"`
	Matched bool      `json:"matched"`
	// FailReason is null on a matched attempt, except ambiguous_app on a
	// match that looked a device-wide signal up across several apps.
	FailReason *FailReason `json:"fail_reason"`
	// MatchSource is claim or replay on a matched attempt, null otherwise.
	MatchSource *MatchSource `json:"match_source"`
	// IPClass is cgnat, ipv4 or ipv6; null when the client address is not
	// known.
	IPClass   *IPClass  `json:"ip_class"`
	CreatedAt time.Time `json:"created_at"`
	Platform  Platform  `json:"platform"`
	// AppID is the app the attempt was for, null when it could not be told.
	AppID *uuid.UUID `json:"app_id"`
	// MatchType is set on a matched attempt.
	MatchType *MatchType `json:"match_type"`
	// InstallID is the install created or replayed, null when unmatched.
	InstallID *uuid.UUID `json:"install_id"`
	// Candidates counts the probabilistic stages; zero when that stage did
	// not run.
	Candidates CandidateCounts `json:"candidates"`
	// TopConfidence and RunnerUpConfidence are the probabilities of the best
	// and second-best candidate sessions, null when there was none.
	TopConfidence      *float64 `json:"top_confidence"`
	RunnerUpConfidence *float64 `json:"runner_up_confidence"`
	// Signals names the signals that decided ("referrer", "device_id",
	// "fingerprint", "ip", "time", "os_version", "device_model",
	// "language", "timezone", "screen"); never null.
	Signals []string `json:"signals"`
	// OrgID is the organization; not part of the JSON record.
	OrgID uuid.UUID `json:"-"`
}

// Position is a keyset position in a newest-first list: the next page holds
// the records strictly after it in (time, id) descending order, that is
// (time, id) < (Time, ID).
type Position struct {
	Time time.Time
	ID   uuid.UUID
}

// AppFilter restricts a list to one app, to records without an app, or
// (the zero value) to every app.
type AppFilter struct {
	// ID, when non-nil, keeps records of that app only.
	ID *uuid.UUID
	// None keeps records without an app only (app_id=none). ID and None
	// are not both set.
	None bool
}

// DefaultListLimit and MaxListLimit bound the installs and attempts lists
// (SPEC.md, Limits: 1 to 500, default 100).
const (
	DefaultListLimit = 100
	MaxListLimit     = 500
)

// InstallFilter selects installs for ListInstalls. From and To are the
// window [From, To) on installed_at, already checked and clamped by the
// caller (retention and look-back: org.LimitsOf(plan).Retention and
// .Lookback).
type InstallFilter struct {
	OrgID  uuid.UUID
	App    AppFilter
	LinkID *uuid.UUID
	From   time.Time
	To     time.Time
	// Limit is 1 to MaxListLimit; 0 means DefaultListLimit.
	Limit int
	// After, when non-nil, continues after that position.
	After *Position
	// CreatedBy, when non-nil, keeps installs of links created by that
	// member only (a member's key, whose role reaches their own links).
	CreatedBy *uuid.UUID
}

// AttemptFilter selects attempts for ListAttempts. From and To are the
// window [From, To) on created_at, already checked and clamped by the
// caller.
type AttemptFilter struct {
	OrgID uuid.UUID
	App   AppFilter
	// Matched, when non-nil, keeps matched (true) or unmatched (false)
	// attempts only.
	Matched *bool
	From    time.Time
	To      time.Time
	Limit   int
	After   *Position
}

// InstallPage is one page of installs, newest first.
type InstallPage struct {
	Data []Install
	// Next is the position after the page's last record when HasMore.
	Next    *Position
	HasMore bool
}

// AttemptPage is one page of attempts, newest first.
type AttemptPage struct {
	Data    []Attempt
	Next    *Position
	HasMore bool
}
