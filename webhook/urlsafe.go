package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// MaxURLLength is the longest endpoint URL accepted.
const MaxURLLength = 2048

// metadata are the cloud metadata addresses outside the link-local and
// private ranges that are refused with them.
var metadata = []netip.Prefix{
	netip.MustParsePrefix("100.100.100.200/32"), // Alibaba Cloud
	netip.MustParsePrefix("fd00:ec2::254/128"),  // AWS over IPv6 (also private)
}

// sharedSpace is RFC 6598's carrier-grade NAT range, private in effect.
var sharedSpace = netip.MustParsePrefix("100.64.0.0/10")

// ErrRefusedAddress means an endpoint resolved to an address deliveries may
// not reach (see CheckAddress).
var ErrRefusedAddress = errors.New("webhook: the address is on a loopback, private, link-local or metadata network")

// CheckAddress returns ErrRefusedAddress when a delivery may not connect to
// ip: loopback, private (RFC 1918, RFC 4193, RFC 6598), link-local
// (including 169.254.169.254, the metadata address of most clouds),
// unspecified, multicast or a known metadata address, unless allowPrivate.
func CheckAddress(ip netip.Addr, allowPrivate bool) error {
	ip = ip.Unmap()
	if allowPrivate {
		return nil
	}
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || sharedSpace.Contains(ip) ||
		(ip.Is4() && ip.As4()[0] == 0) {
		return fmt.Errorf("%w: %s", ErrRefusedAddress, ip)
	}
	for _, p := range metadata {
		if p.Contains(ip) {
			return fmt.Errorf("%w: %s", ErrRefusedAddress, ip)
		}
	}
	return nil
}

// CheckURL returns why raw may not be an endpoint URL, or "" when it may:
// an absolute https URL (http too when allowPrivate) with a host, no user
// information and at most MaxURLLength bytes. It does not resolve the host;
// Resolve does.
func CheckURL(raw string, allowPrivate bool) string {
	if len(raw) > MaxURLLength {
		return fmt.Sprintf("must be at most %d characters", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return "must be an absolute URL"
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowPrivate:
	default:
		return "must use https"
	}
	if u.User != nil {
		return "must not carry user information"
	}
	if u.Fragment != "" {
		return "must not have a fragment"
	}
	return ""
}

// Resolver looks up a host's addresses; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// CheckHost returns why the host of endpoint URL raw may not be reached, or
// "" when it may: it resolves (an IP literal is its own address) and every
// address passes CheckAddress. With allowPrivate nothing is resolved.
func CheckHost(ctx context.Context, r Resolver, raw string, allowPrivate bool) string {
	if allowPrivate {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "must be an absolute URL"
	}
	host := u.Hostname()
	addrs := []netip.Addr{}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		addrs = append(addrs, ip)
	} else if addrs, err = r.LookupNetIP(ctx, "ip", host); err != nil || len(addrs) == 0 {
		return "the host does not resolve"
	}
	for _, ip := range addrs {
		if CheckAddress(ip, false) != nil {
			return "must not resolve to a loopback, private, link-local or metadata address"
		}
	}
	return ""
}

// ClientOptions configure NewClient. Every zero value means the documented
// default.
type ClientOptions struct {
	// AllowPrivate lets deliveries reach any address (--webhook-allow-private).
	AllowPrivate bool
	// Resolver resolves endpoint hosts; net.DefaultResolver when nil.
	Resolver *net.Resolver
	// TLS is the TLS configuration; the system's when nil.
	TLS *tls.Config
	// Timeout bounds one request, connection to answer read: Timeout when zero.
	Timeout time.Duration
}

// Timeout is the default bound of one delivery attempt.
const Timeout = 10 * time.Second

// NewClient returns the HTTP client deliveries are posted with. Every
// connection checks the address it is about to dial with CheckAddress (in
// the dialer's Control, after resolution), so a DNS answer that changed
// since the endpoint was saved cannot reach a refused address. It uses no
// proxy, follows no redirect and keeps connections alive between
// deliveries.
func NewClient(opts ClientOptions) *http.Client {
	if opts.Timeout == 0 {
		opts.Timeout = Timeout
	}
	dialer := &net.Dialer{
		Timeout:  opts.Timeout,
		Resolver: opts.Resolver,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("webhook: dial %s: %w", address, err)
			}
			return CheckAddress(ap.Addr(), opts.AllowPrivate)
		},
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSClientConfig:       opts.TLS,
		TLSHandshakeTimeout:   opts.Timeout,
		ResponseHeaderTimeout: opts.Timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   opts.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
