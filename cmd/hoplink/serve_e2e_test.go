package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/internal/testkit"
)

// processLimit bounds every wait on the hoplink process (its start, its
// output, its exit) so that a broken build fails instead of hanging. It is a
// bound, not a measurement: nothing here asserts how long anything takes.
const processLimit = time.Minute

// TestServeProcess runs `hoplink serve` as a real process: first start on an
// empty database, a restart on the same database, and --no-bootstrap.
func TestServeProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the hoplink binary; skipped with -short")
	}
	if runtime.GOOS == "windows" {
		t.Skip("graceful shutdown is tested with SIGTERM, which Windows lacks")
	}
	bin := buildHoplink(t)
	dataDir := t.TempDir() // the database's directory, apart from the working directory
	db := filepath.Join(dataDir, "hoplink.db")
	secretPath := filepath.Join(dataDir, "hoplink.secret")

	var (
		orgID, rawKey string
		secret        []byte
	)

	t.Run("first start bootstraps, serves and stops gracefully", func(t *testing.T) {
		srv := startServe(t, bin, "--db", db)
		out := srv.stdout.waitFor(t, srv, "Try it:")
		m := regexp.MustCompile(`Created organization "Default" \(([0-9a-f-]{36})\)`).FindStringSubmatch(out)
		require.NotNil(t, m, "the bootstrap message names the organization: %s", out)
		orgID = m[1]
		keys := regexp.MustCompile(`svc_live_[A-Za-z0-9]{32}\b`).FindAllString(out, -1)
		require.NotEmpty(t, keys, "the bootstrap key is printed: %s", out)
		rawKey = keys[0]
		for _, k := range keys {
			assert.Equal(t, rawKey, k, "one key, printed once and in the curl example")
		}

		// The service host gets the API.
		status, body := srv.get(t, "localhost", "/v1/organizations/"+orgID, rawKey)
		require.Equal(t, http.StatusOK, status, "%s", body)
		var o map[string]any
		require.NoError(t, json.Unmarshal(body, &o))
		assert.Equal(t, orgID, o["id"])
		assert.Equal(t, "Default", o["name"])
		assert.Equal(t, "free", o["plan"])

		status, body = srv.get(t, "", "/v1/organizations/"+orgID, rawKey)
		assert.Equal(t, http.StatusOK, status, "127.0.0.1 is a service host too: %s", body)

		status, body = srv.get(t, "localhost", "/v1/organizations/"+orgID, "")
		assert.Equal(t, http.StatusUnauthorized, status, "%s", body)
		assertEnvelope(t, body, "UNAUTHORIZED")

		// The sign-in page is on the service host, not on link domains.
		status, body = srv.get(t, "localhost", "/login", "")
		assert.Equal(t, http.StatusOK, status, "%s", body)
		assert.Contains(t, string(body), `name="csrf_token"`)
		status, _ = srv.get(t, "hop.localhost", "/login", "")
		assert.Equal(t, http.StatusNotFound, status, "a link domain has no sign-in page")

		// The service host serves the MCP endpoint too.
		assertServesMCP(t, srv, rawKey, orgID)
		// And the OAuth authorization server.
		assertServesOAuth(t, srv)

		// Any other host is a link domain, even with a valid key; its 404
		// is an HTML page unless the client prefers JSON.
		status, body = srv.get(t, "hop.localhost", "/v1/organizations/"+orgID, rawKey)
		assert.Equal(t, http.StatusNotFound, status, "%s", body)
		assert.Contains(t, string(body), "<h1>Link not found</h1>")
		status, body = srv.get(t, "hop.localhost:8080", "/some-slug", "")
		assert.Equal(t, http.StatusNotFound, status, "%s", body)
		assert.Contains(t, string(body), "<h1>Link not found</h1>")

		// The server secret was created beside the database, not in the
		// working directory.
		info, err := os.Stat(secretPath)
		require.NoError(t, err, "hoplink.secret is created beside the database")
		assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
		assert.NoFileExists(t, filepath.Join(srv.dir, "hoplink.secret"))
		secret, err = os.ReadFile(secretPath)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, len(bytes.TrimSpace(secret)), 32)

		// The printed curl follows --addr's port (not 8080).
		_, port, err := net.SplitHostPort(srv.addr)
		require.NoError(t, err)
		assert.Contains(t, out, "http://localhost:"+port+"/v1/organizations/"+orgID)

		srv.stop(t)
		logs := srv.stderr.String()
		assert.NotContains(t, logs, "level=ERROR")
		assert.Contains(t, logs, `msg="creating a new SQLite database" path=`+db, "the database's full path is logged")
		// One access-log line per request, without the query string.
		assert.Regexp(t, `msg=request method=GET host=localhost path=/v1/organizations/`+orgID+
			` status=200 bytes=\d+ duration=\S+ request_id=[0-9a-f]{24}`, logs)
		// The stop says what became of the clicks.
		assert.Contains(t, logs, `msg="HTTP server stopped"`)
		assert.Regexp(t, `msg="click recorder stopped" accepted=\d+ written=\d+`, logs)
	})
	if orgID == "" {
		t.FailNow()
	}

	t.Run("a restart on the same database prints no new key", func(t *testing.T) {
		srv := startServe(t, bin, "--db", db)
		status, body := srv.get(t, "localhost", "/v1/organizations/"+orgID, rawKey)
		assert.Equal(t, http.StatusOK, status, "the first start's key still works: %s", body)
		srv.stop(t)

		out := srv.stdout.String()
		assert.NotContains(t, out, "svc_live_", "the database is not empty: no bootstrap")
		assert.NotContains(t, out, "Created organization")
		logs := srv.stderr.String()
		assert.Contains(t, logs, `msg="opening the SQLite database" path=`+db)
		assert.Contains(t, logs, "hoplink key create --db "+db+" --org ORG_ID", "says how to get a key when the bootstrap key is lost")
		assert.Contains(t, logs, "hoplink org list --db "+db)
		again, err := os.ReadFile(secretPath)
		require.NoError(t, err)
		assert.Equal(t, secret, again, "the secret survives a restart")
	})

	t.Run("--no-bootstrap on an empty database prints no key", func(t *testing.T) {
		freshDB := filepath.Join(t.TempDir(), "hoplink.db")
		srv := startServe(t, bin, "--db", freshDB, "--no-bootstrap")
		srv.stop(t)
		assert.NotContains(t, srv.stdout.String(), "svc_live_")

		// The database has no organization (exit status 0 and JSON).
		out, _, code := runBinary(t, bin, "org", "list", "--db", freshDB, "--json")
		assert.Equal(t, 0, code)
		assert.JSONEq(t, `{"data": []}`, out)
	})

	t.Run("a failing CLI command exits with status 1", func(t *testing.T) {
		out, _, code := runBinary(t, bin, "org", "get", "not-a-uuid", "--db", db, "--json")
		assert.Equal(t, 1, code)
		assertEnvelope(t, []byte(out), "INVALID_ID")

		out, _, code = runBinary(t, bin, "org", "get", orgID, "--db", db, "--json")
		assert.Equal(t, 0, code)
		assert.Contains(t, out, orgID)
	})

	t.Run("serve refuses to start on a bad configuration", func(t *testing.T) {
		_, errOut, code := runBinary(t, bin, "serve", "--db", filepath.Join(t.TempDir(), "x.db"), "--log-format", "xml")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "--log-format")

		_, errOut, code = runBinary(t, bin, "serve", "--db", "postgres://hoplink@127.0.0.1:1/hoplink")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "--secret-file", "PostgreSQL without a secret file is a clear error")

		missing := filepath.Join(t.TempDir(), "no-such-folder", "x.db")
		_, errOut, code = runBinary(t, bin, "serve", "--db", missing)
		assert.Equal(t, 1, code)
		assert.Equal(t, "hoplink: --db "+missing+": the folder "+filepath.Dir(missing)+" does not exist; create it first, or check the path\n", errOut)

		folder := t.TempDir()
		_, errOut, code = runBinary(t, bin, "serve", "--db", folder)
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "--db "+folder+" is a folder")
		assert.NotContains(t, errOut, "out of memory")
	})

	t.Run("serve fails to start when its address is taken", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer ln.Close()
		dir := t.TempDir()
		out, errOut, code := runBinary(t, bin, "serve", "--db", filepath.Join(dir, "x.db"), "--addr", ln.Addr().String())
		assert.Equal(t, 1, code, "a listen error fails the start\nstderr: %s", errOut)
		assert.Contains(t, errOut, "hoplink: cannot listen on "+ln.Addr().String()+": the address is in use")
		assert.Equal(t, 1, strings.Count(errOut, ln.Addr().String()), "said once: %s", errOut)
		assert.Contains(t, errOut, "--addr")
		assert.NotContains(t, errOut, "level=ERROR", "no fx internals: %s", errOut)
		assert.NotContains(t, errOut, "OnStart")
		assert.NotContains(t, out, "svc_live_", "a server that cannot listen bootstraps nothing")
		out, _, code = runBinary(t, bin, "org", "list", "--db", filepath.Join(dir, "x.db"), "--json")
		assert.Equal(t, 0, code)
		assert.JSONEq(t, `{"data": []}`, out)
	})
}

// buildHoplink builds this package's binary into a temporary directory.
func buildHoplink(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go command is not on PATH, so the hoplink binary cannot be built: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "hoplink")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command(goTool, "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// processEnv is this process's environment without HOPLINK_ variables, so
// that the binary runs on its flags and defaults alone.
func processEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOPLINK_") {
			env = append(env, kv)
		}
	}
	return env
}

// runBinary runs a short-lived hoplink command and returns its output and
// exit status. A command still running after processLimit is killed.
func runBinary(t *testing.T, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), processLimit)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = processEnv()
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		require.True(t, errors.As(err, &exit), "hoplink %v did not run: %v", args, err)
	}
	require.NoError(t, ctx.Err(), "hoplink %v did not finish within %v", args, processLimit)
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

func assertEnvelope(t *testing.T, body []byte, code string) {
	t.Helper()
	var env struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(body, &env), "not the error envelope: %s", body)
	assert.Equal(t, code, env.Error.Code, "%s", body)
	assert.NotEmpty(t, env.Error.Message, "%s", body)
}

// output collects a stream of the process and lets a test wait for text in it.
type output struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	grew chan struct{} // closed, and replaced, on every write
}

func newOutput() *output { return &output{grew: make(chan struct{})} }

// Write implements io.Writer.
func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf.Write(p)
	close(o.grew)
	o.grew = make(chan struct{})
	return len(p), nil
}

func (o *output) snapshot() (string, <-chan struct{}) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String(), o.grew
}

func (o *output) String() string {
	s, _ := o.snapshot()
	return s
}

// waitFor returns the stream once it holds want. It fails the test when the
// process exits first or processLimit passes.
func (o *output) waitFor(t *testing.T, srv *server, want string) string {
	t.Helper()
	limit := time.NewTimer(processLimit)
	defer limit.Stop()
	for {
		s, grew := o.snapshot()
		if strings.Contains(s, want) {
			return s
		}
		select {
		case <-grew:
		case <-srv.exited:
			if s = o.String(); strings.Contains(s, want) {
				return s
			}
			t.Fatalf("hoplink exited (%v) before printing %q\nstdout: %s\nstderr: %s", srv.waitErr, want, srv.stdout, srv.stderr)
		case <-limit.C:
			t.Fatalf("hoplink did not print %q within %v\nstdout: %s\nstderr: %s", want, processLimit, srv.stdout, srv.stderr)
		}
	}
}

// server is a running `hoplink serve` process.
type server struct {
	cmd            *exec.Cmd
	addr, dir      string
	stdout, stderr *output
	exited         chan struct{}
	waitErr        error // set before exited is closed
}

// startServe starts `hoplink serve` on a free port with args and returns once
// GET /healthz answers 200.
func startServe(t *testing.T, bin string, args ...string) *server {
	t.Helper()
	srv := runServe(t, bin, t.TempDir(), testkit.FreeAddr(t), args...)

	// The server logs "listening" once its socket is bound; then /healthz
	// must answer, within a bounded number of short attempts.
	srv.stderr.waitFor(t, srv, "msg=listening")
	client := &http.Client{Timeout: 2 * time.Second}
	var lastErr error
	for range 20 {
		resp, err := client.Get("http://" + srv.addr + "/healthz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return srv
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		lastErr = err
	}
	t.Fatalf("GET /healthz never answered 200: %v\nstderr: %s", lastErr, srv.stderr)
	return nil
}

// runServe starts `hoplink serve --addr addr` with args in dir, killed when
// t ends if it is still running, and returns at once.
func runServe(t *testing.T, bin, dir, addr string, args ...string) *server {
	t.Helper()
	srv := &server{addr: addr, dir: dir, stdout: newOutput(), stderr: newOutput(), exited: make(chan struct{})}
	srv.cmd = exec.Command(bin, append([]string{"serve", "--addr", addr}, args...)...)
	srv.cmd.Dir = dir
	srv.cmd.Env = processEnv()
	srv.cmd.Stdout, srv.cmd.Stderr = srv.stdout, srv.stderr
	require.NoError(t, srv.cmd.Start())
	go func() {
		srv.waitErr = srv.cmd.Wait()
		close(srv.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-srv.exited:
		default:
			_ = srv.cmd.Process.Kill()
			<-srv.exited
		}
	})
	return srv
}

// get sends GET path with Host host (the listen address when "") and, when
// key is set, the key as a bearer token.
func (srv *server) get(t *testing.T, host, path, key string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+srv.addr+path, nil)
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, body
}

// stop sends SIGTERM and requires a graceful exit with status 0.
func (srv *server) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, srv.cmd.Process.Signal(syscall.SIGTERM))
	limit := time.NewTimer(processLimit)
	defer limit.Stop()
	select {
	case <-srv.exited:
	case <-limit.C:
		t.Fatalf("hoplink did not exit within %v of SIGTERM\nstderr: %s", processLimit, srv.stderr)
	}
	require.NoError(t, srv.waitErr, "graceful shutdown exits with status 0\nstderr: %s", srv.stderr)
	assert.Equal(t, 0, srv.cmd.ProcessState.ExitCode())
}
