package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/internal/testkit"
)

// walkthroughMarker starts the HTML comment that marks a README code block
// as part of the walkthrough TestREADMEWalkthrough runs.
const walkthroughMarker = "<!-- walkthrough"

// walkthroughBlocks returns, in order, the fenced blocks of the README
// text that the line just before marks with walkthroughMarker.
func walkthroughBlocks(readme string) ([]string, error) {
	var (
		blocks  []string
		marked  bool
		inBlock bool
		cur     strings.Builder
	)
	sc := bufio.NewScanner(strings.NewReader(readme))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case inBlock && strings.HasPrefix(line, "```"):
			blocks = append(blocks, cur.String())
			cur.Reset()
			inBlock = false
		case inBlock:
			cur.WriteString(line + "\n")
		case marked && strings.HasPrefix(line, "```"):
			inBlock, marked = true, false
		case marked:
			return nil, fmt.Errorf("a walkthrough marker is not followed by a code block but by %q", line)
		case strings.HasPrefix(line, walkthroughMarker):
			marked = true
		}
	}
	if inBlock || marked {
		return nil, fmt.Errorf("the last walkthrough block is not closed")
	}
	return blocks, sc.Err()
}

func TestWalkthroughBlocks(t *testing.T) {
	text := "intro\n```sh\nnot this\n```\n<!-- walkthrough -->\n```sh\necho one\necho two\n```\ntext\n<!-- walkthrough: x -->\n```sh\necho three\n```\n"
	blocks, err := walkthroughBlocks(text)
	require.NoError(t, err)
	assert.Equal(t, []string{"echo one\necho two\n", "echo three\n"}, blocks)
	_, err = walkthroughBlocks("<!-- walkthrough -->\ntext\n```sh\n```\n")
	assert.Error(t, err, "a marker must sit just above its block")
}

// TestREADMEWalkthrough runs the README's walkthrough as a reader pastes
// it: the binaries built as the README says, a fresh `hoplink serve` on a
// free loopback port (the README's port 8080 is replaced by it), and the
// marked blocks run in order by one bash with errexit, nounset and
// pipefail in the server's directory, so that a step that fails, or a
// variable a step does not set, fails the test.
func TestREADMEWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries and runs a server; skipped with -short")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the walkthrough is a bash script")
	}
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the walkthrough needs %s, which is not installed (.ci/run installs it)", tool)
		}
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	blocks, err := walkthroughBlocks(string(readme))
	require.NoError(t, err)
	require.NotEmpty(t, blocks, "the README marks its walkthrough")
	script := strings.Join(blocks, "\n")
	require.Contains(t, script, "localhost:8080", "the walkthrough talks to serve's default address")

	// The binaries, as the README builds them: go build -o bin/ ./cmd/...
	dir := t.TempDir()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go command is not on PATH: %v", err)
	}
	build := exec.Command(goTool, "build", "-o", filepath.Join(dir, "bin")+string(filepath.Separator), "./cmd/...")
	build.Dir = filepath.Join("..", "..")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	addr := testkit.FreeAddr(t)
	_, port, _ := strings.Cut(addr, ":")
	srv := startServeIn(t, filepath.Join(dir, "bin", "hoplink"), dir, addr)
	defer srv.stop(t)

	script = strings.ReplaceAll(script, "localhost:8080", "localhost:"+port)
	ctx, cancel := context.WithTimeout(context.Background(), processLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = processEnv()
	output, err := cmd.CombinedOutput()
	require.NoError(t, err, "the walkthrough failed:\n%s\nserver log:\n%s", output, srv.stderr)
	t.Logf("walkthrough output:\n%s", output)

	// What the README says the reader sees.
	text := string(output)
	assert.Contains(t, text, "http://acme-shop.hop.localhost:"+port+"/spring\n", "the short URL is on the app's subdomain and serve's port")
	assert.Contains(t, text, "302 https://shop.example/spring\n")
	assert.Contains(t, text, "\n1\n", "the password page has its password field")
	assert.Contains(t, text, "\n404\n", "a paused link is not served")
	assert.Contains(t, text, `"valid":true`)
	assert.True(t, strings.HasSuffix(text, "401\n"), "a revoked key no longer works: %s", text)
}

// startServeIn starts `hoplink serve` on addr in dir (its default database
// hoplink.db there, as a reader's checkout has it) and returns once it
// answers.
func startServeIn(t *testing.T, bin, dir, addr string) *server {
	t.Helper()
	srv := runServe(t, bin, dir, addr)
	srv.stdout.waitFor(t, srv, "Try it:")
	return srv
}
