package storetest

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TCPProxy forwards TCP connections from a local address to a target, and
// can be stopped and started again on the same address: tests use it to make
// a database (or any TCP service) unreachable and then reachable again.
type TCPProxy struct {
	t      testing.TB
	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener // nil while stopped
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
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
	p.mu.Unlock()
	p.wg.Wait()
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
	upstream, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		_ = client.Close()
		return
	}
	if !p.track(ln, client, upstream) {
		_ = client.Close()
		_ = upstream.Close()
		return
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(upstream, client); done <- struct{}{} }()
	go func() { _, _ = io.Copy(client, upstream); done <- struct{}{} }()
	<-done
	_ = client.Close()
	_ = upstream.Close()
	<-done
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, upstream)
	p.mu.Unlock()
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
