package storetest

import (
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TCPProxy forwards TCP connections from a local address to a target, and
// can be stopped and started again on the same address: tests use it to make
// a database (or any TCP service) unreachable and then reachable again. It
// can also be stalled: it then holds what it reads, in either direction,
// until it is resumed, as a network path that drops everything for a while
// or a frozen server.
type TCPProxy struct {
	t      testing.TB
	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener // nil while stopped
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
	// resume is closed when a stall ends; nil while the proxy is not
	// stalled.
	resume chan struct{}
}

// NewTCPProxy starts a proxy on 127.0.0.1 (on a free port) that forwards
// every connection to target (host:port). It is stopped when the test ends.
func NewTCPProxy(t testing.TB, target string) *TCPProxy {
	t.Helper()
	p := &TCPProxy{t: t, target: target, addr: "127.0.0.1:0", conns: map[net.Conn]struct{}{}}
	p.Start()
	t.Cleanup(p.Stop)
	return p
}

// Addr returns the host:port the proxy listens on; it does not change when
// the proxy is stopped and started again.
func (p *TCPProxy) Addr() string { return p.addr }

// Start listens again on the proxy's address after Stop. It does nothing if
// the proxy is running and fails the test if the address cannot be bound.
func (p *TCPProxy) Start() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		return
	}
	ln, err := net.Listen("tcp", p.addr)
	require.NoError(p.t, err)
	p.ln, p.addr = ln, ln.Addr().String()
	p.wg.Add(1)
	go p.serve(ln)
}

// Stop closes the listener and every forwarded connection, and returns once
// the proxy's goroutines have ended: from then on, connecting to Addr is
// refused and every connection made through the proxy is broken. It does
// nothing if the proxy is stopped.
func (p *TCPProxy) Stop() {
	p.mu.Lock()
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
	if p.resume != nil {
		close(p.resume)
		p.resume = nil
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// Stall holds every byte the proxy reads from then on, in either
// direction, and every new connection before it reaches the target, until
// Resume: connections stay open and writes to them succeed, but nothing
// is answered. It does nothing if the proxy is stalled.
func (p *TCPProxy) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resume == nil {
		p.resume = make(chan struct{})
	}
}

// Resume ends a stall: what the proxy held is forwarded, in order, and
// forwarding goes on. It does nothing if the proxy is not stalled; Stop
// resumes too.
func (p *TCPProxy) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resume != nil {
		close(p.resume)
		p.resume = nil
	}
}

// waitStall returns once the proxy is not stalled.
func (p *TCPProxy) waitStall() {
	p.mu.Lock()
	ch := p.resume
	p.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

func (p *TCPProxy) serve(ln net.Listener) {
	defer p.wg.Done()
	for {
		client, err := ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go p.forward(ln, client)
	}
}

// forward copies between client and a new connection to the target until
// either side ends or the proxy stops.
func (p *TCPProxy) forward(ln net.Listener, client net.Conn) {
	defer p.wg.Done()
	defer client.Close()
	if !p.track(ln, client) {
		return
	}
	defer p.untrack(client)
	p.waitStall() // a connection made while stalled waits, accepted
	upstream, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		return
	}
	defer upstream.Close()
	if !p.track(ln, upstream) {
		return
	}
	defer p.untrack(upstream)
	done := make(chan struct{}, 2)
	go func() { p.copy(upstream, client); done <- struct{}{} }()
	go func() { p.copy(client, upstream); done <- struct{}{} }()
	<-done
	_ = client.Close()
	_ = upstream.Close()
	<-done
}

// copy copies from src to dst until either fails, holding what it read
// while the proxy is stalled.
func (p *TCPProxy) copy(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.waitStall()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// untrack forgets c, closed.
func (p *TCPProxy) untrack(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.conns, c)
}

// track records the connections of ln, unless ln has been stopped since.
func (p *TCPProxy) track(ln net.Listener, conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != ln {
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}
