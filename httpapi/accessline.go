package httpapi

import (
	"context"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"
)

// AccessLine is the access log's line for one request (AccessLog): the
// time it was logged and the values of its attributes.
type AccessLine struct {
	Time      time.Time
	Method    string
	Host      string
	Path      string
	Status    int
	Bytes     int64
	Duration  time.Duration
	RequestID string
}

// AccessLogger is a slog.Handler that writes the access line itself,
// without slog's generic path (a Record, its attributes, a Value each).
// AccessLog hands a request's line to the handler of its logger when the
// handler is one; the line must read as the handler's Handle would have
// written the record AccessLog logs otherwise. LogAccess runs on the
// request's goroutine and must not block but on a slow output.
type AccessLogger interface {
	LogAccess(ctx context.Context, line AccessLine)
}

// AppendText appends l to b as slog's TextHandler writes the record
// AccessLog logs (message "request" at info level, the attributes in the
// order of logAccess) when the handler has no attributes of its own
// (WithAttrs), no group and no ReplaceAttr: key=value pairs separated by
// spaces, the time in RFC 3339 with milliseconds, strings quoted as
// strconv.Quote does when they are empty or hold a space, '=', '"', a
// control character, a rune that is not printable or invalid UTF-8, and
// a line feed at the end. It allocates only when b has too little room.
// The tests compare it with the TextHandler byte for byte.
func (l *AccessLine) AppendText(b []byte) []byte {
	if !l.Time.IsZero() {
		b = append(b, "time="...)
		b = appendTimeMillis(b, l.Time)
		b = append(b, ' ')
	}
	b = append(b, "level=INFO msg=request method="...)
	b = appendTextString(b, l.Method)
	b = append(b, " host="...)
	b = appendTextString(b, l.Host)
	b = append(b, " path="...)
	b = appendTextString(b, l.Path)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(l.Status), 10)
	b = append(b, " bytes="...)
	b = strconv.AppendInt(b, l.Bytes, 10)
	b = append(b, " duration="...)
	b = appendDuration(b, l.Duration)
	b = append(b, " request_id="...)
	b = appendTextString(b, l.RequestID)
	return append(b, '\n')
}

// appendTimeMillis appends t in RFC 3339 with exactly three digits of
// milliseconds (truncated), as slog writes a record's time.
func appendTimeMillis(b []byte, t time.Time) []byte {
	// time's RFC3339Nano layout has a fast path but drops trailing zeros
	// of the fraction: with a tenth of a millisecond added to the
	// truncated time it always has four digits, the fourth of which is
	// cut out.
	const upToMillis = len("2006-01-02T15:04:05.000")
	start := len(b)
	t = t.Round(0).Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	cut := start + upToMillis
	return append(b[:cut], b[cut+1:]...)
}

// appendTextString appends s as a TextHandler writes a string value:
// quoted when textNeedsQuotes.
func appendTextString(b []byte, s string) []byte {
	if textNeedsQuotes(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// textNeedsQuotes reports whether a TextHandler quotes the string s: when
// it is empty, or holds a space, '=', '"', an ASCII control character, a
// rune that is a space or not printable, or bytes that are not UTF-8 (or
// encode U+FFFD itself). A backslash and DEL are written as they are.
func textNeedsQuotes(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c <= ' ' || c == '=' || c == '"' {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += n
	}
	return false
}

// appendDuration appends d as d.String() writes it ("1.5ms", "2m0.25s",
// "0s") without the string String allocates.
func appendDuration(b []byte, d time.Duration) []byte {
	if d == 0 {
		return append(b, "0s"...)
	}
	u := uint64(d)
	if d < 0 {
		b = append(b, '-')
		u = -u // the magnitude, 1<<63 included
	}
	switch {
	case u < uint64(time.Microsecond):
		b = strconv.AppendUint(b, u, 10)
		return append(b, "ns"...)
	case u < uint64(time.Millisecond):
		b = appendDecimal(b, u, 3)
		return append(b, "µs"...)
	case u < uint64(time.Second):
		b = appendDecimal(b, u, 6)
		return append(b, "ms"...)
	}
	secs := u / uint64(time.Second)
	if secs >= 3600 {
		b = strconv.AppendUint(b, secs/3600, 10)
		b = append(b, 'h')
	}
	if secs >= 60 {
		b = strconv.AppendUint(b, secs/60%60, 10)
		b = append(b, 'm')
	}
	b = appendDecimal(b, secs%60*uint64(time.Second)+u%uint64(time.Second), 9)
	return append(b, 's')
}

// appendDecimal appends v / 10^digits with its fraction, whose trailing
// zeros are dropped (and the point with them when it is zero).
func appendDecimal(b []byte, v uint64, digits int) []byte {
	unit := uint64(1)
	for range digits {
		unit *= 10
	}
	b = strconv.AppendUint(b, v/unit, 10)
	frac := v % unit
	if frac == 0 {
		return b
	}
	for frac%10 == 0 {
		frac /= 10
		digits--
	}
	b = append(b, '.')
	for unit = 1; digits > 1; digits-- {
		unit *= 10
	}
	for ; unit > 0; unit /= 10 {
		b = append(b, byte('0'+frac/unit%10))
	}
	return b
}
