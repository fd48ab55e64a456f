package account

import (
	"context"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/identity"
)

// ChangePassword changes the password of the user signed in with token,
// after checking the current password (a wrong one is a VALIDATION_ERROR on
// "current_password" and counts as a failed sign-in) and the new one against
// the policy (VALIDATION_ERROR on "password"). Every session and pending
// sign-in of the user is revoked, and a new session is returned for the
// browser that asked, with the same two-factor standing as the old one.
func (s *Service) ChangePassword(ctx context.Context, token, current, next string, c Client) (*IssuedSession, error) {
	a, err := s.Authenticate(ctx, token)
	if err != nil {
		return nil, err
	}
	u, err := s.checkPassword(ctx, a.User.ID, current, "current_password")
	if err != nil {
		return nil, err
	}
	if err := s.setPassword(ctx, u, next); err != nil {
		return nil, err
	}
	c.Previous = ""
	return s.issue(ctx, u.ID, a.Session.TwoFactorPassed, c, s.now())
}

// SetPassword sets the password of the user with email, for operators
// recovering an account (hoplink user set-password): the policy applies and
// every session of the user is revoked. NOT_FOUND when there is no such user.
func (s *Service) SetPassword(ctx context.Context, email, password string) (*identity.User, error) {
	n, err := identity.NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	u, err := s.store.UserByEmail(ctx, n)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "user not found")
	}
	if err := s.setPassword(ctx, u, password); err != nil {
		return nil, err
	}
	s.reset(emailKey(u.Email), reauthKey(u.Email))
	return u, nil
}

func (s *Service) setPassword(ctx context.Context, u *identity.User, password string) error {
	if err := identity.CheckPassword(password, u.Email); err != nil {
		return err
	}
	hash, err := s.opts.HashPassword(password)
	if err != nil {
		return err
	}
	now := s.now()
	if err := s.store.UpdatePassword(ctx, u.ID, hash, now); err != nil {
		return errcode.NotFoundAs(err, "user not found")
	}
	u.PasswordHash, u.UpdatedAt = hash, now
	return nil
}
