package linking

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
)

// The choices of PUT /links/{id}/move-choice (SPEC.md, link move choice).
const (
	// MoveChoiceKeep keeps the link where it is, on its app's previous
	// subdomain: it is not moved, and its slug is not held for it on the
	// app's current subdomain.
	MoveChoiceKeep = "keep"
	// MoveChoiceNewSlug moves the link at once to its app's current
	// subdomain with a new slug; its old URL redirects (301) to the new one.
	MoveChoiceNewSlug = "new_slug"
)

// The fields of the move-choice body that errors name.
const (
	FieldChoice  = "choice"
	FieldNewSlug = "new_slug"
)

// MoveChoice is the Move choice resource (SPEC.md): what was chosen for a
// link on its app's previous subdomain. The store keeps it until the link
// moves with its slug, the choice is cleared (DELETE), or the link is deleted.
type MoveChoice struct {
	LinkID uuid.UUID `json:"link_id"`
	// Choice is MoveChoiceKeep or MoveChoiceNewSlug.
	Choice string `json:"choice"`
	// NewSlug is the slug the link moved with (MoveChoiceNewSlug); nil for keep.
	NewSlug *string `json:"new_slug"`
	// ShortURL is the link's short URL after the choice: unchanged for keep,
	// on the app's current subdomain with NewSlug for new_slug.
	ShortURL  string    `json:"short_url"`
	UpdatedAt time.Time `json:"updated_at"`

	// OrgID is the link's organization.
	OrgID uuid.UUID `json:"-"`
	// Domain is the previous subdomain the choice was made on: the link's
	// domain when it was made. A keep choice counts only while the link is
	// still there.
	Domain    string    `json:"-"`
	CreatedAt time.Time `json:"-"`
}

// LinkMove is one move of a link to its app's current subdomain, as
// MoveChoiceStore.MoveLink carries it out.
type LinkMove struct {
	OrgID  uuid.UUID
	LinkID uuid.UUID
	// FromDomain and FromSlug are the link's address before the move; it
	// becomes an old address of the link (OldAddress) beginning At.
	FromDomain, FromSlug string
	// ToDomain and ToSlug are its address after the move.
	ToDomain, ToSlug string
	// Previous, when not empty, is the app's previous subdomain: ToSlug is
	// then refused (ErrMoveTargetHeld) when another link there, which has no
	// keep choice saved there, has it as its slug, since that link would move
	// to ToDomain with it.
	Previous string
	// At is the link's new updated_at and the old address's BeganAt.
	At time.Time
	// Choice, when not nil, is saved with the move (replacing any saved
	// choice); when nil, a saved choice of the link is deleted.
	Choice *MoveChoice
	// ShortURL is the link's short URL at its new address, for the
	// link.updated event the move writes.
	ShortURL string
}

// Errors of MoveChoiceStore, each wrapping errcode.ErrConflict.
var (
	// ErrMoveTargetTaken: a link, or an old address of a moved link, is at
	// the address a move goes to.
	ErrMoveTargetTaken = fmt.Errorf("%w: the address the link moves to is taken", errcode.ErrConflict)
	// ErrMoveTargetHeld: the slug a move goes to is held for another link
	// of the previous subdomain (LinkMove.Previous).
	ErrMoveTargetHeld = fmt.Errorf("%w: the address the link moves to is held for another link", errcode.ErrConflict)
	// ErrLinkMoved: the link is no longer at the address the move or the
	// choice was made for.
	ErrLinkMoved = fmt.Errorf("%w: the link is no longer at that address", errcode.ErrConflict)
	// ErrSlugHeld: the slug a new link asks for on its app's current
	// subdomain is held for a link of the app's previous subdomain waiting
	// to move there (MoveChoiceStore.CreateLinkOnMoveTarget).
	ErrSlugHeld = fmt.Errorf("%w: the address is held for a link waiting to move there", errcode.ErrConflict)
)

// MoveChoiceStore is the storage of link move choices and moves. A
// LinkService whose LinkStore also implements it (as store.Store does)
// serves PUT and DELETE /links/{id}/move-choice; with any other LinkStore
// they fail with an internal error.
type MoveChoiceStore interface {
	// SaveMoveChoice saves c, replacing the link's saved choice if any.
	// errcode.ErrNotFound when link c.LinkID is not in c.OrgID; ErrLinkMoved
	// when the link's domain is no longer c.Domain.
	SaveMoveChoice(ctx context.Context, c *MoveChoice) error
	// MoveChoiceOf returns the saved choice of link linkID of orgID;
	// errcode.ErrNotFound when there is none.
	MoveChoiceOf(ctx context.Context, orgID, linkID uuid.UUID) (*MoveChoice, error)
	// DeleteMoveChoice deletes the saved choice of link linkID of orgID, if
	// it has one.
	DeleteMoveChoice(ctx context.Context, orgID, linkID uuid.UUID) error
	// MoveLink carries m out in one transaction: the link (which must be in
	// m.OrgID, else errcode.ErrNotFound, and at m.FromDomain and m.FromSlug,
	// else ErrLinkMoved) gets m.ToDomain and m.ToSlug and updated_at m.At;
	// its old address is recorded as RecordOldAddress records one; m.Choice
	// is saved or the saved choice deleted. ErrMoveTargetTaken when a link
	// or an old address is at the new address, ErrMoveTargetHeld as
	// LinkMove.Previous says; nothing changes then.
	MoveLink(ctx context.Context, m *LinkMove) error
	// CreateLinkOnMoveTarget is LinkStore.CreateLink for a link on its
	// app's current subdomain while the app has a previous subdomain,
	// previous: in the same transaction it also refuses l, with an error
	// wrapping ErrSlugHeld, when a link waiting to move (on previous, with
	// no keep choice saved there) has l.Slug as its slug, since that link
	// would move to l.Domain with it. Those are the links MoveLink counts
	// as holding a slug (LinkMove.Previous). A link or an old address at
	// l's address wins over a held slug (a plain errcode.ErrConflict).
	CreateLinkOnMoveTarget(ctx context.Context, l *Link, quota LinkQuota, previous string) error
}

// MoveChoiceInput is the body of PUT /links/{id}/move-choice. JSON null is
// the same as an absent field.
type MoveChoiceInput struct {
	// Choice is required: MoveChoiceKeep or MoveChoiceNewSlug.
	Choice *string `json:"choice"`
	// NewSlug is required with new_slug and must be absent or null with keep.
	NewSlug *string `json:"new_slug"`
}

// moveStore returns the store of moves, or an internal error when the
// service's LinkStore is not one.
func (s *LinkService) moveStore() (MoveChoiceStore, error) {
	ms, ok := s.links.(MoveChoiceStore)
	if !ok {
		return nil, errors.New("linking: the link store does not store move choices (MoveChoiceStore)")
	}
	return ms, nil
}

// CheckMoveChoice returns the error a move-choice request (PUT or DELETE)
// for link id gets before its body is read, nil when there is none: 403
// FORBIDDEN (scope links:write or the role's links.write), 404 NOT_FOUND (no
// such link in p's organization), 403 FORBIDDEN (a member's key on a link
// its member did not create). A handler that cannot decode the body asks it
// first, so that these errors win over a bad body.
func (s *LinkService) CheckMoveChoice(ctx context.Context, p *auth.Principal, id uuid.UUID) error {
	_, err := s.writable(ctx, p, id)
	return err
}

// moveTarget holds where a pending link moves: from its app's previous
// subdomain to its app's current one.
type moveTarget struct {
	previous, current string
}

// pending returns where link l would move, or 409 LINK_MOVE_NOT_PENDING when
// l does not use its app's previous subdomain: it has no app, or its app
// has no previous subdomain or one other than l's domain.
func (s *LinkService) pending(ctx context.Context, l *Link) (moveTarget, error) {
	notPending := errcode.New(errcode.LinkMoveNotPending, "the link does not use its app's previous subdomain")
	if l.AppID == nil {
		return moveTarget{}, notPending
	}
	app, err := s.apps.AppByID(ctx, l.OrgID, *l.AppID)
	if errors.Is(err, errcode.ErrNotFound) {
		return moveTarget{}, notPending
	}
	if err != nil {
		return moveTarget{}, err
	}
	app.FillLinkDomains(s.def)
	t, ok := moveTargetOf(app)
	if !ok || t.previous != NormalizeDomain(l.Domain) {
		return moveTarget{}, notPending
	}
	// Past the period's ends_at the choices are settled, even before the
	// end is carried out (docs/app-subdomains.md).
	if app.RenameEndsAt != nil && !s.now().Before(*app.RenameEndsAt) {
		return moveTarget{}, errcode.New(errcode.LinkMoveNotPending, "the rename period has ended: the link's move is settled")
	}
	return t, nil
}

// moveTargetOf returns where the links of app (its link domains filled in)
// on its previous subdomain would move, and false when the app has no
// previous subdomain other than its current one: then no link of it waits
// to move, and no slug is held on its subdomain.
func moveTargetOf(app *App) (moveTarget, bool) {
	t := moveTarget{current: NormalizeDomain(app.LinkDomain)}
	if app.PreviousLinkDomain != nil {
		t.previous = NormalizeDomain(*app.PreviousLinkDomain)
	}
	if t.previous == "" || t.current == "" || t.current == t.previous {
		return moveTarget{}, false
	}
	return t, true
}

// SetMoveChoice saves the move choice of link id of p's organization
// (SPEC.md, PUT /links/{id}/move-choice) and returns it. The checks, in
// order: CheckMoveChoice's (403, 404, 403); the body (400 VALIDATION_ERROR;
// 400 SLUG_UNCHANGED when new_slug is the link's slug); the link uses its
// app's previous subdomain (409 LINK_MOVE_NOT_PENDING); with new_slug, the
// slug is free on the app's current subdomain (409 SLUG_TAKEN with
// details.slug and details.domain when a link or an old address is there,
// and details.held_by when another link of the previous subdomain, which
// has not chosen keep, has that slug and so would move there with it).
//
// keep saves the choice and changes nothing else: the link stays at its
// address on the previous subdomain. new_slug moves the link at once to
// the app's current subdomain with the new slug, records its old address
// (which then answers 301 to the new one) and saves the choice; the
// resolver cache of this process forgets both addresses.
func (s *LinkService) SetMoveChoice(ctx context.Context, p *auth.Principal, id uuid.UUID, in MoveChoiceInput) (*MoveChoice, error) {
	l, err := s.writable(ctx, p, id)
	if err != nil {
		return nil, err
	}
	ms, err := s.moveStore()
	if err != nil {
		return nil, err
	}

	var c checker
	choice, unchanged := "", false
	if in.Choice == nil {
		c.fail(FieldChoice, "is required: keep or new_slug")
	} else if choice = *in.Choice; choice != MoveChoiceKeep && choice != MoveChoiceNewSlug {
		c.fail(FieldChoice, "must be keep or new_slug")
	}
	switch choice {
	case MoveChoiceKeep:
		if in.NewSlug != nil {
			c.fail(FieldNewSlug, "must be absent or null with choice keep")
		}
	case MoveChoiceNewSlug:
		switch {
		case in.NewSlug == nil:
			c.fail(FieldNewSlug, "is required with choice new_slug")
		case *in.NewSlug == l.Slug:
			unchanged = true
		default:
			if err := ValidateSlug(*in.NewSlug, true); err != nil {
				e, _ := errcode.As(err)
				for _, f := range e.Fields {
					c.fail(FieldNewSlug, f.Message)
				}
			}
		}
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	if unchanged {
		return nil, &errcode.Error{Code: errcode.SlugUnchanged, Message: "new_slug is the link's current slug",
			Fields: []errcode.FieldError{{Field: FieldNewSlug, Message: "equals the link's current slug"}}}
	}

	target, err := s.pending(ctx, l)
	if err != nil {
		return nil, err
	}
	now := s.now()
	mc := &MoveChoice{LinkID: l.ID, OrgID: l.OrgID, Choice: choice, Domain: l.Domain, ShortURL: l.ShortURL,
		UpdatedAt: now, CreatedAt: now}
	if choice == MoveChoiceKeep {
		err := ms.SaveMoveChoice(ctx, mc)
		if err != nil {
			return nil, s.moveError(err, "", "", "")
		}
		return mc, nil
	}

	slug := *in.NewSlug
	mc.NewSlug = &slug
	mc.ShortURL = ShortURL(s.base, target.current, slug)
	m := &LinkMove{OrgID: l.OrgID, LinkID: l.ID, FromDomain: l.Domain, FromSlug: l.Slug,
		ToDomain: target.current, ToSlug: slug, Previous: target.previous, At: now, Choice: mc, ShortURL: mc.ShortURL}
	err = ms.MoveLink(ctx, m)
	s.invalidateMove(m)
	if err != nil {
		return nil, s.moveError(err, slug, target.current, target.previous)
	}
	return mc, nil
}

// ClearMoveChoice clears the saved move choice of link id of p's
// organization (SPEC.md, DELETE /links/{id}/move-choice), with or without
// one saved, and moves the link with its slug when it can: when neither a
// link nor an old address is at its slug on its app's current subdomain
// (and the slug is not reserved there), the link moves there, its old
// address is recorded (it then answers 301 to the new one) and the resolver
// cache of this process forgets both addresses; otherwise it stays where
// it is, without a choice. Errors: those of CheckMoveChoice, and 409
// LINK_MOVE_NOT_PENDING when the link does not use its app's previous
// subdomain.
func (s *LinkService) ClearMoveChoice(ctx context.Context, p *auth.Principal, id uuid.UUID) error {
	l, err := s.writable(ctx, p, id)
	if err != nil {
		return err
	}
	ms, err := s.moveStore()
	if err != nil {
		return err
	}
	target, err := s.pending(ctx, l)
	if err != nil {
		return err
	}
	if !IsReservedSlug(l.Slug, true) {
		m := &LinkMove{OrgID: l.OrgID, LinkID: l.ID, FromDomain: l.Domain, FromSlug: l.Slug,
			ToDomain: target.current, ToSlug: l.Slug, At: s.now(), ShortURL: ShortURL(s.base, target.current, l.Slug)}
		err = ms.MoveLink(ctx, m)
		s.invalidateMove(m)
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrMoveTargetTaken) {
			return s.moveError(err, "", "", "")
		}
	}
	return ms.DeleteMoveChoice(ctx, l.OrgID, l.ID)
}

// invalidateMove tells the cache that both addresses of m changed.
func (s *LinkService) invalidateMove(m *LinkMove) {
	s.invalidate(&Link{Domain: m.FromDomain, Slug: m.FromSlug})
	s.invalidate(&Link{Domain: m.ToDomain, Slug: m.ToSlug})
}

// moveError maps the errors of a MoveChoiceStore to SPEC.md's codes; slug,
// domain and previous are the move's new slug, new domain and the app's
// previous subdomain.
func (s *LinkService) moveError(err error, slug, domain, previous string) error {
	switch {
	case errors.Is(err, ErrLinkMoved):
		return errcode.New(errcode.LinkMoveNotPending, "the link no longer uses its app's previous subdomain")
	case errors.Is(err, ErrMoveTargetHeld):
		return SlugHeldError(slug, domain, HeldBy{Domain: previous, Slug: slug})
	case errors.Is(err, ErrMoveTargetTaken):
		return SlugTakenError(slug, domain)
	}
	return errcode.NotFoundAs(err, "link not found")
}
