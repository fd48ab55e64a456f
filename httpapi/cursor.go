package httpapi

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/secretkey"
)

// listKind names a cursor list; a cursor of one list is refused by the other.
type listKind byte

const (
	listInstalls listKind = 1
	listAttempts listKind = 2
)

// cursorVersion is the first byte of every cursor, so that the format can
// change without old cursors being misread.
const cursorVersion = 1

// CursorLifetime is how long a list cursor is accepted after the page that
// issued it. A cursor keeps the window checked against the plan's look-back
// when its first page was read; the lifetime bounds how far that window may
// fall behind the look-back while paging.
const CursorLifetime = 24 * time.Hour

// cursorState is what a cursor carries: the list, the digest of the filters
// it was issued for, the window of the first page (so that every page reads
// the same window even though `to` defaults to "now"), the position after
// which the next page starts, and when it was issued.
type cursorState struct {
	list     listKind
	filters  [16]byte
	from, to time.Time
	at       time.Time
	id       uuid.UUID
	issued   time.Time
}

const (
	cursorTime    = 8 + 4 // Unix seconds and nanoseconds, for any year
	cursorPayload = 1 + 1 + 16 + 3*cursorTime + 16 + cursorTime
	cursorMAC     = sha256.Size
)

// cursorSigner makes and checks the opaque cursors of the installs and
// attempts lists: the state above, followed by an HMAC-SHA256 of it under a
// key derived from the server secret, in unpadded base64url. Nothing in a
// cursor is secret (times and a record id of the caller's own
// organization); the MAC makes it unforgeable, so a position or window the
// server did not issue is refused.
type cursorSigner struct {
	key []byte
}

// newCursorSigner derives the cursor key from secret; an empty secret draws
// a random key, and cursors then last as long as the process.
func newCursorSigner(secret []byte) cursorSigner {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		_, _ = rand.Read(secret)
	}
	return cursorSigner{key: secretkey.Derive(secret, "hoplink list cursor v1")}
}

func (s cursorSigner) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(payload)
	return m.Sum(nil)
}

// encode returns the cursor of st.
func (s cursorSigner) encode(st cursorState) string {
	b := make([]byte, 0, cursorPayload+cursorMAC)
	b = append(b, cursorVersion, byte(st.list))
	b = append(b, st.filters[:]...)
	b = appendTime(b, st.from)
	b = appendTime(b, st.to)
	b = appendTime(b, st.at)
	b = append(b, st.id[:]...)
	b = appendTime(b, st.issued)
	b = append(b, s.mac(b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

var (
	errCursorInvalid = errcode.New(errcode.CursorInvalid,
		"cursor is not a next_cursor of this list with these filters")
	errCursorExpired = errcode.New(errcode.CursorInvalid,
		"cursor has expired; read the list again from its first page")
)

// decode checks cursor and returns its state when it is one this server
// issued for list and for the filters whose digest is filters, at most
// CursorLifetime before now; anything else is 400 CURSOR_INVALID.
func (s cursorSigner) decode(cursor string, list listKind, filters [16]byte, now time.Time) (cursorState, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) != cursorPayload+cursorMAC {
		return cursorState{}, errCursorInvalid
	}
	payload, sum := b[:cursorPayload], b[cursorPayload:]
	if !hmac.Equal(sum, s.mac(payload)) {
		return cursorState{}, errCursorInvalid
	}
	if payload[0] != cursorVersion || listKind(payload[1]) != list {
		return cursorState{}, errCursorInvalid
	}
	var st cursorState
	st.list = list
	copy(st.filters[:], payload[2:18])
	if !hmac.Equal(st.filters[:], filters[:]) {
		return cursorState{}, errCursorInvalid
	}
	rest := payload[18:]
	st.from, rest = readTime(rest)
	st.to, rest = readTime(rest)
	st.at, rest = readTime(rest)
	copy(st.id[:], rest[:16])
	st.issued, _ = readTime(rest[16:])
	if now.Sub(st.issued) > CursorLifetime || st.issued.After(now.Add(time.Minute)) {
		return cursorState{}, errCursorExpired
	}
	return st, nil
}

// filterDigest returns the digest a cursor is bound to: the list and each
// filter as parsed (an absent one apart from every value), so that a
// cursor sent with other filters is refused.
func filterDigest(list listKind, parts ...string) [16]byte {
	h := sha256.New()
	h.Write([]byte{byte(list)})
	for _, p := range parts {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	var out [16]byte
	copy(out[:], h.Sum(nil))
	return out
}

// appendTime appends t as Unix seconds and nanoseconds, which, unlike Unix
// nanoseconds, cover every year a query may name.
func appendTime(b []byte, t time.Time) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(t.Unix()))
	return binary.BigEndian.AppendUint32(b, uint32(t.Nanosecond()))
}

// readTime reads a time appendTime wrote from the start of b and returns
// the rest of b.
func readTime(b []byte) (time.Time, []byte) {
	sec := int64(binary.BigEndian.Uint64(b))
	nsec := int64(binary.BigEndian.Uint32(b[8:]))
	return time.Unix(sec, nsec).UTC(), b[cursorTime:]
}
