package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/hoplink/hoplink/httpapi"
)

// discardResponse is a response writer that keeps nothing.
type discardResponse struct{ h http.Header }

func (d discardResponse) Header() http.Header         { return d.h }
func (d discardResponse) Write(p []byte) (int, error) { return len(p), nil }
func (d discardResponse) WriteHeader(int)             {}

// BenchmarkAccessLogLine is what the access log costs a request: a
// redirect served through AccessLog with the text logger of NewLogger,
// its output a pipe that a goroutine reads, as a standard error read by
// a log collector. "parallel" logs from every core at once.
func BenchmarkAccessLogLine(b *testing.B) {
	r, pw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, r) }()
	defer func() { _ = pw.Close() }()
	redirect := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusFound)
	})
	request := func() *http.Request {
		req := httptest.NewRequest(http.MethodGet, "http://hop.example/spring-sale", nil)
		req.Header.Set("X-Request-Id", "0123456789abcdef01234567")
		return req
	}
	out := newLogWriter(pw)
	defer func() { _ = out.Stop() }()
	h := httpapi.AccessLog(redirect, newTextLogger(out, nil))
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		req, w := request(), discardResponse{http.Header{}}
		for b.Loop() {
			h.ServeHTTP(w, req)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			req, w := request(), discardResponse{http.Header{}}
			for pb.Next() {
				h.ServeHTTP(w, req)
			}
		})
	})
}
