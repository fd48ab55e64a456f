package httpapi

import (
	"strconv"
	"testing"
	"text/template"
)

// The redirect's body is the short page with the location escaped as
// text/template escapes HTML, for any location, and its Content-Length
// value is the length's decimal form.
func FuzzRedirectBody(f *testing.F) {
	for _, s := range []string{
		"", "https://shop.example/p?id=1&utm_source=a", `https://x.example/"'<>&` + "\x00", "\xff\xfe<",
		"myapp://open?a=1&b=<2>", "https://例え.jp/パス?q=\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, location string) {
		esc := template.HTMLEscapeString(location)
		want := redirectHead + esc + redirectMid + esc + redirectTail
		if got := string(appendRedirectBody(nil, location)); got != want {
			t.Fatalf("body of %q:\n got %q\nwant %q", location, got, want)
		}
		if got := string(appendRedirectBody(make([]byte, 3, 8), location)[3:]); got != want {
			t.Fatalf("body appended after 3 bytes of %q: got %q", location, got)
		}
		n := len(want)
		for _, m := range []int{n, n % 4096, n + 4096} {
			if got := contentLength(m); len(got) != 1 || got[0] != strconv.Itoa(m) {
				t.Fatalf("contentLength(%d) = %q", m, got)
			}
		}
	})
}
