// Package attribution ties app installs to the link clicks that led to them
// (SPEC.md, Attribution; issue 5).
//
// It owns:
//   - the pure rules, which do no I/O, read no clock and draw no randomness:
//     the match request's field rules (request.go), IP classes (ipclass.go),
//     the signals read from a request and a click (signals.go) and the
//     likelihood-ratio scorer with its decision rule (score.go);
//   - the Matcher, which runs replay, deterministic and probabilistic
//     matching in that order over the Store interface declared here, claims
//     clicks, records one install per claim and one attempt per request,
//     and lists installs and attempts;
//   - the records Install and Attempt as the API shows them;
//   - Lists, the installs and attempts lists that GET /v1/installs, GET
//     /v1/attribution/attempts and their MCP tools all call: scope and role
//     checks, parameter parsing, the plan's look-back and retention window,
//     and signed cursors (package cursor).
//
// Package store implements Store. This package never imports store,
// httpapi, bun, fx or net/http; it imports linking and analytics for their
// pure helpers (ClickIDFromReferrer, ClassifyDevice, IsBot, IPKey), and
// auth, org and cursor for the lists.
//
// # Matching
//
// Match answers one SDK request in this order:
//
//  1. The app. The X-Service-App-Id header names it by id, iOS bundle id or
//     Android package name (the platform's own field first). An SDK key tied
//     to another app, or a header naming no app of the organization, is 403
//     KEY_APP_MISMATCH with one message for both, recorded as an attempt with
//     fail_reason key_app_mismatch. Without a header, a tied key names its
//     app; an untied key uses the organization's only app for the request's
//     platform (an app with ios_bundle_id for iOS, android_package_name for
//     Android), and otherwise the app of the click an Android referrer names;
//     failing both, the attempt fails with ambiguous_app.
//  2. Replay: an install of the same app and device_id (or fingerprint when
//     the request has no device_id) made within ReplayWindow (24 hours)
//     answers with its stored payload; match_source is replay and nothing is
//     claimed or created.
//  3. Deterministic: an Android referrer carrying hop_click_id=<click id> of
//     an unclaimed click of this app's links, at most the link's
//     match_window_hours (DefaultMatchWindowHours, 168, when null) old.
//     Confidence 1, match_guaranteed true.
//  4. Probabilistic: the clicks of the same organization, app and IP key of
//     the last ProbabilisticWindow (24 hours; CGNATWindow, 6 hours, for a
//     carrier-grade NAT address) are filtered, grouped into device sessions
//     and scored by Model.Score against the background of every app's
//     clicks on the key; Decide picks the match. The key's clicks are
//     counted first; on a busy key (MaxCandidateClicks or more in the last
//     day; an IPv4 address is then carrier-grade NAT, an IPv6 /64 stays
//     ipv6) only the app's clicks of its last CGNATWindow are read as
//     candidates, and its newest BusyBackgroundClicks clicks of
//     every app as its background, over the span they cover
//     (Background.Over).
//
// A device_id seen on an earlier install of the organization marks the new
// install is_reinstall and restricts candidates to clicks after the
// device's latest install of the request's app (an install of another app
// consumed none of this app's clicks); when those earlier installs belong
// to several apps the attempt carries fail_reason ambiguous_app even when
// it matches (SPEC.md, attempt record).
//
// A claim is one store transaction: the install is inserted (a unique index
// on installs.click_id lets one install only hold a click), the click and the
// same device's other clicks of the last ClaimSessionWindow (30 minutes) get
// claimed_by_install set where it is still null, and the attempt is
// inserted. A claim that loses a race is retried from the start (a retry of
// the same device then becomes a replay).
package attribution
