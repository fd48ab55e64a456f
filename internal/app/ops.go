package app

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
)

// Ops are the services the admin CLI uses, over a database opened without fx.
type Ops struct {
	Orgs *org.Service
	Keys *auth.Keys
	Apps *linking.AppService
	// Audit records the operator's changes in the audit log.
	Audit *audit.Recorder
	// Exports writes click exports straight from the database.
	Exports *analytics.Exports
	// Purger deletes what is older than each plan's retention.
	Purger *analytics.Purger
	// Team changes members' roles.
	Team *org.Team
	// Created is the absolute path of the SQLite database file this open
	// created, as it did not exist: a mistyped --db shows here. Empty when
	// the database existed, or is not a SQLite file.
	Created string
	store   *store.Store
}

// OpenOps opens the database of cfg for the CLI. A SQLite database is
// migrated first, as serve does; PostgreSQL needs `hoplink migrate`.
func OpenOps(ctx context.Context, cfg Config) (*Ops, error) {
	return openOps(ctx, cfg, !cfg.IsPostgres())
}

// OpenOpsForMigrate opens the database of cfg without migrating it, for
// `hoplink migrate`, which applies the pending migrations itself and reports
// their names.
func OpenOpsForMigrate(ctx context.Context, cfg Config) (*Ops, error) {
	return openOps(ctx, cfg, false)
}

func openOps(ctx context.Context, cfg Config, migrate bool) (*Ops, error) {
	if err := checkSQLitePath(cfg.DB); err != nil {
		return nil, errcode.New(errcode.ValidationError, err.Error())
	}
	created := newSQLiteFile(cfg.DB)
	s, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return nil, fmt.Errorf("--db %s: %w", DBForLog(cfg.DB), err)
	}
	if migrate {
		if err := s.Migrate(ctx); err != nil {
			_ = s.Close()
			return nil, err
		}
	}
	// set-plan suspends or restores custom domains; the servers' link caches
	// see the change within their TTL.
	domains := linking.NewDomainService(s, s, linking.DomainServiceOptions{
		Reserved: linking.ReservedDomains{DefaultLinkDomain: cfg.DefaultLinkDomain, ServiceHosts: cfg.ServiceHosts, CNAMETarget: cfg.CNAMETarget},
	})
	orgs := org.NewService(s, org.ServiceOptions{PlanListener: domains})
	return &Ops{
		Orgs:    orgs,
		Keys:    auth.NewKeys(s, auth.KeysOptions{}),
		Apps:    linking.NewAppService(s, s, linking.AppServiceOptions{DefaultLinkDomain: cfg.DefaultLinkDomain, ShortURLBase: cfg.ShortURLBase, CustomDomains: domains}),
		Audit:   audit.NewRecorder(s, audit.RecorderOptions{}),
		Exports: analytics.NewExports(s, orgs, analytics.ExportsOptions{PublicURL: cfg.PublicURL.String()}),
		Purger:  analytics.NewPurger(s, analytics.PurgerOptions{}),
		Team:    org.NewTeam(s, org.TeamOptions{}),
		Created: created,
		store:   s,
	}, nil
}

// SetPassword sets the password of the user with email and ends every
// session of the user (account.Service.SetPassword). The account service is
// made for this call alone, keyed with a random secret rather than the
// server secret: setting a password never reads or writes the TOTP secrets
// that key seals.
func (o *Ops) SetPassword(ctx context.Context, email, password string) (*identity.User, error) {
	svc, err := account.NewService(o.store, []byte(rand.Text()+rand.Text()), account.ServiceOptions{})
	if err != nil {
		return nil, err
	}
	return svc.SetPassword(ctx, email, password)
}

// ExportClicks writes the CSV of organization orgID's stored clicks that in
// keeps to w, straight from the database and without a job
// (analytics.Exports.WriteCSV): the plan's look-back and retention apply
// as they do to the API. progress, when not nil, is told the rows written
// after each page.
func (o *Ops) ExportClicks(ctx context.Context, orgID uuid.UUID, in analytics.StartExportInput, w io.Writer,
	progress func(rows int64)) (int64, error) {
	return o.Exports.WriteCSV(ctx, orgID, in, w, progress)
}

// Close closes the database.
func (o *Ops) Close() error { return o.store.Close() }

// Migrate applies pending migrations and returns their names.
func (o *Ops) Migrate(ctx context.Context) ([]string, error) {
	return o.store.MigrateNames(ctx)
}

// MigrationStatus lists the migrations this build knows, oldest first, with
// when each was applied (zero while pending).
func (o *Ops) MigrationStatus(ctx context.Context) ([]store.MigrationState, error) {
	return o.store.MigrationStatus(ctx)
}

// CreateKey creates a key in orgID. With createdBy set, the user must be a
// member of the organization and the key may carry only scopes the member's
// role holds.
func (o *Ops) CreateKey(ctx context.Context, orgID uuid.UUID, createdBy *uuid.UUID, in auth.CreateKeyInput) (*auth.IssuedKey, error) {
	if _, err := o.Orgs.ByID(ctx, orgID); err != nil {
		return nil, err
	}
	var role auth.Role
	if createdBy != nil {
		members, err := o.Orgs.Members(ctx, orgID)
		if err != nil {
			return nil, err
		}
		for _, m := range members {
			if m.UserID == *createdBy {
				role = m.Role
			}
		}
		if role == "" {
			return nil, errcode.Field("created_by", "is not a member of the organization")
		}
	}
	return o.Keys.CreateFor(ctx, orgID, createdBy, role, in)
}

// ListKeys returns every key of orgID.
func (o *Ops) ListKeys(ctx context.Context, orgID uuid.UUID) ([]auth.Key, error) {
	if _, err := o.Orgs.ByID(ctx, orgID); err != nil {
		return nil, err
	}
	return o.Keys.ListFor(ctx, orgID)
}

// RevokeKey deletes key id, whatever its organization, and returns it.
func (o *Ops) RevokeKey(ctx context.Context, id uuid.UUID) (*auth.Key, error) {
	k, err := o.store.KeyByIDAnyOrg(ctx, id)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "key not found")
	}
	if err := o.store.DeleteKey(ctx, k.OrgID, id); err != nil {
		return nil, err
	}
	return k, nil
}

// SetMemberRole gives the member of organization orgID whose email is
// email the role, as PATCH /v1/members/{user_id} does for a key
// without a creator (which may make and unmake owners), and returns the
// member. Errors: NOT_FOUND for an unknown organization or a user who is
// not a member; VALIDATION_ERROR for a role other than owner, admin or
// member; LAST_OWNER when it would leave the organization without an owner.
func (o *Ops) SetMemberRole(ctx context.Context, orgID uuid.UUID, email string, role auth.Role) (*org.TeamMember, error) {
	if _, err := o.Orgs.ByID(ctx, orgID); err != nil {
		return nil, err
	}
	n, err := identity.NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	members, err := o.Orgs.Members(ctx, orgID)
	if err != nil {
		return nil, err
	}
	for _, m := range members {
		if strings.EqualFold(m.Email, n) {
			p := &auth.Principal{OrgID: orgID, Type: auth.KeyTypeAPI, Scopes: auth.NewScopeSet([]auth.Scope{auth.ScopeTeamWrite})}
			return o.Team.UpdateRole(ctx, p, m.UserID, org.UpdateMemberInput{Role: &role})
		}
	}
	return nil, errcode.New(errcode.NotFound, "the user is not a member of this organization")
}

// RenameApp renames the subdomain of app id, whatever its organization,
// for the member of that organization whose email is by, as PUT
// /v1/apps/{id}/subdomain does for a key that member created: the
// member's role must allow it (owners and admins). It returns the
// subdomain state and the member, whom the caller records in the audit
// log as the rename's actor. A by that names no member of the app's
// organization is 403 ATTRIBUTED_KEY_REQUIRED.
func (o *Ops) RenameApp(ctx context.Context, id uuid.UUID, handle, by string, confirm bool) (*linking.SubdomainState, *org.Member, error) {
	a, err := o.store.AppAnyOrg(ctx, id)
	if err != nil {
		return nil, nil, errcode.NotFoundAs(err, "app not found")
	}
	var member *org.Member
	if email, err := identity.NormalizeEmail(by); err == nil {
		members, err := o.Orgs.Members(ctx, a.OrgID)
		if err != nil {
			return nil, nil, err
		}
		for i := range members {
			if strings.EqualFold(members[i].Email, email) {
				member = &members[i]
			}
		}
	}
	if member == nil {
		return nil, nil, errcode.New(errcode.AttributedKeyRequired,
			"a subdomain rename must be attributable to a person: --by must be the email of a member of the app's organization")
	}
	p := &auth.Principal{OrgID: a.OrgID, Type: auth.KeyTypeAPI, Scopes: auth.NewScopeSet([]auth.Scope{auth.ScopeAppsWrite}),
		CreatedBy: &member.UserID, Role: member.Role}
	st, err := o.Apps.Rename(ctx, p, id, linking.RenameInput{Handle: &handle, Confirm: &confirm})
	if err != nil {
		return nil, nil, err
	}
	return st, member, nil
}
