package linking

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/org"
)

// AppStore is the storage apps need. Implementations wrap
// errcode.ErrNotFound, errcode.ErrConflict and errcode.ErrUnavailable.
type AppStore interface {
	// AppByID returns app id of organization orgID; errcode.ErrNotFound when
	// there is none in orgID.
	AppByID(ctx context.Context, orgID, id uuid.UUID) (*App, error)
	// CountApps returns how many apps organization orgID has.
	CountApps(ctx context.Context, orgID uuid.UUID) (int, error)
	// CreateApp inserts app unless its organization already has maxApps apps
	// or more, in which case it returns ErrAppLimit; the count and the insert
	// are one transaction that no concurrent CreateApp of the organization
	// can interleave with. A unique index refusing the row returns an error
	// wrapping errcode.ErrConflict and, when the index is known, one of
	// ErrAppBundleIDTaken, ErrAppPackageNameTaken or ErrAppHandleTaken.
	CreateApp(ctx context.Context, app *App, maxApps int) error
	// ListApps returns one page of the organization's apps matching filter,
	// oldest first, and how many match in all.
	ListApps(ctx context.Context, filter AppFilter) ([]*App, int, error)
	// UpdateApp writes every field of app that a PATCH may change (name, the
	// iOS and Android fields) and updated_at; errcode.ErrNotFound when the
	// app is not in app.OrgID; conflicts as CreateApp.
	UpdateApp(ctx context.Context, app *App) error
	// DeleteApp deletes app d.ID of d.OrgID and returns it as it was; the
	// database deletes the SDK keys tied to it, and its links get app_id
	// null and updated_at d.At, each announced as link.updated in the same
	// transaction. errcode.ErrNotFound when there is none in d.OrgID.
	DeleteApp(ctx context.Context, d AppDeletion) (*App, error)
	// AppByHandle returns the app with handle, whatever its organization;
	// errcode.ErrNotFound when there is none.
	AppByHandle(ctx context.Context, handle string) (*App, error)
	// SetAppLegacy sets legacy_apex_enabled and updated_at of app id, whatever
	// its organization, and returns the app; errcode.ErrNotFound when none.
	SetAppLegacy(ctx context.Context, id uuid.UUID, legacy bool, now time.Time) (*App, error)
}

// AppFilter selects a page of one organization's apps.
type AppFilter struct {
	OrgID uuid.UUID
	// Search, when not empty, keeps apps whose name, iOS bundle id or Android
	// package name contains it, ignoring ASCII case.
	Search string
	// Limit is the page size (1 to 100); Offset how many matches to skip.
	Limit, Offset int
}

// OrgReader reads an organization, for its plan. *store.Store implements it.
type OrgReader interface {
	// OrganizationByID returns organization id; errcode.ErrNotFound when none.
	OrganizationByID(ctx context.Context, id uuid.UUID) (*org.Organization, error)
}

// KeyForgetter drops an organization's keys from the authentication cache.
// *auth.Authenticator implements it.
type KeyForgetter interface {
	ForgetOrg(orgID uuid.UUID)
}

// Errors an AppStore returns, wrapped together with errcode.ErrConflict, to
// say which unique index refused an app, and ErrAppLimit.
var (
	// ErrAppBundleIDTaken: another app of the organization has the iOS bundle id.
	ErrAppBundleIDTaken = errors.New("ios_bundle_id already used by an app of the organization")
	// ErrAppPackageNameTaken: another app of the organization has the Android package name.
	ErrAppPackageNameTaken = errors.New("android_package_name already used by an app of the organization")
	// ErrAppHandleTaken: another app of the service has the handle.
	ErrAppHandleTaken = errors.New("app handle already taken")
	// ErrAppLimit: the organization already has as many apps as allowed.
	ErrAppLimit = errors.New("app limit reached")
)

// AppDeletion is one app to delete (AppStore.DeleteApp).
type AppDeletion struct {
	OrgID, ID uuid.UUID
	// At is when: the updated_at of the links the app leaves.
	At time.Time
	// ShortURLBase builds the short_url of those links' link.updated events.
	ShortURLBase string
}
