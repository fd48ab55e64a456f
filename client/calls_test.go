package client_test

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// succeeded records the /v1 operations the tests called on the real
// server with a 2xx answer, by "METHOD /v1/path" as the server saw them.
var succeeded = struct {
	sync.Mutex
	calls map[string]bool
}{calls: map[string]bool{}}

// recording is the transport of every test client of the real server.
type recording struct{}

func (recording) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && resp.StatusCode >= 200 && resp.StatusCode < 300 {
		succeeded.Lock()
		succeeded.calls[r.Method+" "+r.URL.EscapedPath()] = true
		succeeded.Unlock()
	}
	return resp, err
}

// TestMain runs the tests and then, when every test ran and passed,
// fails unless each /v1 operation of openapi.yaml succeeded at least once
// against the real server: every method has a test that really calls it.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && !testing.Short() {
		if missing, err := operationsNotCalled(); err != nil {
			fmt.Fprintln(os.Stderr, "reading openapi.yaml:", err)
			code = 1
		} else if len(missing) > 0 {
			fmt.Fprintln(os.Stderr, "no test called these operations with success on the real server:",
				strings.Join(missing, ", "))
			code = 1
		}
	}
	os.Exit(code)
}

// operationsNotCalled returns the /v1 operations no recorded call matches.
func operationsNotCalled() ([]string, error) {
	doc, err := openapi3.NewLoader().LoadFromFile("../httpapi/openapi.yaml")
	if err != nil {
		return nil, err
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	succeeded.Lock()
	defer succeeded.Unlock()
	var missing []string
	for path, item := range doc.Paths.Map() {
		if len(item.Servers) > 0 {
			continue
		}
		literal := param.Split(path, -1)
		for i := range literal {
			literal[i] = regexp.QuoteMeta(literal[i])
		}
		re := regexp.MustCompile("^/v1" + strings.Join(literal, `[^/]+`) + "$")
		for method, op := range item.Operations() {
			found := false
			for call := range succeeded.calls {
				m, p, _ := strings.Cut(call, " ")
				if m == method && re.MatchString(p) {
					found = true
					break
				}
			}
			if !found {
				missing = append(missing, op.OperationID)
			}
		}
	}
	sort.Strings(missing)
	return missing, nil
}
