package store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/webhook"
)

// The webhook events of the store's changes. Each method that makes a
// change an event announces calls emit with the event, through the
// transaction of the change, so that the event is in the outbox exactly
// when the change is committed (package webhook). emit reads the
// organization's endpoints in that transaction and writes nothing when none
// takes the event: the cost of an event nobody subscribes to is that one
// indexed read.

// emit writes events to the outbox through tx (see enqueueWebhookEvents).
func (s *Store) emit(ctx context.Context, tx bun.IDB, events ...webhook.Event) error {
	return s.enqueueWebhookEvents(ctx, tx, events)
}

// wantsEvent reports whether an enabled endpoint of orgID subscribes to t,
// for changes that take a faster path when none does.
func (s *Store) wantsEvent(ctx context.Context, db bun.IDB, orgID uuid.UUID, t webhook.Type) (bool, error) {
	eps, err := s.listWebhooks(ctx, db, orgID)
	if err != nil {
		return false, err
	}
	for i := range eps {
		if eps[i].DisabledAt == nil && containsType(eps[i].Events, t) {
			return true, nil
		}
	}
	return false, nil
}

func containsType(ts []webhook.Type, t webhook.Type) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

func linkEvent(t webhook.Type, l *linking.Link, at time.Time) (webhook.Event, error) {
	return webhook.NewEvent(l.OrgID, t, at, &l.ID, l.AppID, webhook.LinkData{
		ID: l.ID, ShortURL: l.ShortURL, Domain: l.Domain, Slug: l.Slug, Name: l.Name,
		DestinationURL: l.DestinationURL, AppID: l.AppID, IsActive: l.IsActive, Tags: nonNil(l.Tags),
		ExpiresAt: utcPtr(l.ExpiresAt), CreatedAt: utc(l.CreatedAt), UpdatedAt: utc(l.UpdatedAt),
	})
}

func linkDeletedEvent(orgID, id uuid.UUID, domain, slug string, appID *uuid.UUID, at time.Time) (webhook.Event, error) {
	return webhook.NewEvent(orgID, webhook.LinkDeleted, at, &id, appID,
		webhook.LinkDeletedData{ID: id, Domain: domain, Slug: slug, AppID: appID})
}

func domainEvent(t webhook.Type, d *linking.Domain, at time.Time) (webhook.Event, error) {
	return webhook.NewEvent(d.OrgID, t, at, nil, nil, webhook.DomainData{
		ID: d.ID, Domain: d.Domain, Verified: d.Verified, VerifiedAt: utcPtr(d.VerifiedAt)})
}

func memberEvent(t webhook.Type, m *org.Member, at time.Time) (webhook.Event, error) {
	return webhook.NewEvent(m.OrgID, t, at, nil, nil, webhook.MemberData{UserID: m.UserID, Email: m.Email, Role: string(m.Role)})
}

// installAttributedEvent is the event of a claimed install; its link is
// the routed link of the stored payload, or else the install's.
func installAttributedEvent(in *attribution.InstallRecord, a *attribution.Attempt) (webhook.Event, error) {
	data := webhook.InstallAttributedData{InstallID: in.ID, AppID: in.AppID, ClickID: in.ClickID,
		Platform: string(in.Platform), IsReinstall: in.IsReinstall, InstalledAt: utc(in.InstalledAt)}
	if in.LinkID != nil {
		data.LinkID = *in.LinkID
	}
	if in.Payload != nil {
		data.LinkID, data.MatchType, data.MatchConfidence = in.Payload.LinkID, string(in.Payload.MatchType), in.Payload.MatchConfidence
	} else if a.MatchType != nil {
		data.MatchType = string(*a.MatchType)
	}
	if data.MatchType == "" {
		data.MatchType = string(attribution.MatchProbabilistic)
		if in.MatchGuaranteed {
			data.MatchType = string(attribution.MatchDeterministic)
		}
	}
	if len(a.Signals) > 0 {
		data.MatchSignal = a.Signals[0]
	}
	link := data.LinkID
	return webhook.NewEvent(in.OrgID, webhook.InstallAttributed, in.InstalledAt, &link, in.AppID, data)
}

func installUnattributedEvent(a *attribution.Attempt) (webhook.Event, error) {
	data := webhook.InstallUnattributedData{AttemptID: a.ID, AppID: a.AppID, Platform: string(a.Platform)}
	if a.FailReason != nil {
		data.FailReason = string(*a.FailReason)
	}
	return webhook.NewEvent(a.OrgID, webhook.InstallUnattributed, a.CreatedAt, nil, a.AppID, data)
}
