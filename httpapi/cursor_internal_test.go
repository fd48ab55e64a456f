package httpapi

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
)

func testCursorState() cursorState {
	at := time.Date(2030, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	return cursorState{
		list:    listInstalls,
		filters: filterDigest(listInstalls, "org", "-", "-", "-", "-"),
		from:    at.Add(-30 * 24 * time.Hour),
		to:      at.Add(time.Hour),
		at:      at,
		id:      uuid.MustParse("01a20a61-dc24-7637-b517-9e983bf9ad60"),
		issued:  at,
	}
}

func TestCursorRoundTrip(t *testing.T) {
	s := newCursorSigner([]byte("a server secret of thirty-two by"))
	st := testCursorState()
	c := s.encode(st)
	got, err := s.decode(c, listInstalls, st.filters, st.issued)
	require.NoError(t, err)
	assert.Equal(t, st, got)
	_, err = s.decode(c, listInstalls, st.filters, st.issued.Add(CursorLifetime))
	assert.NoError(t, err, "accepted for CursorLifetime")
	assert.NotContains(t, c, "=", "unpadded")
	assert.NotContains(t, c, "+")
	assert.NotContains(t, c, "/")
}

func TestCursorRefusals(t *testing.T) {
	s := newCursorSigner([]byte("a server secret of thirty-two by"))
	st := testCursorState()
	c := s.encode(st)
	other := filterDigest(listInstalls, "org", "none", "-", "-", "-")
	cases := map[string]func() error{
		"another list":  func() error { _, err := s.decode(c, listAttempts, st.filters, st.issued); return err },
		"other filters": func() error { _, err := s.decode(c, listInstalls, other, st.issued); return err },
		"another secret": func() error {
			_, err := newCursorSigner([]byte("another secret")).decode(c, listInstalls, st.filters, st.issued)
			return err
		},
		"truncated":  func() error { _, err := s.decode(c[:len(c)-1], listInstalls, st.filters, st.issued); return err },
		"extended":   func() error { _, err := s.decode(c+"A", listInstalls, st.filters, st.issued); return err },
		"empty":      func() error { _, err := s.decode("", listInstalls, st.filters, st.issued); return err },
		"not base64": func() error { _, err := s.decode("!!!!", listInstalls, st.filters, st.issued); return err },
		"older than CursorLifetime": func() error {
			_, err := s.decode(c, listInstalls, st.filters, st.issued.Add(CursorLifetime+time.Millisecond))
			return err
		},
	}
	for name, run := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, errcode.CursorInvalid, errcode.CodeOf(run()))
		})
	}
	t.Run("every changed character", func(t *testing.T) {
		for i := range c {
			b := []byte(c)
			b[i] ^= 0x01
			_, err := s.decode(string(b), listInstalls, st.filters, st.issued)
			assert.Error(t, err, "character %d", i)
		}
	})
}

// FuzzCursorDecode checks that decoding any text never panics and accepts
// only what encode made.
func FuzzCursorDecode(f *testing.F) {
	s := newCursorSigner([]byte("a server secret of thirty-two by"))
	st := testCursorState()
	f.Add(s.encode(st))
	f.Add("")
	f.Add("AAAA")
	f.Fuzz(func(t *testing.T, c string) {
		got, err := s.decode(c, listInstalls, st.filters, st.issued)
		if err != nil {
			return
		}
		if s.encode(got) != c {
			t.Fatalf("accepted a cursor encode did not make: %q", c)
		}
	})
}

func TestFilterDigestSeparatesParts(t *testing.T) {
	assert.NotEqual(t, filterDigest(listInstalls, "ab", "c"), filterDigest(listInstalls, "a", "bc"))
	assert.NotEqual(t, filterDigest(listInstalls, "a"), filterDigest(listAttempts, "a"))
	assert.Equal(t, filterDigest(listInstalls, "a", "b"), filterDigest(listInstalls, "a", "b"))
}
