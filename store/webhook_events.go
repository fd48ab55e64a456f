package store

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
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
		ID: d.ID, Domain: d.Domain, Verified: d.Verified, VerifiedAt: utcPtr(d.VerifiedAt), SuspendedAt: utcPtr(d.SuspendedAt)})
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

// subscriptionsTTL is how long a process trusts its lists of the
// organizations with an enabled endpoint that takes an event announced at
// a request's rate (link.clicked, install.unattributed): a new
// subscription made on another replica reaches this one within it. A
// change of endpoints through this store empties the lists at once.
const subscriptionsTTL = 10 * time.Second

// subscriberLists are the lists emitClicks and RecordAttempt read, so that
// a batch of clicks or an unmatched attempt of an organization that takes
// no such event costs a map lookup, not a query.
type subscriberLists struct {
	mu     sync.Mutex
	byType map[webhook.Type]subscriberList
	// gen counts forget calls, so that a list read across one is not kept.
	gen uint64
}

type subscriberList struct {
	orgs  map[uuid.UUID]bool
	until time.Time
}

func (c *subscriberLists) forget() {
	c.mu.Lock()
	c.gen++
	clear(c.byType)
	c.mu.Unlock()
}

// subscribers returns the organizations with an enabled endpoint that takes
// t, reading them through db when the list is older than subscriptionsTTL.
// No lock is held while it reads: the click writer calls it inside its
// transaction, which on an in-memory database holds the one connection.
func (s *Store) subscribers(ctx context.Context, db bun.IDB, t webhook.Type) (map[uuid.UUID]bool, error) {
	c := &s.subs
	now := time.Now()
	c.mu.Lock()
	l, gen := c.byType[t], c.gen
	c.mu.Unlock()
	if now.Before(l.until) {
		return l.orgs, nil
	}
	var orgIDs []uuid.UUID
	err := db.NewSelect().Model((*webhookRow)(nil)).Column("w.org_id").
		Where("w.disabled_at IS NULL AND w.events LIKE ?", `%"`+string(t)+`"%`).
		Scan(ctx, &orgIDs)
	if err != nil {
		return nil, err
	}
	orgs := make(map[uuid.UUID]bool, len(orgIDs))
	for _, id := range orgIDs {
		orgs[id] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		if c.byType == nil {
			c.byType = map[webhook.Type]subscriberList{}
		}
		c.byType[t] = subscriberList{orgs: orgs, until: now.Add(subscriptionsTTL)}
	}
	return orgs, nil
}

// emitClicks announces stored clicks (link.clicked) through tx, the
// batch's transaction, for the organizations that take the event: one event
// per link and up to webhook.MaxClicksPerEvent clicks, stamped with its
// last click's time. The endpoints' filters then apply as for any event.
func (s *Store) emitClicks(ctx context.Context, tx bun.IDB, stored []analytics.Click) error {
	if len(stored) == 0 {
		return nil
	}
	subs, err := s.subscribers(ctx, tx, webhook.LinkClicked)
	if err != nil || len(subs) == 0 {
		return err
	}
	var order []uuid.UUID
	byLink := map[uuid.UUID][]*analytics.Click{}
	for i := range stored {
		c := &stored[i]
		if !subs[c.OrgID] {
			continue
		}
		if _, ok := byLink[c.LinkID]; !ok {
			order = append(order, c.LinkID)
		}
		byLink[c.LinkID] = append(byLink[c.LinkID], c)
	}
	var events []webhook.Event
	for _, link := range order {
		clicks := byLink[link]
		for start := 0; start < len(clicks); start += webhook.MaxClicksPerEvent {
			part := clicks[start:min(start+webhook.MaxClicksPerEvent, len(clicks))]
			data := webhook.LinkClickedData{Clicks: make([]webhook.ClickData, len(part))}
			last := part[0].OccurredAt
			for i, c := range part {
				data.Clicks[i] = webhook.ClickData{ClickID: c.ID, LinkID: c.LinkID, ClickedAt: utc(c.OccurredAt),
					Source: string(c.Source), Platform: c.Platform, Country: c.Country}
				if c.OccurredAt.After(last) {
					last = c.OccurredAt
				}
			}
			id := link
			ev, err := webhook.NewEvent(part[0].OrgID, webhook.LinkClicked, last, &id, part[0].AppID, data)
			if err != nil {
				return err
			}
			events = append(events, ev)
		}
	}
	return s.emit(ctx, tx, events...)
}
