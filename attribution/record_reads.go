package attribution

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
)

// RecordStore reads one install or attempt with what explains it, for the
// dashboard's pages of a record. A ListStore that implements it (package
// store does) serves Lists.Install and Lists.Attempt. Every method is
// scoped to one organization and wraps errcode.ErrNotFound when there is
// nothing to return, errcode.ErrUnavailable when the database cannot be
// reached.
type RecordStore interface {
	// InstallByID returns install id of the organization; when createdBy is
	// not nil, only if its link was created by that member.
	InstallByID(ctx context.Context, orgID, id uuid.UUID, createdBy *uuid.UUID) (*Install, error)
	// AttemptByID returns attempt id of the organization.
	AttemptByID(ctx context.Context, orgID, id uuid.UUID) (*Attempt, error)
	// InstallAttempts returns at most limit attempts that created or
	// replayed install installID, newest first by (created_at, id).
	InstallAttempts(ctx context.Context, orgID, installID uuid.UUID, limit int) ([]Attempt, error)
	// ClickTime returns when click id of the organization happened.
	ClickTime(ctx context.Context, orgID, id uuid.UUID) (time.Time, error)
}

// MaxInstallAttempts bounds the attempts InstallDetail lists: the claim
// and the latest replays.
const MaxInstallAttempts = 20

// InstallDetail is one install with what explains it.
type InstallDetail struct {
	Install
	// ClickedAt is when the delivered click happened; nil when the install
	// has no click or the click is no longer stored (its link deleted, or
	// past retention).
	ClickedAt *time.Time
	// Attempts are the attempts that created the install (match_source
	// claim) and replayed it, newest first, at most MaxInstallAttempts;
	// Attempts for a member, whose role reads no attempt, are nil.
	Attempts []Attempt
}

// AttemptDetail is one attempt with what explains it.
type AttemptDetail struct {
	Attempt
	// Install is the install the attempt created or replayed; nil when
	// unmatched, or when the install is no longer stored.
	Install *Install
	// ClickedAt is when the install's click happened, as in InstallDetail.
	ClickedAt *time.Time
}

// records returns the store as a RecordStore.
func (l *Lists) records() (RecordStore, error) {
	rs, ok := l.store.(RecordStore)
	if !ok {
		return nil, errors.New("attribution: the list store reads no single record")
	}
	return rs, nil
}

// Install returns install id of p's organization with the same checks as
// the installs list (Installs): the analytics:read or links:read scope and
// the installs.read role action; a member sees the installs of the links
// they created. An install of another organization, of another member's
// link for a member, or none is NOT_FOUND; one older than the plan may read
// is LOOKBACK_EXCEEDED (Free) or RETENTION_WINDOW_UNAVAILABLE, as a list
// window starting there would be. The attempts that explain it are read
// only for a role that reads attempts.
func (l *Lists) Install(ctx context.Context, p *auth.Principal, id uuid.UUID) (*InstallDetail, error) {
	reach, err := authorize(p, auth.ActInstallsRead)
	if err != nil {
		return nil, err
	}
	rs, err := l.records()
	if err != nil {
		return nil, err
	}
	var createdBy *uuid.UUID
	if reach == auth.Own {
		createdBy = p.CreatedBy
	}
	in, err := rs.InstallByID(ctx, p.OrgID, id, createdBy)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "install not found")
	}
	if err := l.readable(ctx, p, in.InstalledAt); err != nil {
		return nil, err
	}
	d := &InstallDetail{Install: *in}
	if d.ClickedAt, err = clickTime(ctx, rs, p.OrgID, in.ClickID); err != nil {
		return nil, err
	}
	if _, err := p.Authorize(auth.ScopeAnalyticsRead, auth.ActAttemptsRead); err == nil {
		if d.Attempts, err = rs.InstallAttempts(ctx, p.OrgID, id, MaxInstallAttempts); err != nil {
			return nil, fmt.Errorf("attribution: install attempts: %w", err)
		}
	}
	return d, nil
}

// Attempt returns attempt id of p's organization with the same checks as
// the attempts list (Attempts: a member is refused), and the install it
// created or replayed. Another organization's attempt, or none, is
// NOT_FOUND; the plan's window applies as in Install.
func (l *Lists) Attempt(ctx context.Context, p *auth.Principal, id uuid.UUID) (*AttemptDetail, error) {
	if _, err := authorize(p, auth.ActAttemptsRead); err != nil {
		return nil, err
	}
	rs, err := l.records()
	if err != nil {
		return nil, err
	}
	a, err := rs.AttemptByID(ctx, p.OrgID, id)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "attempt not found")
	}
	if err := l.readable(ctx, p, a.CreatedAt); err != nil {
		return nil, err
	}
	d := &AttemptDetail{Attempt: *a}
	if a.InstallID == nil {
		return d, nil
	}
	in, err := rs.InstallByID(ctx, p.OrgID, *a.InstallID, nil)
	switch {
	case errors.Is(err, errcode.ErrNotFound):
		return d, nil
	case err != nil:
		return nil, fmt.Errorf("attribution: attempt's install: %w", err)
	}
	d.Install = in
	if d.ClickedAt, err = clickTime(ctx, rs, p.OrgID, in.ClickID); err != nil {
		return nil, err
	}
	return d, nil
}

// readable checks that a record of time at may be read under p's plan: a
// list window [at, at + 1ms) must pass the look-back and retention rules.
func (l *Lists) readable(ctx context.Context, p *auth.Principal, at time.Time) error {
	o, err := l.orgs.ByID(ctx, p.OrgID)
	if err != nil {
		return err
	}
	now := l.clock().UTC().Truncate(time.Millisecond)
	lq := listQuery{from: at.UTC(), fromSet: true, to: at.UTC().Add(time.Millisecond), toSet: true}
	if !lq.to.After(now) {
		_, err = lq.window(o, now)
		return err
	}
	return nil
}

// clickTime returns when click id happened, nil when id is nil or the click
// is gone.
func clickTime(ctx context.Context, rs RecordStore, orgID uuid.UUID, id *uuid.UUID) (*time.Time, error) {
	if id == nil {
		return nil, nil
	}
	t, err := rs.ClickTime(ctx, orgID, *id)
	switch {
	case errors.Is(err, errcode.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("attribution: click time: %w", err)
	}
	return &t, nil
}
