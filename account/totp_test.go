package account_test

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
)

// rfcKey is RFC 6238 appendix B's SHA-1 seed.
var rfcKey = []byte("12345678901234567890")

func TestTOTPCodeMatchesRFC6238(t *testing.T) {
	t.Parallel()
	// Appendix B's SHA-1 vectors, last six of the eight digits.
	for unix, want := range map[int64]string{59: "287082", 1111111109: "081804", 1111111111: "050471", 1234567890: "005924", 2000000000: "279037"} {
		assert.Equal(t, want, account.TOTPCode(rfcKey, account.TOTPStep(time.Unix(unix, 0))), "t=%d", unix)
	}
}

func TestVerifyTOTP(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 15, 0, time.UTC)
	step := account.TOTPStep(now)
	code := func(s int64) string { return account.TOTPCode(rfcKey, s) }

	t.Run("the current step is accepted", func(t *testing.T) {
		got, ok := account.VerifyTOTP(rfcKey, code(step), now, 0)
		assert.True(t, ok)
		assert.Equal(t, step, got)
	})
	t.Run("one step either side is accepted", func(t *testing.T) {
		for _, s := range []int64{step - 1, step + 1} {
			got, ok := account.VerifyTOTP(rfcKey, code(s), now, 0)
			assert.True(t, ok)
			assert.Equal(t, s, got)
		}
	})
	t.Run("two steps away is refused", func(t *testing.T) {
		for _, s := range []int64{step - 2, step + 2} {
			_, ok := account.VerifyTOTP(rfcKey, code(s), now, 0)
			assert.False(t, ok)
		}
	})
	t.Run("replaying the last accepted step is refused", func(t *testing.T) {
		_, ok := account.VerifyTOTP(rfcKey, code(step), now, step)
		assert.False(t, ok)
	})
	t.Run("an earlier step than the last accepted is refused", func(t *testing.T) {
		_, ok := account.VerifyTOTP(rfcKey, code(step-1), now, step)
		assert.False(t, ok)
	})
	t.Run("a later code after an accepted one is accepted", func(t *testing.T) {
		later := now.Add(account.TOTPPeriod)
		got, ok := account.VerifyTOTP(rfcKey, code(step+1), later, step)
		assert.True(t, ok)
		assert.Equal(t, step+1, got)
	})
	t.Run("spaces are ignored, other shapes refused", func(t *testing.T) {
		c := code(step)
		_, ok := account.VerifyTOTP(rfcKey, " "+c[:3]+" "+c[3:]+" ", now, 0)
		assert.True(t, ok)
		for _, bad := range []string{"", "12345", "1234567", "abcdef"} {
			_, ok := account.VerifyTOTP(rfcKey, bad, now, 0)
			assert.False(t, ok, bad)
		}
	})
}

func TestNewTOTPSecret(t *testing.T) {
	t.Parallel()
	s, err := account.NewTOTPSecret(bytes.NewReader(bytes.Repeat([]byte{0xff}, 20)))
	require.NoError(t, err)
	assert.Len(t, s, 32, "160 bits in base32 without padding")
	assert.Equal(t, strings.Repeat("7", 32), s)
	_, err = account.NewTOTPSecret(bytes.NewReader(nil))
	assert.Error(t, err, "a failing random source")
}

func TestTOTPURI(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "otpauth://totp/Hoplink:ann@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Hoplink",
		account.TOTPURI("ann@example.com", "JBSWY3DPEHPK3PXP"))

	u, err := url.Parse(account.TOTPURI("a?b&issuer=Evil#x@example.com", "ABC"))
	require.NoError(t, err)
	assert.Equal(t, "/Hoplink:a?b&issuer=Evil#x@example.com", u.Path, "the email stays in the label")
	assert.Equal(t, url.Values{"secret": {"ABC"}, "issuer": {"Hoplink"}}, u.Query(), "no parameter injected")
}

func FuzzTOTPURI(f *testing.F) {
	f.Add("ann@example.com", "JBSWY3DPEHPK3PXP")
	f.Add("a?b&c=d#e%zz", "")
	f.Fuzz(func(t *testing.T, email, secret string) {
		u, err := url.Parse(account.TOTPURI(email, secret))
		if err != nil {
			t.Fatalf("unparsable URI: %v", err)
		}
		if u.Scheme != "otpauth" || u.Host != "totp" || u.Query().Get("issuer") != "Hoplink" {
			t.Fatalf("bad URI %q", u)
		}
		if len(u.Query()["issuer"]) != 1 || len(u.Query()["secret"]) != 1 {
			t.Fatalf("parameter injected: %q", u)
		}
	})
}
