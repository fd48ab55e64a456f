// Package dnstest runs a small authoritative DNS server on loopback for
// tests: it answers CNAME and A questions from tables the test sets, NXDOMAIN for
// names it does not know, and never answers the names it is told to drop,
// so that a lookup of them times out. It never touches the internet.
package dnstest

import (
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// Server is a DNS server on a loopback UDP port. Its methods are safe for
// concurrent use.
type Server struct {
	// Addr is the server's host:port.
	Addr string

	mu      sync.Mutex
	cnames  map[string]string
	exists  map[string]bool
	addrs   map[string][]net.IP
	drop    map[string]bool
	queries int
}

// Start starts a server on 127.0.0.1 and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("dnstest: listen: %v", err)
	}
	s := &Server{Addr: pc.LocalAddr().String(), cnames: map[string]string{}, exists: map[string]bool{}, addrs: map[string][]net.IP{}, drop: map[string]bool{}}
	started := make(chan struct{})
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(s.serve), NotifyStartedFunc: func() { close(started) }}
	go func() { _ = srv.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = srv.Shutdown() })
	return s
}

func key(name string) string { return strings.ToLower(dns.Fqdn(name)) }

// SetCNAME makes name's CNAME point at target.
func (s *Server) SetCNAME(name, target string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cnames[key(name)] = dns.Fqdn(target)
}

// SetNoCNAME makes name exist without a CNAME record: CNAME questions get an
// empty answer (NOERROR, no data) instead of NXDOMAIN.
func (s *Server) SetNoCNAME(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.cnames, key(name))
	s.exists[key(name)] = true
}

// SetA makes name's A records ips (IPv4 addresses), replacing any it had;
// other questions about name get an empty answer.
func (s *Server) SetA(name string, ips ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var list []net.IP
	for _, ip := range ips {
		list = append(list, net.ParseIP(ip).To4())
	}
	s.addrs[key(name)] = list
	s.exists[key(name)] = true
}

// Drop makes the server ignore every question about name.
func (s *Server) Drop(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drop[key(name)] = true
}

// Queries returns how many questions the server received.
func (s *Server) Queries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries
}

func (s *Server) serve(w dns.ResponseWriter, r *dns.Msg) {
	s.mu.Lock()
	s.queries++
	if len(r.Question) != 1 {
		s.mu.Unlock()
		m := new(dns.Msg)
		m.SetRcode(r, dns.RcodeFormatError)
		_ = w.WriteMsg(m)
		return
	}
	q := r.Question[0]
	name := strings.ToLower(q.Name)
	drop := s.drop[name]
	target, hasCNAME := s.cnames[name]
	exists := s.exists[name]
	addrs := s.addrs[name]
	s.mu.Unlock()
	if drop {
		return
	}
	m := new(dns.Msg)
	m.SetReply(r)
	m.Authoritative = true
	switch {
	case len(addrs) > 0 && q.Qtype == dns.TypeA:
		for _, ip := range addrs {
			m.Answer = append(m.Answer, &dns.A{
				Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 0},
				A:   ip,
			})
		}
	case hasCNAME:
		m.Answer = append(m.Answer, &dns.CNAME{
			Hdr:    dns.RR_Header{Name: q.Name, Rrtype: dns.TypeCNAME, Class: dns.ClassINET, Ttl: 60},
			Target: target,
		})
	case exists:
	default:
		m.Rcode = dns.RcodeNameError
	}
	_ = w.WriteMsg(m)
}
