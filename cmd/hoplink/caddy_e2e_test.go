package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/internal/dnstest"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/store"
)

// caddyClientIP is the loopback address the test's TLS clients connect
// from, so that the address Hoplink records can only have come from Caddy's
// X-Forwarded-For (Caddy itself connects to Hoplink from 127.0.0.1).
const caddyClientIP = "127.0.0.2"

// The example Caddyfile in front of `hoplink serve`: Caddy obtains an
// on-demand certificate (from its internal CA) for a verified custom domain,
// after asking /v1/internal/tls/ask, and proxies its redirect with the
// visitor's address in X-Forwarded-For; for a domain that was added but
// not verified, and for a name Hoplink does not know, it obtains none and
// the TLS handshake fails.
func TestCaddyInFront(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the hoplink binary and Caddy; skipped with -short")
	}
	caddyBin, err := exec.LookPath("caddy")
	if err != nil {
		t.Skip("caddy is not installed (Debian package caddy)")
	}
	bin := buildHoplink(t)
	dns := dnstest.Start(t)
	dns.SetCNAME("links.acme.test", "cname.hop.localhost") // the default --cname-target
	dns.SetNoCNAME("other.acme.test")

	db := filepath.Join(t.TempDir(), "hoplink.db")
	out, errOut, code := runBinary(t, bin, "org", "create", "--db", db, "--name", "Acme", "--plan", "growth", "--json")
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	var created struct {
		Organization struct {
			ID uuid.UUID `json:"id"`
		} `json:"organization"`
		APIKey struct {
			RawKey string `json:"raw_key"`
		} `json:"api_key"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &created), out)
	key := created.APIKey.RawKey

	srv := startServe(t, bin, "--db", db, "--no-bootstrap", "--dns-server", dns.Addr, "--trusted-proxies", "127.0.0.1/32")
	var domain struct {
		ID       string `json:"id"`
		Verified bool   `json:"verified"`
	}
	srv.call(t, key, http.MethodPost, "/v1/domains", `{"domain":"links.acme.test"}`, http.StatusCreated, &domain)
	srv.call(t, key, http.MethodPost, "/v1/domains/"+domain.ID+"/verify", "", http.StatusOK, &domain)
	require.True(t, domain.Verified, "links.acme.test verifies through the loopback DNS server")
	srv.call(t, key, http.MethodPost, "/v1/domains", `{"domain":"other.acme.test"}`, http.StatusCreated, nil)
	srv.call(t, key, http.MethodPost, "/v1/apps", `{"name":"Acme"}`, http.StatusCreated, nil)
	srv.call(t, key, http.MethodPost, "/v1/links",
		`{"destination_url":"https://acme.test/spring","slug":"spring","domain":"links.acme.test"}`, http.StatusCreated, nil)

	c := startCaddy(t, caddyBin, srv.addr)

	t.Run("a verified domain gets a certificate and its redirect over HTTPS", func(t *testing.T) {
		state, err := c.handshake("links.acme.test")
		require.NoError(t, err, "caddy stderr: %s", c.proc.stderr)
		leaf := state.PeerCertificates[0]
		require.NoError(t, leaf.VerifyHostname("links.acme.test"), "the certificate is for the name")
		root := c.root(t)
		intermediates := x509.NewCertPool()
		for _, cert := range state.PeerCertificates[1:] {
			intermediates.AddCert(cert)
		}
		_, err = leaf.Verify(x509.VerifyOptions{DNSName: "links.acme.test", Roots: root, Intermediates: intermediates})
		require.NoError(t, err, "Caddy's internal CA issued it")

		client := c.client(root)
		req, err := http.NewRequest(http.MethodGet, "https://links.acme.test:"+c.httpsPort+"/spring?utm_content=via-caddy", nil)
		require.NoError(t, err)
		req.Header.Set("User-Agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0 Safari/537.36")
		req.Header.Set("X-Forwarded-For", "203.0.113.9") // the visitor's own claim, believed by nobody
		resp, err := client.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusFound, resp.StatusCode)
		assert.Equal(t, "https://acme.test/spring?utm_content=via-caddy", resp.Header.Get("Location"))

		assert.Equal(t, caddyClientIP, waitClickIP(t, srv, db, created.Organization.ID, "via-caddy"),
			"Hoplink records the address Caddy connected from, read from X-Forwarded-For")
	})

	t.Run("an unverified domain gets no certificate", func(t *testing.T) {
		_, err := c.handshake("other.acme.test")
		require.Error(t, err)
		assert.False(t, c.issued("other.acme.test"), "Caddy stored no certificate for it")
	})

	t.Run("an unknown name gets no certificate", func(t *testing.T) {
		_, err := c.handshake("stranger.example.net")
		require.Error(t, err)
		assert.False(t, c.issued("stranger.example.net"))
	})
}

// call sends an API request with key to srv and requires status want,
// decoding the answer into into when it is not nil.
func (srv *server) call(t *testing.T, key, method, path, body string, want int, into any) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+srv.addr+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, want, resp.StatusCode, "%s %s: %s", method, path, b)
	if into != nil {
		require.NoError(t, json.Unmarshal(b, into), "%s", b)
	}
}

// caddy is a running `caddy run` on the example Caddyfile.
type caddy struct {
	proc      *server
	httpsPort string
	storage   string
}

// startCaddy runs Caddy on examples/caddy/Caddyfile, proxying to upstream,
// with these global options added for a test: its internal CA instead of
// ACME, no admin endpoint, loopback ports, and storage in a temporary
// directory. It returns once Caddy serves its configuration.
func startCaddy(t *testing.T, bin, upstream string) *caddy {
	t.Helper()
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "caddy", "Caddyfile"))
	require.NoError(t, err)
	dir := t.TempDir()
	c := &caddy{storage: filepath.Join(dir, "data")}
	_, c.httpsPort, _ = net.SplitHostPort(testkit.FreeAddr(t))
	_, httpPort, _ := net.SplitHostPort(testkit.FreeAddr(t))
	global := "{\n\tadmin off\n\tlocal_certs\n\tskip_install_trust\n\tdefault_bind 127.0.0.1\n" +
		"\thttp_port " + httpPort + "\n\thttps_port " + c.httpsPort + "\n" +
		"\tstorage file_system {\n\t\troot " + c.storage + "\n\t}\n"
	config := string(example)
	i := strings.Index(config, "\n{\n")
	require.GreaterOrEqual(t, i, 0, "the example has a global options block")
	config = config[:i+1] + global + config[i+3:]
	file := filepath.Join(dir, "Caddyfile")
	require.NoError(t, os.WriteFile(file, []byte(config), 0o600))

	p := &server{dir: dir, stdout: newOutput(), stderr: newOutput(), exited: make(chan struct{})}
	p.cmd = exec.Command(bin, "run", "--config", file, "--adapter", "caddyfile")
	p.cmd.Dir = dir
	p.cmd.Env = append(processEnv(), "HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "xdg-data"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "xdg-config"), "HOPLINK_UPSTREAM="+upstream,
		"HOPLINK_SERVICE_DOMAIN=hoplink.acme-ops.test", "HOPLINK_LINK_DOMAIN=hop.acme-ops.test")
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	require.NoError(t, p.cmd.Start())
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	c.proc = p
	p.stderr.waitFor(t, p, "serving initial configuration")
	return c
}

// dialer connects from caddyClientIP, with a bound on every step.
func (c *caddy) dialer() *net.Dialer {
	return &net.Dialer{Timeout: 10 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(caddyClientIP)}}
}

// handshake makes a TLS handshake with Caddy for name (SNI) and returns
// the connection's state; the certificate is checked by the caller.
func (c *caddy) handshake(name string) (tls.ConnectionState, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := &tls.Dialer{NetDialer: c.dialer(), Config: &tls.Config{ServerName: name, InsecureSkipVerify: true}}
	conn, err := d.DialContext(ctx, "tcp", "127.0.0.1:"+c.httpsPort)
	if err != nil {
		return tls.ConnectionState{}, err
	}
	defer conn.Close()
	return conn.(*tls.Conn).ConnectionState(), nil
}

// root returns Caddy's internal root certificate as a pool.
func (c *caddy) root(t *testing.T) *x509.CertPool {
	t.Helper()
	pem, err := os.ReadFile(filepath.Join(c.storage, "pki", "authorities", "local", "root.crt"))
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pem))
	return pool
}

// client returns an HTTPS client that trusts root and sends every request
// to Caddy, whatever the URL's host, from caddyClientIP.
func (c *caddy) client(root *x509.CertPool) *http.Client {
	d := c.dialer()
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: root},
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return d.DialContext(ctx, network, "127.0.0.1:"+c.httpsPort)
			},
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// issued reports whether Caddy's storage holds a certificate for name.
func (c *caddy) issued(name string) bool {
	found := false
	_ = filepath.WalkDir(filepath.Join(c.storage, "certificates"), func(path string, _ os.DirEntry, err error) error {
		if err == nil && filepath.Base(path) == name+".crt" {
			found = true
		}
		return nil
	})
	return found
}

// waitClickIP waits, within processLimit, until the click of orgID with
// utm_content content is stored, and returns its IP address.
func waitClickIP(t *testing.T, srv *server, db string, orgID uuid.UUID, content string) string {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, db)
	require.NoError(t, err)
	defer s.Close()
	deadline := time.Now().Add(processLimit)
	for {
		var segments [][]byte
		err := s.DB().NewSelect().Table("click_segments").Column("data").Where("org_id = ?", orgID).Scan(ctx, &segments)
		require.NoError(t, err)
		for _, data := range segments {
			clicks, err := analytics.DecodeSegment(orgID, data)
			require.NoError(t, err)
			for _, c := range clicks {
				if c.UTMContent == content {
					return c.IP
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the click %s was not stored within %v\nstderr: %s", content, processLimit, srv.stderr)
		}
		select {
		case <-srv.exited:
			t.Fatalf("hoplink exited\nstderr: %s", srv.stderr)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
