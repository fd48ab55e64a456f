package account

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/identity"
)

// TOTPEnrolment is a started enrolment: the secret to type into an
// authenticator app and the otpauth URI to show as a QR code.
type TOTPEnrolment struct {
	Secret string
	URI    string
}

var errTOTPEnabled = errcode.New(errcode.Forbidden, "two-factor authentication is already enabled; disable it first")

// StartTOTP begins two-factor enrolment for userID with a fresh secret,
// replacing an enrolment that was never confirmed. The secret is stored
// encrypted and takes effect once ConfirmTOTP accepts a code from it.
// FORBIDDEN when two-factor authentication is already enabled.
func (s *Service) StartTOTP(ctx context.Context, userID uuid.UUID) (*TOTPEnrolment, error) {
	u, err := s.user(ctx, userID)
	if err != nil {
		return nil, err
	}
	secret, err := NewTOTPSecret(s.opts.Random)
	if err != nil {
		return nil, err
	}
	raw, err := decodeTOTPSecret(secret)
	if err != nil {
		return nil, err
	}
	sealed, err := s.box.seal(s.opts.Random, raw, userID[:])
	if err != nil {
		return nil, err
	}
	now := s.now()
	err = s.store.StartTOTP(ctx, &TOTP{UserID: userID, SealedSecret: sealed, CreatedAt: now, UpdatedAt: now})
	if errors.Is(err, errcode.ErrConflict) {
		return nil, errTOTPEnabled
	}
	if err != nil {
		return nil, err
	}
	return &TOTPEnrolment{Secret: secret, URI: TOTPURI(u.Email, secret)}, nil
}

// ConfirmTOTP enables two-factor authentication for userID with one valid
// code from the secret StartTOTP gave, and returns BackupCodeCount backup
// codes, shown to the user once and stored only hashed. A wrong code is a
// VALIDATION_ERROR on the field "otp"; FORBIDDEN when already enabled;
// NOT_FOUND when no enrolment was started.
func (s *Service) ConfirmTOTP(ctx context.Context, userID uuid.UUID, code string) ([]string, error) {
	t, err := s.store.TOTP(ctx, userID)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "no two-factor enrolment was started")
	}
	if t.EnabledAt != nil {
		return nil, errTOTPEnabled
	}
	key, err := s.box.open(t.SealedSecret, userID[:])
	if err != nil {
		return nil, err
	}
	now := s.now()
	step, ok := VerifyTOTP(key, code, now, t.LastStep)
	if !ok {
		return nil, errcode.Field("otp", "the code is incorrect; enter the code your app shows now")
	}
	codes, hashes, err := s.newBackupCodes()
	if err != nil {
		return nil, err
	}
	err = s.store.EnableTOTP(ctx, userID, step, now, hashes)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "no two-factor enrolment was started")
	}
	return codes, nil
}

func (s *Service) newBackupCodes() (codes, hashes []string, err error) {
	codes, err = NewBackupCodes(s.opts.Random)
	if err != nil {
		return nil, nil, err
	}
	hashes = make([]string, len(codes))
	for i, c := range codes {
		hashes[i] = HashBackupCode(c)
	}
	return codes, hashes, nil
}

// RegenerateBackupCodes replaces userID's backup codes with fresh ones,
// returned once, after checking the password. FORBIDDEN when two-factor
// authentication is not enabled.
func (s *Service) RegenerateBackupCodes(ctx context.Context, userID uuid.UUID, password string) ([]string, error) {
	u, err := s.checkPassword(ctx, userID, password, "password")
	if err != nil {
		return nil, err
	}
	t, err := s.store.TOTP(ctx, u.ID)
	if errors.Is(err, errcode.ErrNotFound) || (err == nil && t.EnabledAt == nil) {
		return nil, errcode.New(errcode.Forbidden, "two-factor authentication is not enabled")
	}
	if err != nil {
		return nil, err
	}
	codes, hashes, err := s.newBackupCodes()
	if err != nil {
		return nil, err
	}
	if err := s.store.ReplaceBackupCodes(ctx, u.ID, hashes, s.now()); err != nil {
		return nil, err
	}
	return codes, nil
}

// DisableTOTP turns two-factor authentication off for userID after checking
// the password and a code (TOTP or backup); its secret and backup codes are
// deleted. Wrong answers count as failed sign-ins of the account. When an
// organization requires two-factor authentication the user is then asked to
// enrol again (Authenticated.EnrolmentRequired).
func (s *Service) DisableTOTP(ctx context.Context, userID uuid.UUID, password, code string) error {
	u, err := s.checkPassword(ctx, userID, password, "password")
	if err != nil {
		return err
	}
	now := s.now()
	_, ok, err := s.checkSecondFactor(ctx, u.ID, code, now)
	if err != nil {
		return err
	}
	if !ok {
		s.fail(now, reauthKey(u.Email))
		return errcode.Field("otp", "the code is incorrect or was used already")
	}
	err = s.store.DeleteTOTP(ctx, u.ID)
	if errors.Is(err, errcode.ErrNotFound) {
		return errcode.New(errcode.Forbidden, "two-factor authentication is not enabled")
	}
	return err
}

func (s *Service) user(ctx context.Context, userID uuid.UUID) (*identity.User, error) {
	u, err := s.store.UserByID(ctx, userID)
	return u, errcode.NotFoundAs(err, "user not found")
}

// checkPassword verifies userID's password for a sensitive change, under
// the account's lockout; a wrong password is a VALIDATION_ERROR on field.
func (s *Service) checkPassword(ctx context.Context, userID uuid.UUID, password, field string) (*identity.User, error) {
	u, err := s.user(ctx, userID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	key := reauthKey(u.Email)
	if err := s.wait(now, key); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(password) > identity.MaxPasswordLength {
		password = ""
	}
	ok, err := s.verifyPassword(ctx, u.PasswordHash, password)
	if err != nil {
		return nil, err
	}
	if !ok {
		s.fail(now, key)
		return nil, errcode.Field(field, "the password is incorrect")
	}
	return u, nil
}

// Enrolment returns userID's two-factor enrolment that waits for its
// confirming code, so that the enrolment page shows the same secret however
// often it is loaded, or starts one (StartTOTP) when none waits. FORBIDDEN
// when two-factor authentication is already enabled.
func (s *Service) Enrolment(ctx context.Context, userID uuid.UUID) (*TOTPEnrolment, error) {
	t, err := s.store.TOTP(ctx, userID)
	if errors.Is(err, errcode.ErrNotFound) {
		return s.StartTOTP(ctx, userID)
	}
	if err != nil {
		return nil, err
	}
	if t.EnabledAt != nil {
		return nil, errTOTPEnabled
	}
	u, err := s.user(ctx, userID)
	if err != nil {
		return nil, err
	}
	key, err := s.box.open(t.SealedSecret, userID[:])
	if err != nil {
		// A secret sealed under another server secret: start afresh.
		return s.StartTOTP(ctx, userID)
	}
	secret := b32.EncodeToString(key)
	return &TOTPEnrolment{Secret: secret, URI: TOTPURI(u.Email, secret)}, nil
}
