package attrsim

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/errcode"
)

// MemStore is an in-memory attribution.Store for one organization, with the
// semantics of package store's: candidate clicks by (app, IP key, time),
// claims that hold a click for one install, replay and device lookups. It is
// safe for concurrent use.
type MemStore struct {
	mu       sync.Mutex
	orgID    uuid.UUID
	apps     []attribution.App
	links    map[uuid.UUID]attribution.Link
	clicks   map[uuid.UUID]*attribution.Click
	byKey    map[appKey][]*attribution.Click // newest first after Seal
	installs []attribution.InstallRecord
	byDevice map[uuid.UUID][]int
	byFinger map[string][]int
	claimed  map[uuid.UUID]uuid.UUID
	attempts []attribution.Attempt
}

type appKey struct {
	app uuid.UUID
	key string
}

var _ attribution.Store = (*MemStore)(nil)

// NewMemStore returns a store of the world's organization, apps and links,
// without clicks.
func NewMemStore(w *World) *MemStore {
	s := &MemStore{orgID: w.OrgID, apps: w.Apps, links: map[uuid.UUID]attribution.Link{},
		clicks: map[uuid.UUID]*attribution.Click{}, byKey: map[appKey][]*attribution.Click{},
		byDevice: map[uuid.UUID][]int{}, byFinger: map[string][]int{}, claimed: map[uuid.UUID]uuid.UUID{}}
	for _, ls := range w.Links {
		for _, l := range ls {
			s.links[l.ID] = l
		}
	}
	return s
}

// AddClicks stores clicks.
func (s *MemStore) AddClicks(clicks []attribution.Click) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range clicks {
		c := clicks[i]
		s.clicks[c.ID] = &c
		if c.AppID != nil {
			k := appKey{*c.AppID, c.IPKey}
			s.byKey[k] = append(s.byKey[k], &c)
		}
	}
	for _, cs := range s.byKey {
		sort.Slice(cs, func(i, j int) bool { return cs[i].OccurredAt.After(cs[j].OccurredAt) })
	}
}

// Attempts returns the attempts recorded so far.
func (s *MemStore) Attempts() []attribution.Attempt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]attribution.Attempt(nil), s.attempts...)
}

// Install returns the install with id.
func (s *MemStore) Install(id uuid.UUID) (attribution.InstallRecord, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.installs {
		if s.installs[i].ID == id {
			return s.installs[i], true
		}
	}
	return attribution.InstallRecord{}, false
}

func (s *MemStore) own(orgID uuid.UUID) bool { return orgID == s.orgID }

func (s *MemStore) copyClick(c *attribution.Click) attribution.Click {
	out := *c
	_, out.Claimed = s.claimed[c.ID]
	return out
}

// MatchApps implements attribution.Store.
func (s *MemStore) MatchApps(_ context.Context, orgID uuid.UUID) ([]attribution.App, error) {
	if !s.own(orgID) {
		return nil, nil
	}
	return s.apps, nil
}

// MatchClick implements attribution.Store.
func (s *MemStore) MatchClick(_ context.Context, orgID, id uuid.UUID) (*attribution.Click, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clicks[id]
	if !ok || !s.own(orgID) {
		return nil, errcode.ErrNotFound
	}
	out := s.copyClick(c)
	return &out, nil
}

// CandidateClicks implements attribution.Store.
func (s *MemStore) CandidateClicks(_ context.Context, q attribution.CandidateQuery) ([]attribution.Click, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.own(q.OrgID) {
		return nil, nil
	}
	var out []attribution.Click
	for _, app := range q.AppIDs {
		for _, c := range s.byKey[appKey{app, q.IPKey}] {
			if c.OccurredAt.Before(q.Until) && !c.OccurredAt.Before(q.Since) {
				out = append(out, s.copyClick(c))
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].OccurredAt.After(out[j].OccurredAt) })
	if len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// KeyClicks implements attribution.Store.
func (s *MemStore) KeyClicks(ctx context.Context, q attribution.KeyQuery) (attribution.KeyRead, error) {
	clicks, err := s.CandidateClicks(ctx, q.CandidateQuery)
	if err != nil || len(clicks) < q.Limit {
		return attribution.KeyRead{Clicks: clicks}, err
	}
	busy := q.CandidateQuery
	busy.Since = q.BusySince
	busy.Limit = q.Background
	bg, err := s.CandidateClicks(ctx, busy)
	if err != nil {
		return attribution.KeyRead{}, err
	}
	busy.AppIDs, busy.Limit = []uuid.UUID{q.AppID}, q.Limit
	clicks, err = s.CandidateClicks(ctx, busy)
	return attribution.KeyRead{Busy: true, Clicks: clicks, Background: bg}, err
}

// MatchLink implements attribution.Store.
func (s *MemStore) MatchLink(_ context.Context, orgID, id uuid.UUID) (*attribution.Link, error) {
	l, ok := s.links[id]
	if !ok || !s.own(orgID) {
		return nil, errcode.ErrNotFound
	}
	return &l, nil
}

// ReplayInstall implements attribution.Store.
func (s *MemStore) ReplayInstall(_ context.Context, orgID uuid.UUID, appID, deviceID *uuid.UUID, fingerprint string, since time.Time) (*attribution.InstallRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.own(orgID) {
		return nil, errcode.ErrNotFound
	}
	var idx []int
	switch {
	case deviceID != nil:
		idx = s.byDevice[*deviceID]
	case fingerprint != "":
		idx = s.byFinger[fingerprint]
	}
	for i := len(idx) - 1; i >= 0; i-- {
		rec := s.installs[idx[i]]
		if sameApp(rec.AppID, appID) && !rec.InstalledAt.Before(since) {
			return &rec, nil
		}
	}
	return nil, errcode.ErrNotFound
}

func sameApp(a, b *uuid.UUID) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// DeviceInstalls implements attribution.Store.
func (s *MemStore) DeviceInstalls(_ context.Context, orgID, deviceID uuid.UUID) ([]attribution.InstallRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.own(orgID) {
		return nil, nil
	}
	idx := s.byDevice[deviceID]
	out := make([]attribution.InstallRecord, 0, len(idx))
	for i := len(idx) - 1; i >= 0; i-- {
		out = append(out, s.installs[idx[i]])
	}
	return out, nil
}

// Claim implements attribution.Store.
func (s *MemStore) Claim(_ context.Context, in attribution.InstallRecord, a attribution.Attempt) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.own(in.OrgID) {
		return errors.New("attrsim: another organization")
	}
	if in.ClickID != nil {
		if _, taken := s.claimed[*in.ClickID]; taken {
			return attribution.ErrClaimed
		}
	}
	for _, id := range in.ClaimedClickIDs {
		if _, taken := s.claimed[id]; !taken {
			s.claimed[id] = in.ID
		}
	}
	s.installs = append(s.installs, in)
	i := len(s.installs) - 1
	if in.DeviceID != nil {
		s.byDevice[*in.DeviceID] = append(s.byDevice[*in.DeviceID], i)
	}
	if in.Fingerprint != "" {
		s.byFinger[in.Fingerprint] = append(s.byFinger[in.Fingerprint], i)
	}
	s.attempts = append(s.attempts, a)
	return nil
}

// RecordAttempt implements attribution.Store.
func (s *MemStore) RecordAttempt(_ context.Context, a attribution.Attempt) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts = append(s.attempts, a)
	return nil
}

// ListInstalls implements attribution.Store: newest first within the window.
func (s *MemStore) ListInstalls(_ context.Context, f attribution.InstallFilter, limit int) ([]attribution.Install, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []attribution.Install
	for i := len(s.installs) - 1; i >= 0 && len(out) < limit && s.own(f.OrgID); i-- {
		in := s.installs[i].Install
		if !in.InstalledAt.Before(f.From) && in.InstalledAt.Before(f.To) {
			out = append(out, in)
		}
	}
	return out, nil
}

// ListAttempts implements attribution.Store: newest first within the window.
func (s *MemStore) ListAttempts(_ context.Context, f attribution.AttemptFilter, limit int) ([]attribution.Attempt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []attribution.Attempt
	for i := len(s.attempts) - 1; i >= 0 && len(out) < limit && s.own(f.OrgID); i-- {
		a := s.attempts[i]
		if !a.CreatedAt.Before(f.From) && a.CreatedAt.Before(f.To) {
			out = append(out, a)
		}
	}
	return out, nil
}
