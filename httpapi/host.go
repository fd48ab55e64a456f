package httpapi

import (
	"context"
	"net"
	"net/http"
	"strings"
	"time"
)

// HostRouter sends requests for the service hosts to Service and every other
// host to LinkDomain (DESIGN.md: --service-host).
type HostRouter struct {
	// ServiceHosts are lowercase host names without ports.
	ServiceHosts []string
	Service      http.Handler
	LinkDomain   http.Handler
}

// ServeHTTP implements http.Handler.
func (h *HostRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := HostOf(r)
	for _, s := range h.ServiceHosts {
		if host == s {
			h.Service.ServeHTTP(w, r)
			return
		}
	}
	h.LinkDomain.ServeHTTP(w, r)
}

// HostOf returns r's host name, lowercase, without port or trailing dot.
func HostOf(r *http.Request) string {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// Health returns a handler that answers /healthz and /readyz (ready reports
// whether the database answers, within timeout as Options.ReadyTimeout;
// nil is always ready) and gives every other path the 404 envelope. The
// link-domain and auth services start with it.
func Health(ready func(ctx context.Context) error, timeout time.Duration) http.Handler {
	a := New(Options{Ready: ready, ReadyTimeout: timeout})
	return a
}
