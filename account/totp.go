package account

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // RFC 6238 with SHA-1 is what authenticator apps implement.
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
)

// TOTP parameters: RFC 6238 with the defaults every authenticator app
// implements (SHA-1, six digits, 30-second steps).
const (
	TOTPPeriod     = 30 * time.Second
	TOTPDigits     = 6
	TOTPSecretSize = 20 // bytes: 160 bits, RFC 4226 section 4's recommendation
	// TOTPSkew is how many steps either side of now a code may come from, to
	// allow for clock drift and typing time.
	TOTPSkew = 1
	// TOTPIssuer names Hoplink in authenticator apps.
	TOTPIssuer = "Hoplink"
)

// b32 is RFC 4648 base32 without padding, the form of otpauth secrets.
var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewTOTPSecret reads TOTPSecretSize bytes from random and returns them
// base32-encoded without padding, as authenticator apps expect.
func NewTOTPSecret(random io.Reader) (string, error) {
	b := make([]byte, TOTPSecretSize)
	if _, err := io.ReadFull(random, b); err != nil {
		return "", fmt.Errorf("account: totp secret: %w", err)
	}
	return b32.EncodeToString(b), nil
}

// decodeTOTPSecret reads a base32 secret, ignoring case, spaces and padding.
func decodeTOTPSecret(secret string) ([]byte, error) {
	s := strings.ToUpper(strings.NewReplacer(" ", "", "=", "").Replace(secret))
	b, err := b32.DecodeString(s)
	if err != nil || len(b) == 0 {
		return nil, fmt.Errorf("account: unreadable totp secret")
	}
	return b, nil
}

// TOTPURI returns the otpauth URI that authenticator apps scan
// (otpauth://totp/Hoplink:<email>?secret=<secret>&issuer=Hoplink). The label
// is path-escaped and the query encoded, so no email can inject parameters.
func TOTPURI(email, secret string) string {
	u := url.URL{
		Scheme: "otpauth",
		Host:   "totp",
		Path:   "/" + TOTPIssuer + ":" + email,
	}
	// Written by hand because url.Values.Encode sorts keys, and secret
	// first is the order of the Key URI Format's examples.
	u.RawQuery = "secret=" + url.QueryEscape(secret) + "&issuer=" + url.QueryEscape(TOTPIssuer)
	return u.String()
}

// TOTPStep returns the RFC 6238 time step of t: whole periods since the Unix epoch.
func TOTPStep(t time.Time) int64 {
	return t.Unix() / int64(TOTPPeriod/time.Second)
}

// TOTPCode returns the six-digit code of key (the raw secret bytes) at step
// (RFC 4226 section 5.3, dynamic truncation).
func TOTPCode(key []byte, step int64) string {
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], uint64(step))
	mac := hmac.New(sha1.New, key)
	mac.Write(msg[:])
	sum := mac.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	v := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	return fmt.Sprintf("%06d", v%1_000_000)
}

// VerifyTOTP checks code against key at now. It accepts a code from
// TOTPSkew steps either side of now whose step is after lastStep (the step
// of the last code accepted for this secret; 0 when none), so that a code is
// never accepted twice (RFC 6238 section 5.2). It returns the step that
// matched, which the caller must record as the new lastStep. Every candidate
// step is compared in constant time.
func VerifyTOTP(key []byte, code string, now time.Time, lastStep int64) (step int64, ok bool) {
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	if len(code) != TOTPDigits {
		return 0, false
	}
	cur := TOTPStep(now)
	for s := cur - TOTPSkew; s <= cur+TOTPSkew; s++ {
		match := subtle.ConstantTimeCompare([]byte(TOTPCode(key, s)), []byte(code)) == 1
		if match && s > lastStep && !ok {
			step, ok = s, true
		}
	}
	return step, ok
}
