package account

import (
	"time"

	"github.com/hoplink/hoplink/errcode"
)

// Default session limits, used for organizations that have not set their own
// and for users who belong to no organization.
const (
	DefaultSessionLifetime = 30 * 24 * time.Hour
	DefaultIdleTimeout     = 7 * 24 * time.Hour
)

// Bounds of an organization's security policy.
const (
	MinSessionLifetime = time.Hour
	MaxSessionLifetime = 90 * 24 * time.Hour
	MinIdleTimeout     = 5 * time.Minute
	MaxIdleTimeout     = 30 * 24 * time.Hour
)

// Policy is an organization's security policy for dashboard sign-in (SPEC.md,
// Authentication rule 11): whether members must use two-factor
// authentication, how long a session lives at most, and how long it may sit
// unused.
type Policy struct {
	RequireTwoFactor bool
	// SessionLifetime is the absolute lifetime of a session from sign-in.
	SessionLifetime time.Duration
	// IdleTimeout ends a session not used for this long.
	IdleTimeout time.Duration
}

// DefaultPolicy is the policy of an organization that has not set one:
// two-factor optional, sessions of 30 days, idle timeout of 7 days.
func DefaultPolicy() Policy {
	return Policy{SessionLifetime: DefaultSessionLifetime, IdleTimeout: DefaultIdleTimeout}
}

// Validate checks p against the bounds: a lifetime of 1 hour to 90 days in
// whole hours, an idle timeout of 5 minutes to 30 days in whole minutes and
// no longer than the lifetime. Field names are those of the API
// (session_lifetime_hours, idle_timeout_minutes).
func (p Policy) Validate() error {
	var fields []errcode.FieldError
	if p.SessionLifetime < MinSessionLifetime || p.SessionLifetime > MaxSessionLifetime || p.SessionLifetime%time.Hour != 0 {
		fields = append(fields, errcode.FieldError{Field: "session_lifetime_hours", Message: "must be a whole number of hours from 1 to 2160"})
	}
	if p.IdleTimeout < MinIdleTimeout || p.IdleTimeout > MaxIdleTimeout || p.IdleTimeout%time.Minute != 0 {
		fields = append(fields, errcode.FieldError{Field: "idle_timeout_minutes", Message: "must be a whole number of minutes from 5 to 43200"})
	} else if p.IdleTimeout > p.SessionLifetime && len(fields) == 0 {
		fields = append(fields, errcode.FieldError{Field: "idle_timeout_minutes", Message: "must not be longer than the session lifetime"})
	}
	if len(fields) > 0 {
		return errcode.Validation(fields...)
	}
	return nil
}

// Strictest combines the policies of every organization a user belongs to:
// two-factor is required if any requires it, and the lifetime and idle
// timeout are the shortest. With no policies it is DefaultPolicy. A zero
// duration in a policy means the default.
func Strictest(policies ...Policy) Policy {
	out := DefaultPolicy()
	for _, p := range policies {
		out.RequireTwoFactor = out.RequireTwoFactor || p.RequireTwoFactor
		if p.SessionLifetime > 0 && p.SessionLifetime < out.SessionLifetime {
			out.SessionLifetime = p.SessionLifetime
		}
		if p.IdleTimeout > 0 && p.IdleTimeout < out.IdleTimeout {
			out.IdleTimeout = p.IdleTimeout
		}
	}
	return out
}
