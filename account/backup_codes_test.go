package account_test

import (
	"crypto/rand"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
)

func TestNewBackupCodes(t *testing.T) {
	t.Parallel()
	codes, err := account.NewBackupCodes(rand.Reader)
	require.NoError(t, err)
	require.Len(t, codes, account.BackupCodeCount)
	shape := regexp.MustCompile(`^[2-9a-hjkmnp-z]{5}-[2-9a-hjkmnp-z]{5}$`)
	seen := map[string]bool{}
	for _, c := range codes {
		assert.Regexp(t, shape, c, "unambiguous alphabet, xxxxx-xxxxx")
		assert.False(t, seen[c], "distinct")
		seen[c] = true
	}
}

func TestNormalizeBackupCode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"abcde-fghjk":     "abcdefghjk",
		"ABCDE-FGHJK":     "abcdefghjk",
		" abcde fghjk ":   "abcdefghjk",
		"ab-cd-ef-gh-jk":  "abcdefghjk",
		"abcdefghjk":      "abcdefghjk",
		"\tabcde-\tfghjk": "abcdefghjk",
	} {
		got, ok := account.NormalizeBackupCode(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "abcde", "abcde-fghjkm", "abcde-fghj1", "abcde-fghjo", "abcdé-fghjk", "123456"} {
		_, ok := account.NormalizeBackupCode(bad)
		assert.False(t, ok, bad)
	}
}

func TestHashBackupCodeIgnoresFormatting(t *testing.T) {
	t.Parallel()
	h := account.HashBackupCode("abcde-fghjk")
	assert.Len(t, h, 64)
	assert.Equal(t, h, account.HashBackupCode(" ABCDE FGHJK "))
	assert.Empty(t, account.HashBackupCode("not a code"))
}

func FuzzNormalizeBackupCode(f *testing.F) {
	f.Add("abcde-fghjk")
	f.Add("  A-B-C ")
	f.Add("\xff\xfe")
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := account.NormalizeBackupCode(s)
		if !ok {
			return
		}
		if len(n) != account.BackupCodeLength {
			t.Fatalf("normalized %q to %q", s, n)
		}
		again, ok := account.NormalizeBackupCode(n)
		if !ok || again != n {
			t.Fatalf("not idempotent: %q -> %q", n, again)
		}
	})
}
