package linking

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/miekg/dns"
)

// DNSLookup is a CNAMELookup that asks DNS servers directly, one CNAME query
// per lookup (no chain is followed: the record the customer wrote is what
// verification reads). It is safe for concurrent use.
type DNSLookup struct {
	servers []string
}

var _ CNAMELookup = (*DNSLookup)(nil)

// NewDNSLookup returns a lookup that asks server (host:port; a host alone
// gets port 53), or, when server is empty, the name servers of the system's
// resolver configuration (/etc/resolv.conf, 127.0.0.1:53 when it has none).
func NewDNSLookup(server string) (*DNSLookup, error) {
	if server != "" {
		if _, _, err := net.SplitHostPort(server); err != nil {
			server = net.JoinHostPort(server, "53")
		}
		if _, _, err := net.SplitHostPort(server); err != nil {
			return nil, fmt.Errorf("linking: DNS server %q: %w", server, err)
		}
		return &DNSLookup{servers: []string{server}}, nil
	}
	var servers []string
	if conf, err := dns.ClientConfigFromFile("/etc/resolv.conf"); err == nil {
		for _, s := range conf.Servers {
			servers = append(servers, net.JoinHostPort(s, conf.Port))
		}
	}
	if len(servers) == 0 {
		servers = []string{"127.0.0.1:53"}
	}
	return &DNSLookup{servers: servers}, nil
}

// Servers returns the servers the lookup asks, in order.
func (l *DNSLookup) Servers() []string { return append([]string(nil), l.servers...) }

// LookupCNAME implements CNAMELookup. Each server is asked in turn until one
// answers; ctx's deadline bounds the whole lookup. NXDOMAIN and an answer
// without a CNAME for name are "not found"; any other failure code is an
// error. A truncated UDP answer is asked again over TCP.
func (l *DNSLookup) LookupCNAME(ctx context.Context, name string) (string, bool, error) {
	fqdn := dns.Fqdn(name)
	m := new(dns.Msg)
	m.SetQuestion(fqdn, dns.TypeCNAME)
	m.RecursionDesired = true
	var last error
	for _, server := range l.servers {
		r, err := exchange(ctx, m, server)
		if err != nil {
			last = err
			if ctx.Err() != nil {
				break
			}
			continue
		}
		switch r.Rcode {
		case dns.RcodeSuccess:
		case dns.RcodeNameError:
			return "", false, nil
		default:
			last = fmt.Errorf("linking: DNS server %s answered %s", server, dns.RcodeToString[r.Rcode])
			continue
		}
		for _, rr := range r.Answer {
			if c, ok := rr.(*dns.CNAME); ok && strings.EqualFold(c.Hdr.Name, fqdn) {
				return NormalizeDomain(c.Target), true, nil
			}
		}
		return "", false, nil
	}
	if last == nil {
		last = errors.New("linking: no DNS server to ask")
	}
	return "", false, last
}

func exchange(ctx context.Context, m *dns.Msg, server string) (*dns.Msg, error) {
	c := &dns.Client{Net: "udp"}
	r, _, err := c.ExchangeContext(ctx, m, server)
	if err == nil && r.Truncated {
		c.Net = "tcp"
		r, _, err = c.ExchangeContext(ctx, m, server)
	}
	return r, err
}
