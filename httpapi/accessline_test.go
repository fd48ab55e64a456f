package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/httpapi"
)

// textHandlerLine is the line slog's TextHandler writes for the record
// the access log logs with l's values (as AccessLog does without an
// AccessLogger).
func textHandlerLine(t testing.TB, l httpapi.AccessLine) string {
	var buf bytes.Buffer
	r := slog.NewRecord(l.Time, slog.LevelInfo, "request", 0)
	r.AddAttrs(
		slog.String("method", l.Method),
		slog.String("host", l.Host),
		slog.String("path", l.Path),
		slog.Int("status", l.Status),
		slog.Int64("bytes", l.Bytes),
		slog.Duration("duration", l.Duration),
		slog.String("request_id", l.RequestID))
	if err := slog.NewTextHandler(&buf, nil).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// assertSameAsTextHandler fails when AppendText and the TextHandler write
// l differently.
func assertSameAsTextHandler(t testing.TB, l httpapi.AccessLine) {
	want := textHandlerLine(t, l)
	got := string(l.AppendText(nil))
	if got != want {
		t.Fatalf("AppendText wrote\n%q\nthe TextHandler\n%q", got, want)
	}
	// Appended after other bytes, the line is the same.
	if got := string(l.AppendText([]byte("x"))); got != "x"+want {
		t.Fatalf("AppendText after a byte wrote %q", got)
	}
}

var berlin = time.FixedZone("CET", 3600)

// Values that need quoting, and the durations and times of every form,
// are written as the TextHandler writes them.
func TestAccessLineIsTheTextHandlersLine(t *testing.T) {
	at := time.Date(2026, 12, 2, 8, 14, 47, 123_456_789, time.UTC)
	base := httpapi.AccessLine{Time: at, Method: "GET", Host: "hop.example", Path: "/spring", Status: 302,
		Bytes: 0, Duration: 1234567, RequestID: "0123456789abcdef01234567"}
	assertSameAsTextHandler(t, base)

	for _, s := range []string{
		"", " ", "a b", `say "hi"`, "a=b", "=", `back\slash`, "tab\there", "line\nfeed", "nul\x00",
		"\x7f", "del\x7fete", "\x1b[31m", "caf\u00e9", "日本語", "\u00a0nbsp", "\u2028", "\u200b",
		"\xff", "bad\xc3", "\xed\xa0\x80", "\ufffd", "emoji 🙂", "🙂", "%20", "/a/b?c#d", "é\u0301",
		"\u0085", "\ue000", "x\u3000y", "'single'", "`tick`", ":token",
	} {
		for _, l := range []httpapi.AccessLine{
			{Time: at, Method: s, Host: "h", Path: "/", RequestID: "r"},
			{Time: at, Method: "GET", Host: s, Path: "/", RequestID: "r"},
			{Time: at, Method: "GET", Host: "h", Path: s, RequestID: "r"},
			{Time: at, Method: "GET", Host: "h", Path: "/", RequestID: s},
		} {
			assertSameAsTextHandler(t, l)
		}
	}

	for _, d := range []time.Duration{
		0, 1, 999, 1000, 1001, 1500, 999_999, time.Millisecond, 1_000_001, 1_234_567, 999_999_999,
		time.Second, time.Second + 1, 59 * time.Second, time.Minute, time.Minute + 500*time.Millisecond,
		time.Hour, time.Hour + time.Second, 25*time.Hour + 3*time.Minute + 4*time.Second + 5,
		-1, -1500, -time.Hour, math.MaxInt64, math.MinInt64, math.MinInt64 + 1,
	} {
		l := base
		l.Duration = d
		assertSameAsTextHandler(t, l)
	}

	for _, n := range []int64{0, 1, -1, math.MaxInt64, math.MinInt64} {
		l := base
		l.Bytes, l.Status = n, int(n)
		assertSameAsTextHandler(t, l)
	}

	for _, tm := range []time.Time{
		{}, at.In(berlin), at.Truncate(time.Millisecond), at.Truncate(time.Second),
		time.Date(2026, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(12345, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC), at.In(time.FixedZone("", -(9*3600 + 30*60))),
		time.Now(), time.Now().In(time.Local),
	} {
		l := base
		l.Time = tm
		assertSameAsTextHandler(t, l)
	}
}

// The formatter and the TextHandler write the same line whatever the
// values; the seeds are the cases that need quoting and every form of a
// duration.
func FuzzAccessLineIsTheTextHandlersLine(f *testing.F) {
	for _, s := range []string{"GET", "", "a b", `"q"`, "k=v", "\x00\x1f", "\xff\xfe", "\ufffd", "é", "\u2028", `\`} {
		f.Add(s, "hop.example:8080", "/"+s, s, 302, int64(37), int64(1_234_567), int64(1_764_663_287), int64(123_456_789), int32(3600))
	}
	f.Add("POST", "h", "/", "id", 500, int64(-1), int64(-90*time.Minute), int64(-62_135_596_800), int64(0), int32(-34200))
	f.Add("GET", "h", "/", "id", 200, int64(0), int64(0), int64(0), int64(0), int32(0))
	f.Add("GET", "h", "/", "id", 200, int64(0), int64(math.MinInt64), int64(253_402_300_800), int64(999_999_999), int32(50400))
	f.Fuzz(func(t *testing.T, method, host, path, id string, status int, n, d, sec, nsec int64, offset int32) {
		l := httpapi.AccessLine{Time: time.Unix(sec, nsec).In(time.FixedZone("", int(offset))), Method: method,
			Host: host, Path: path, Status: status, Bytes: n, Duration: time.Duration(d), RequestID: id}
		assertSameAsTextHandler(t, l)
	})
}

// The line is formatted without an allocation.
func TestAccessLineAppendsWithoutAllocating(t *testing.T) {
	l := httpapi.AccessLine{Time: time.Now(), Method: "GET", Host: "hop.example", Path: "/spring sale",
		Status: 302, Bytes: 57, Duration: 81234 * time.Nanosecond, RequestID: "0123456789abcdef01234567"}
	buf := make([]byte, 0, 512)
	allocs := testing.AllocsPerRun(1000, func() { buf = l.AppendText(buf[:0]) })
	assert.Zero(t, allocs)
}

// accessText is a TextHandler that also takes the access line as an
// AccessLogger, writing AppendText to the same output.
type accessText struct {
	*slog.TextHandler
	out io.Writer
}

func (h accessText) LogAccess(_ context.Context, l httpapi.AccessLine) {
	_, _ = h.out.Write(l.AppendText(nil))
}

// The line an AccessLogger is given is the line the TextHandler writes
// for the record AccessLog logs otherwise, but for the time and the
// duration, which differ from one request to the next.
func TestAccessLogHandsTheSameLineToAnAccessLogger(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusFound)
		_, _ = io.WriteString(w, "moved")
	})
	var out bytes.Buffer
	serve := func(log *slog.Logger) string {
		out.Reset()
		req := httptest.NewRequest(http.MethodGet, "http://hop.example/invitations/s3cret/accept?x=1", nil)
		req.Header.Set("X-Request-Id", "the-id")
		httpapi.AccessLog(h, log).ServeHTTP(httptest.NewRecorder(), req)
		return regexp.MustCompile(`(time|duration)=\S+`).ReplaceAllString(out.String(), "$1=?")
	}
	viaRecord := serve(slog.New(slog.NewTextHandler(&out, nil)))
	viaLine := serve(slog.New(accessText{slog.NewTextHandler(&out, nil), &out}))
	require.Equal(t, "time=? level=INFO msg=request method=GET host=hop.example path=/invitations/:token/accept status=302 bytes=5 duration=? request_id=the-id\n", viaRecord)
	assert.Equal(t, viaRecord, viaLine)
}

func BenchmarkAccessLine(b *testing.B) {
	l := httpapi.AccessLine{Time: time.Now(), Method: "GET", Host: "hop.example", Path: "/spring",
		Status: 302, Bytes: 57, Duration: 81234 * time.Nanosecond, RequestID: "0123456789abcdef01234567"}
	b.Run("formatter", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 512)
		for b.Loop() {
			buf = l.AppendText(buf[:0])
		}
	})
	b.Run("slog-text", func(b *testing.B) {
		b.ReportAllocs()
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		ctx := context.Background()
		for b.Loop() {
			log.LogAttrs(ctx, slog.LevelInfo, "request",
				slog.String("method", l.Method), slog.String("host", l.Host), slog.String("path", l.Path),
				slog.Int("status", l.Status), slog.Int64("bytes", l.Bytes), slog.Duration("duration", l.Duration),
				slog.String("request_id", l.RequestID))
		}
	})
}
