package httpapi

import (
	"strconv"
	"sync"
	"sync/atomic"
)

// redirectBodies holds the buffers writeRedirect builds its short body in.
var redirectBodies = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// appendRedirectBody appends the redirect's short body for location to b:
// a link for clients that do not follow Location, the URL HTML-escaped as
// text/template.HTMLEscapeString escapes it.
func appendRedirectBody(b []byte, location string) []byte {
	b = append(b, redirectHead...)
	start := len(b)
	b = appendHTMLEscaped(b, location)
	end := len(b)
	b = append(b, redirectMid...)
	b = append(b, b[start:end]...)
	return append(b, redirectTail...)
}

// appendHTMLEscaped appends s to b with the five HTML special characters
// as entities and NUL as U+FFFD.
func appendHTMLEscaped(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case 0:
			esc = "\uFFFD"
		default:
			continue
		}
		b = append(b, s[last:i]...)
		b = append(b, esc...)
		last = i + 1
	}
	return append(b, s[last:]...)
}

// autoContentLengthMax is the longest redirect body whose Content-Length
// writeRedirect leaves to net/http, within its 2 KiB response buffer.
const autoContentLengthMax = 2000

// contentLengths caches the Content-Length header values of the small
// bodies, made once each and never modified.
var contentLengths [4096]atomic.Pointer[[]string]

// contentLength is the Content-Length header value for n bytes.
func contentLength(n int) []string {
	if n < 0 || n >= len(contentLengths) {
		return []string{strconv.Itoa(n)}
	}
	if v := contentLengths[n].Load(); v != nil {
		return *v
	}
	v := []string{strconv.Itoa(n)}
	contentLengths[n].Store(&v)
	return v
}
