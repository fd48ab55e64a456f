package oauth

import (
	"maps"
	"time"

	"github.com/google/uuid"
	"github.com/ory/fosite"
)

// Session is what fosite keeps with every code and token: the user who
// consented, the connection and its organization choice, and the expiry of
// each token. It is stored as JSON.
type Session struct {
	// UserID is the consenting user.
	UserID uuid.UUID `json:"user_id"`
	// ConnectionID is the connection (grant) the token belongs to.
	ConnectionID uuid.UUID `json:"connection_id"`
	// OrgID is the organization chosen at consent, nil for all of the
	// user's organizations.
	OrgID     *uuid.UUID                     `json:"org_id,omitempty"`
	ExpiresAt map[fosite.TokenType]time.Time `json:"expires_at,omitempty"`
}

var _ fosite.Session = (*Session)(nil)

// SetExpiresAt implements fosite.Session.
func (s *Session) SetExpiresAt(key fosite.TokenType, exp time.Time) {
	if s.ExpiresAt == nil {
		s.ExpiresAt = map[fosite.TokenType]time.Time{}
	}
	s.ExpiresAt[key] = exp
}

// GetExpiresAt implements fosite.Session.
func (s *Session) GetExpiresAt(key fosite.TokenType) time.Time {
	return s.ExpiresAt[key]
}

// GetUsername implements fosite.Session; there is no user name.
func (s *Session) GetUsername() string { return "" }

// GetSubject implements fosite.Session: the user id.
func (s *Session) GetSubject() string { return s.UserID.String() }

// Clone implements fosite.Session.
func (s *Session) Clone() fosite.Session {
	if s == nil {
		return nil
	}
	c := *s
	c.ExpiresAt = maps.Clone(s.ExpiresAt)
	if s.OrgID != nil {
		o := *s.OrgID
		c.OrgID = &o
	}
	return &c
}
