package linking_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
)

// bytesFor returns the random bytes that make GenerateSlug produce slug.
func bytesFor(slug string) []byte {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, len(slug))
	for i := range slug {
		b[i] = byte(strings.IndexByte(alphabet, slug[i]))
	}
	return b
}

func TestGenerateSlug(t *testing.T) {
	tests := []struct {
		name   string
		random []byte
		want   string
	}{
		{"seven characters from [a-z0-9]", bytesFor("k3x9q2a"), "k3x9q2a"},
		{"byte value modulo 36 picks the character", []byte{36, 37, 71, 72, 215, 216, 251}, "ab9a9a9"},
		{"bytes 252 to 255 are skipped so no character is favoured", append([]byte{252, 253, 254, 255}, bytesFor("abcdefg")...), "abcdefg"},
		{"a skipped byte is replaced by the next one", append(bytesFor("abc"), append([]byte{255}, bytesFor("defgh")...)...), "abcdefg"},
		{"never a reserved slug: a drawn reserved slug is drawn again", append(bytesFor("billing"), bytesFor("promo12")...), "promo12"},
		{"all digits are allowed", bytesFor("1234567"), "1234567"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := linking.GenerateSlug(bytes.NewReader(tt.random))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestGenerateSlugIsAValidSlug(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 2000; i++ {
		s, err := linking.GenerateSlug(rand.Reader)
		require.NoError(t, err)
		assert.Len(t, s, linking.GeneratedSlugLength)
		assert.NoError(t, linking.ValidateSlug(s, true), s)
		assert.NotContains(t, s, "-")
		seen[s] = true
	}
	assert.Greater(t, len(seen), 1990, "2000 draws from 36^7 slugs should hardly repeat")
}

func TestGenerateSlugUsesEveryCharacterEqually(t *testing.T) {
	// Each byte 0..251 once: each of the 36 characters appears exactly 7 times.
	var src []byte
	for b := 0; b < 252; b++ {
		src = append(src, byte(b))
	}
	src = append(src, 255, 255, 255, 255) // skipped
	counts := map[rune]int{}
	r := bytes.NewReader(src)
	for i := 0; i < 36; i++ {
		s, err := linking.GenerateSlug(r)
		require.NoError(t, err)
		for _, c := range s {
			counts[c]++
		}
	}
	require.Len(t, counts, 36)
	for c, n := range counts {
		assert.Equal(t, 7, n, "character %q", c)
	}
}

func TestGenerateSlugErrors(t *testing.T) {
	t.Run("nil source of randomness", func(t *testing.T) {
		_, err := linking.GenerateSlug(nil)
		assert.ErrorContains(t, err, "source of randomness")
	})
	t.Run("short source", func(t *testing.T) {
		_, err := linking.GenerateSlug(bytes.NewReader([]byte{1, 2, 3}))
		assert.ErrorContains(t, err, "reading randomness")
	})
	t.Run("failing source", func(t *testing.T) {
		boom := errors.New("boom")
		_, err := linking.GenerateSlug(iotest.ErrReader(boom))
		assert.ErrorIs(t, err, boom)
	})
	t.Run("a source stuck on a reserved slug gives up", func(t *testing.T) {
		_, err := linking.GenerateSlug(bytes.NewReader(bytes.Repeat(bytesFor("billing"), 100)))
		assert.ErrorContains(t, err, "reserved")
	})
}

func TestGenerateUniqueSlug(t *testing.T) {
	takenSet := func(slugs ...string) func(string) (bool, error) {
		return func(s string) (bool, error) {
			for _, x := range slugs {
				if s == x {
					return true, nil
				}
			}
			return false, nil
		}
	}
	src := func(slugs ...string) *bytes.Reader {
		var b []byte
		for _, s := range slugs {
			b = append(b, bytesFor(s)...)
		}
		return bytes.NewReader(b)
	}

	t.Run("domain rule 8: a free slug is returned at once", func(t *testing.T) {
		got, err := linking.GenerateUniqueSlug(src("aaaaaaa"), takenSet(), 5)
		require.NoError(t, err)
		assert.Equal(t, "aaaaaaa", got)
	})
	t.Run("domain rule 8: a taken slug is drawn again", func(t *testing.T) {
		got, err := linking.GenerateUniqueSlug(src("aaaaaaa", "bbbbbbb", "ccccccc"), takenSet("aaaaaaa", "bbbbbbb"), 5)
		require.NoError(t, err)
		assert.Equal(t, "ccccccc", got)
	})
	t.Run("every attempt taken is ErrNoFreeSlug, an internal error", func(t *testing.T) {
		_, err := linking.GenerateUniqueSlug(src("aaaaaaa", "bbbbbbb"), takenSet("aaaaaaa", "bbbbbbb"), 2)
		assert.ErrorIs(t, err, linking.ErrNoFreeSlug)
		assert.Equal(t, errcode.InternalError, errcode.CodeOf(err))
	})
	t.Run("attempts below one mean the default", func(t *testing.T) {
		calls := 0
		_, err := linking.GenerateUniqueSlug(rand.Reader, func(string) (bool, error) { calls++; return true, nil }, 0)
		assert.ErrorIs(t, err, linking.ErrNoFreeSlug)
		assert.Equal(t, linking.DefaultSlugAttempts, calls)
	})
	t.Run("an unreachable database stays SERVICE_UNAVAILABLE", func(t *testing.T) {
		_, err := linking.GenerateUniqueSlug(rand.Reader, func(string) (bool, error) { return false, errcode.ErrUnavailable }, 3)
		assert.ErrorIs(t, err, errcode.ErrUnavailable)
		assert.Equal(t, errcode.ServiceUnavailable, errcode.CodeOf(err))
	})
	t.Run("randomness failing is returned", func(t *testing.T) {
		_, err := linking.GenerateUniqueSlug(bytes.NewReader(nil), takenSet(), 3)
		assert.ErrorContains(t, err, "reading randomness")
	})
	t.Run("nil taken function", func(t *testing.T) {
		_, err := linking.GenerateUniqueSlug(rand.Reader, nil, 3)
		assert.Error(t, err)
	})
}
