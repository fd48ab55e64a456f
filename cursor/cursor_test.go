package cursor_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/cursor"
)

// derive is how the callers derive their cursor keys: HMAC-SHA256 of the
// label under the server secret.
func derive(secret, label string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(label))
	return m.Sum(nil)
}

const (
	installs cursor.List = 1
	attempts cursor.List = 2
)

var (
	at = time.Date(2030, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	id = uuid.MustParse("01a20a61-dc24-7637-b517-9e983bf9ad60")
)

func testState() cursor.State {
	return cursor.State{
		List:    installs,
		Filters: cursor.FiltersOf(installs, "org", "-", "-", "-", "-"),
		From:    at.Add(-30 * 24 * time.Hour),
		To:      at.Add(time.Hour),
		After:   cursor.Position{Time: at, ID: id},
		Issued:  at,
	}
}

func testSigner() cursor.Signer {
	return cursor.NewSigner(derive("a server secret of thirty-two by", "hoplink list cursor v1"))
}

// The cursors below were issued by the codecs this package replaced
// (httpapi's list cursors and the audit service's), with the secret
// oldSecret; they must keep opening.
const (
	oldSecret = "an old server secret of 32 bytes"

	oldAttemptsCursor = "AQIwioAvfmSiJP3d1JyGSJ_lAAAAAHC1yCUoaXWAAAAAAHDdYzUoaXWAAAAAAHDdVSUoaXWAAaIKYdwkdje1F56YO_mtYAAAAABw3VVhKGl1gKiF7V-YG-q6Iz6Vp-0sAMwtxYldESCyVoO7Ta90O8dY"
	oldAuditCursor    = "AQAAAbjglJsuAaIKYdwkdje1F56YO_mtYMeMWV1SchvQrDk0lkwC2YY"
)

func TestOpenCursorsOfTheOldCodecs(t *testing.T) {
	org := uuid.MustParse("0190c1a2-0000-7000-8000-000000000001")
	t.Run("attempts list", func(t *testing.T) {
		s := cursor.NewSigner(derive(oldSecret, "hoplink list cursor v1"))
		filters := cursor.FiltersOf(attempts, org.String(), "none", "-", "1893553445678000000", "true")
		st, err := s.Open(oldAttemptsCursor, attempts, filters, at.Add(time.Hour))
		require.NoError(t, err)
		assert.Equal(t, cursor.State{List: attempts, Filters: filters, From: at.Add(-30 * 24 * time.Hour),
			To: at.Add(time.Hour), After: cursor.Position{Time: at, ID: id}, Issued: at.Add(time.Minute)}, st)
		assert.Equal(t, oldAttemptsCursor, s.Seal(st), "sealed byte for byte as before")
	})
	t.Run("audit log", func(t *testing.T) {
		s := cursor.NewSigner(derive(oldSecret, "hoplink audit cursor v1"))
		from := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		b := cursor.Binding{OrgID: org, From: &from}
		pos, err := s.OpenPosition(oldAuditCursor, b)
		require.NoError(t, err)
		assert.Equal(t, cursor.Position{Time: at, ID: id}, pos)
		assert.Equal(t, oldAuditCursor, s.SealPosition(pos, b), "sealed byte for byte as before")
	})
}

func TestStateRoundTrip(t *testing.T) {
	s := testSigner()
	st := testState()
	c := s.Seal(st)
	got, err := s.Open(c, installs, st.Filters, st.Issued)
	require.NoError(t, err)
	assert.Equal(t, st, got)
	_, err = s.Open(c, installs, st.Filters, st.Issued.Add(cursor.Lifetime))
	assert.NoError(t, err, "accepted for Lifetime")
	assert.NotContains(t, c, "=", "unpadded")
	assert.NotContains(t, c, "+")
	assert.NotContains(t, c, "/")
}

func TestStateRefusals(t *testing.T) {
	s := testSigner()
	st := testState()
	c := s.Seal(st)
	other := cursor.FiltersOf(installs, "org", "none", "-", "-", "-")
	open := func(s cursor.Signer, c string, list cursor.List, f cursor.Filters, now time.Time) error {
		_, err := s.Open(c, list, f, now)
		return err
	}
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"another list", open(s, c, attempts, st.Filters, st.Issued), cursor.ErrInvalid},
		{"other filters", open(s, c, installs, other, st.Issued), cursor.ErrInvalid},
		{"another key", open(cursor.NewSigner([]byte("another key")), c, installs, st.Filters, st.Issued), cursor.ErrInvalid},
		{"truncated", open(s, c[:len(c)-1], installs, st.Filters, st.Issued), cursor.ErrInvalid},
		{"extended", open(s, c+"A", installs, st.Filters, st.Issued), cursor.ErrInvalid},
		{"empty", open(s, "", installs, st.Filters, st.Issued), cursor.ErrInvalid},
		{"not base64", open(s, "!!!!", installs, st.Filters, st.Issued), cursor.ErrInvalid},
		{"older than Lifetime", open(s, c, installs, st.Filters, st.Issued.Add(cursor.Lifetime+time.Millisecond)), cursor.ErrExpired},
		{"issued in the future", open(s, c, installs, st.Filters, st.Issued.Add(-time.Minute-time.Millisecond)), cursor.ErrExpired},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.True(t, errors.Is(tc.err, tc.want), "got %v", tc.err)
		})
	}
	t.Run("every changed character", func(t *testing.T) {
		for i := range c {
			b := []byte(c)
			b[i] ^= 0x01
			assert.Error(t, open(s, string(b), installs, st.Filters, st.Issued), "character %d", i)
		}
	})
}

func TestFiltersOfSeparatesParts(t *testing.T) {
	assert.NotEqual(t, cursor.FiltersOf(installs, "ab", "c"), cursor.FiltersOf(installs, "a", "bc"))
	assert.NotEqual(t, cursor.FiltersOf(installs, "a"), cursor.FiltersOf(attempts, "a"))
	assert.Equal(t, cursor.FiltersOf(installs, "a", "b"), cursor.FiltersOf(installs, "a", "b"))
}

func TestPositionRoundTripAndRefusals(t *testing.T) {
	s := cursor.NewSigner(derive("a server secret of thirty-two by", "hoplink audit cursor v1"))
	org := uuid.New()
	from, to := at.Add(-time.Hour), at.Add(time.Hour)
	b := cursor.Binding{OrgID: org, From: &from, To: &to}
	pos := cursor.Position{Time: at.Add(123 * time.Microsecond), ID: id}
	c := s.SealPosition(pos, b)
	got, err := s.OpenPosition(c, b)
	require.NoError(t, err)
	assert.Equal(t, cursor.Position{Time: at, ID: id}, got, "milliseconds kept")

	for name, other := range map[string]cursor.Binding{
		"another organization": {OrgID: uuid.New(), From: &from, To: &to},
		"no from":              {OrgID: org, To: &to},
		"another to":           {OrgID: org, From: &from, To: &from},
	} {
		_, err := s.OpenPosition(c, other)
		assert.ErrorIs(t, err, cursor.ErrInvalid, name)
	}
	for _, bad := range []string{"", "!!!!", c[:len(c)-1], c + "A"} {
		_, err := s.OpenPosition(bad, b)
		assert.ErrorIs(t, err, cursor.ErrInvalid, bad)
	}
}

// FuzzOpen checks that opening any text never panics and accepts only what
// Seal made.
func FuzzOpen(f *testing.F) {
	s := testSigner()
	st := testState()
	f.Add(s.Seal(st))
	f.Add("")
	f.Add("AAAA")
	f.Fuzz(func(t *testing.T, c string) {
		got, err := s.Open(c, installs, st.Filters, st.Issued)
		if err != nil {
			return
		}
		if s.Seal(got) != c {
			t.Fatalf("accepted a cursor Seal did not make: %q", c)
		}
	})
}

// FuzzOpenPosition is FuzzOpen for Position cursors.
func FuzzOpenPosition(f *testing.F) {
	s := testSigner()
	b := cursor.Binding{OrgID: id}
	f.Add(s.SealPosition(cursor.Position{Time: at, ID: id}, b))
	f.Add("")
	f.Fuzz(func(t *testing.T, c string) {
		got, err := s.OpenPosition(c, b)
		if err != nil {
			return
		}
		if s.SealPosition(got, b) != c {
			t.Fatalf("accepted a cursor SealPosition did not make: %q", c)
		}
	})
}
