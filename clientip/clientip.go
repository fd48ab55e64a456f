package clientip

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Of returns the address of the client that sent a request whose peer
// is remoteAddr ("host:port" or a bare address). X-Forwarded-For (xff, every
// header value in order) is believed only when the peer is inside one of
// trusted: the client is then the rightmost address of the chain that is not
// itself a trusted proxy. An address that cannot be parsed ends the walk.
func Of(remoteAddr string, xff []string, trusted []netip.Prefix) netip.Addr {
	peer := parseAddr(remoteAddr)
	if !peer.IsValid() || len(trusted) == 0 || !inAny(peer, trusted) {
		return peer
	}
	var hops []string
	for _, v := range xff {
		hops = append(hops, strings.Split(v, ",")...)
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a := parseAddr(strings.TrimSpace(hops[i]))
		if !a.IsValid() {
			break
		}
		client = a
		if !inAny(a, trusted) {
			break
		}
	}
	return client
}

// FromRequest returns the address of the client that sent r: Of of r's
// RemoteAddr and X-Forwarded-For headers.
func FromRequest(r *http.Request, trusted []netip.Prefix) netip.Addr {
	return Of(r.RemoteAddr, r.Header.Values("X-Forwarded-For"), trusted)
}

// PeerTrusted reports whether the peer remoteAddr ("host:port" or a bare
// address) is inside one of trusted, so that headers it sets for the client
// (X-Forwarded-For, X-Forwarded-Proto) may be believed. An address that
// cannot be parsed is not trusted.
func PeerTrusted(remoteAddr string, trusted []netip.Prefix) bool {
	peer := parseAddr(remoteAddr)
	return peer.IsValid() && inAny(peer, trusted)
}

func parseAddr(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap()
	}
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	a, err := netip.ParseAddr(strings.Trim(s, "[]"))
	if err != nil {
		return netip.Addr{}
	}
	return a.WithZone("").Unmap()
}

func inAny(a netip.Addr, prefixes []netip.Prefix) bool {
	for _, p := range prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ParseTrustedProxies parses a comma-separated list of CIDRs or addresses
// (the --trusted-proxies flag): a bare address is a prefix of its full
// length, a CIDR is masked ("10.0.0.1/8" is 10.0.0.0/8), and empty items are
// skipped, so "" is no trusted proxy at all.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				return nil, err
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
