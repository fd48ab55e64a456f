package cursor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"time"

	"github.com/google/uuid"
)

// Errors of Open and OpenPosition. Callers turn them into their own 400
// CURSOR_INVALID answer.
var (
	// ErrInvalid: the text is not a cursor this key signed for the list,
	// organization and filters asked for.
	ErrInvalid = errors.New("cursor: not a cursor of this list with these filters")
	// ErrExpired: a State cursor older than Lifetime (or issued more than
	// a minute in the future).
	ErrExpired = errors.New("cursor: expired")
)

// Signer seals and opens cursors under one key. The zero Signer has an
// empty key; use NewSigner.
type Signer struct {
	key []byte
}

// NewSigner returns a Signer keyed by key, which the caller derives from the
// server secret with a label of its own, so that a cursor of one list
// family never opens in another.
func NewSigner(key []byte) Signer {
	return Signer{key: key}
}

// mac returns the HMAC-SHA256 of the concatenated parts under s's key.
func (s Signer) mac(parts ...[]byte) []byte {
	m := hmac.New(sha256.New, s.key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

// Position is a place in a list read newest first by (Time, ID): the next
// page holds the entries strictly before it.
type Position struct {
	Time time.Time
	ID   uuid.UUID
}

// List names a cursor list; a cursor of one list is refused by another.
// The lists that share a key choose distinct values.
type List byte

// Filters is the digest of the filters a State cursor is bound to; see
// FiltersOf.
type Filters [16]byte

// FiltersOf returns the digest a cursor of list is bound to: each part
// (a filter as parsed; callers write an absent one apart from every value)
// with its length, so that a cursor sent with other filters is refused and
// ("ab", "c") differs from ("a", "bc").
func FiltersOf(list List, parts ...string) Filters {
	h := sha256.New()
	h.Write([]byte{byte(list)})
	for _, p := range parts {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	var out Filters
	copy(out[:], h.Sum(nil))
	return out
}

// Lifetime is how long a State cursor is accepted after the page that
// issued it. A cursor keeps the window checked against the plan's look-back
// when its first page was read; the lifetime bounds how far that window may
// fall behind the look-back while paging.
const Lifetime = 24 * time.Hour

// State is what a windowed cursor carries: the list, the digest of the
// filters it was issued for, the window of the first page (so that every
// page reads the same window even though its end defaults to "now"), the
// position after which the next page starts, and when it was issued.
type State struct {
	List     List
	Filters  Filters
	From, To time.Time
	After    Position
	Issued   time.Time
}

// The State layout: version, list, filters, from, to, position time,
// position id, issued, then the full HMAC-SHA256 of all of it.
const (
	stateVersion = 1
	timeSize     = 8 + 4 // Unix seconds and nanoseconds, for any year
	statePayload = 1 + 1 + 16 + 3*timeSize + 16 + timeSize
	stateMAC     = sha256.Size
)

// Seal returns the cursor of st.
func (s Signer) Seal(st State) string {
	b := make([]byte, 0, statePayload+stateMAC)
	b = append(b, stateVersion, byte(st.List))
	b = append(b, st.Filters[:]...)
	b = appendTime(b, st.From)
	b = appendTime(b, st.To)
	b = appendTime(b, st.After.Time)
	b = append(b, st.After.ID[:]...)
	b = appendTime(b, st.Issued)
	b = append(b, s.mac(b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Open checks cursor and returns its state when s sealed it for list and
// for the filters whose digest is filters, at most Lifetime before now:
// ErrExpired when it is older (or issued more than a minute after now),
// ErrInvalid for anything else. Times come back in UTC.
func (s Signer) Open(cursor string, list List, filters Filters, now time.Time) (State, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) != statePayload+stateMAC {
		return State{}, ErrInvalid
	}
	payload, sum := b[:statePayload], b[statePayload:]
	if !hmac.Equal(sum, s.mac(payload)) {
		return State{}, ErrInvalid
	}
	if payload[0] != stateVersion || List(payload[1]) != list {
		return State{}, ErrInvalid
	}
	st := State{List: list}
	copy(st.Filters[:], payload[2:18])
	if !hmac.Equal(st.Filters[:], filters[:]) {
		return State{}, ErrInvalid
	}
	rest := payload[18:]
	st.From, rest = readTime(rest)
	st.To, rest = readTime(rest)
	st.After.Time, rest = readTime(rest)
	copy(st.After.ID[:], rest[:16])
	st.Issued, _ = readTime(rest[16:])
	if now.Sub(st.Issued) > Lifetime || st.Issued.After(now.Add(time.Minute)) {
		return State{}, ErrExpired
	}
	return st, nil
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
	return time.Unix(sec, nsec).UTC(), b[timeSize:]
}

// Binding is what a Position cursor is bound to without carrying it: the
// organization and the from and to filters (nil when absent).
type Binding struct {
	OrgID    uuid.UUID
	From, To *time.Time
}

// The Position layout: version, time in Unix milliseconds, id, then the
// first 16 bytes of the HMAC-SHA256 of those and of the Binding.
const (
	positionVersion = 1
	positionBody    = 1 + 8 + 16
	positionMAC     = 16
)

// SealPosition returns the cursor of pos for the list read with b. The time
// keeps millisecond precision.
func (s Signer) SealPosition(pos Position, b Binding) string {
	body := make([]byte, positionBody, positionBody+positionMAC)
	body[0] = positionVersion
	binary.BigEndian.PutUint64(body[1:9], uint64(pos.Time.UnixMilli()))
	copy(body[9:], pos.ID[:])
	body = append(body, s.positionMAC(body, b)...)
	return base64.RawURLEncoding.EncodeToString(body)
}

// OpenPosition returns the position of cursor when s sealed it for b;
// ErrInvalid otherwise. The time comes back in UTC.
func (s Signer) OpenPosition(cursor string, b Binding) (Position, error) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(raw) != positionBody+positionMAC || raw[0] != positionVersion {
		return Position{}, ErrInvalid
	}
	if !hmac.Equal(raw[positionBody:], s.positionMAC(raw[:positionBody], b)) {
		return Position{}, ErrInvalid
	}
	var pos Position
	copy(pos.ID[:], raw[9:positionBody])
	pos.Time = time.UnixMilli(int64(binary.BigEndian.Uint64(raw[1:9]))).UTC()
	return pos, nil
}

func (s Signer) positionMAC(body []byte, b Binding) []byte {
	bound := make([]byte, 0, 16+2*9)
	bound = append(bound, b.OrgID[:]...)
	for _, t := range []*time.Time{b.From, b.To} {
		var f [9]byte
		if t != nil {
			f[0] = 1
			binary.BigEndian.PutUint64(f[1:], uint64(t.UnixNano()))
		}
		bound = append(bound, f[:]...)
	}
	return s.mac(body, bound)[:positionMAC]
}
