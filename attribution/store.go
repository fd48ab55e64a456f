package attribution

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
)

// ErrClaimed is returned by Store.Claim when the install's click was
// claimed by another install first.
var ErrClaimed = errors.New("attribution: click already claimed")

// App is what matching needs of an app.
type App struct {
	ID                 uuid.UUID
	IOSBundleID        string
	AndroidPackageName string
}

// Click is a stored click as matching reads it.
type Click struct {
	ID         uuid.UUID
	LinkID     uuid.UUID
	AppID      *uuid.UUID
	OccurredAt time.Time
	// Platform is "ios", "android", "desktop" or "unknown".
	Platform       string
	OSVersion      string
	DeviceModel    string
	UserAgent      string
	AcceptLanguage string
	IPKey          string
	// Claimed is true when an install has claimed the click.
	Claimed bool
	// MatchWindowHours is the link's match_window_hours, nil for the
	// default.
	MatchWindowHours *int
	// TimezoneOffset (minutes from UTC) and the screen in pixels are what a
	// click store that captures them (a JavaScript landing page) can give
	// the pure scorer; Hoplink's redirect clicks have neither, so they are
	// nil in every click a Store returns.
	TimezoneOffset            *int
	ScreenWidth, ScreenHeight *int
}

// Link is what a match delivers of a link.
type Link struct {
	ID             uuid.UUID
	AppID          *uuid.UUID
	DestinationURL string
	IOSURL         *string
	AndroidURL     *string
}

// CandidateQuery selects the clicks of some apps on one IP key in a time
// range.
type CandidateQuery struct {
	OrgID uuid.UUID
	// AppIDs are the apps whose links' clicks are read: the organization's
	// every app, so that the devices behind the key are counted across
	// apps; only the request's app's clicks become candidates.
	AppIDs []uuid.UUID
	IPKey  string
	// Since is inclusive, Until exclusive.
	Since time.Time
	Until time.Time
	// Limit bounds the clicks returned, newest first.
	Limit int
}

// KeyQuery is the probabilistic stage's one read of an IP key.
type KeyQuery struct {
	// CandidateQuery names every app of the organization (the key's
	// background counts devices across apps), the day before the request
	// and, as Limit, how many clicks make the key busy.
	CandidateQuery
	// AppID is the request's app: on a busy key only its clicks are read
	// as candidates.
	AppID uuid.UUID
	// BusySince is where a busy key's read starts.
	BusySince time.Time
	// Background bounds the clicks read as a busy key's background.
	Background int
}

// KeyRead is what Store.KeyClicks returns.
type KeyRead struct {
	// Busy is true when the key has at least Limit clicks of the apps in
	// [Since, Until).
	Busy bool
	// Clicks are newest first: when the key is not busy, its clicks of
	// every app in [Since, Until) (what CandidateClicks returns); when it
	// is busy, its clicks of AppID in [BusySince, Until), at most Limit.
	Clicks []Click
	// Background is nil unless the key is busy: then it holds the key's
	// newest clicks of every app in [BusySince, Until), at most Background
	// of them, newest first.
	Background []Click
}

// Store is the storage the Matcher reads and writes; package store
// implements it. Every method is scoped to one organization: nothing of
// another organization is ever returned or changed. Errors wrap
// errcode.ErrUnavailable when the database cannot be reached.
type Store interface {
	// MatchApps returns the organization's apps.
	MatchApps(ctx context.Context, orgID uuid.UUID) ([]App, error)
	// MatchClick returns click id of the organization with its link's
	// match_window_hours; errcode.ErrNotFound when there is none.
	MatchClick(ctx context.Context, orgID, id uuid.UUID) (*Click, error)
	// CandidateClicks returns the clicks of q.AppIDs (all platforms) on
	// q.IPKey with q.Since <= occurred_at < q.Until, newest first, at most
	// q.Limit.
	CandidateClicks(ctx context.Context, q CandidateQuery) ([]Click, error)
	// KeyClicks reads a key for the probabilistic stage (KeyQuery,
	// KeyRead). A store may count and read in one round trip; clicks of
	// another organization are never read.
	KeyClicks(ctx context.Context, q KeyQuery) (KeyRead, error)
	// MatchLink returns link id of the organization; errcode.ErrNotFound
	// when there is none.
	MatchLink(ctx context.Context, orgID, id uuid.UUID) (*Link, error)
	// ReplayInstall returns the latest install of the app installed at or
	// after since whose device_id is deviceID (when deviceID is non-nil) or,
	// when deviceID is nil, whose fingerprint is fingerprint; appID nil
	// means installs without an app. errcode.ErrNotFound when there is none.
	ReplayInstall(ctx context.Context, orgID uuid.UUID, appID *uuid.UUID, deviceID *uuid.UUID, fingerprint string, since time.Time) (*InstallRecord, error)
	// DeviceInstalls returns every install of deviceID in the organization,
	// newest first by (installed_at, id): the replay and the reinstall
	// checks of a request with a device id read them at once.
	DeviceInstalls(ctx context.Context, orgID, deviceID uuid.UUID) ([]InstallRecord, error)
	// Claim records a match in one transaction: it inserts the install,
	// sets claimed_by_install on in.ClaimedClickIDs that are still
	// unclaimed, and inserts the attempt. When in.ClickID is already
	// claimed (or held by another install) it writes nothing and returns
	// ErrClaimed.
	Claim(ctx context.Context, in InstallRecord, attempt Attempt) error
	// RecordAttempt inserts an attempt.
	RecordAttempt(ctx context.Context, a Attempt) error
	ListStore
}

// ListStore reads the installs and attempts lists; it is the part of Store
// that Lists needs.
type ListStore interface {
	// ListInstalls returns at most limit installs matching f, newest first
	// by (installed_at, id); f.Limit is ignored.
	ListInstalls(ctx context.Context, f InstallFilter, limit int) ([]Install, error)
	// ListAttempts returns at most limit attempts matching f, newest first
	// by (created_at, id); f.Limit is ignored.
	ListAttempts(ctx context.Context, f AttemptFilter, limit int) ([]Attempt, error)
}
