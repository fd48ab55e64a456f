package app_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/internal/app"
)

const module = "github.com/hoplink/hoplink"

// wiring is where the edges of the module live: the fx graph, the
// binaries and the examples (DESIGN.md, Layout). A path ending in "/..."
// stands for the package and everything under it.
var wiring = []string{module + "/internal/app", module + "/cmd/...", module + "/examples/..."}

// importRule says which packages may import target (itself and the packages
// under it always may; so may tests, which go list -json's Imports leaves
// out).
type importRule struct {
	target string
	// by lists the packages allowed to import target.
	by  []string
	why string
}

// importRules are DESIGN.md's dependency directions that a refactoring can
// silently break.
var importRules = []importRule{
	{module + "/httpapi", wiring, "no adapter imports another adapter; shared conventions live in leaf packages"},
	// The benchmarks' tools, bench/... and the scale data they load through
	// store (internal/scaledata), are wiring of their own.
	{module + "/store", append([]string{module + "/bench/...", module + "/internal/scaledata"}, wiring...), "services depend on interfaces that store implements"},
	{"go.uber.org/fx", []string{module + "/internal/app", module + "/cmd/..."}, "every importable package works without fx"},
	{module + "/mcpserver", wiring, "no adapter imports another adapter"},
	// store implements oauth's fosite storage, as it implements every
	// service's Store interface.
	{module + "/oauth", append([]string{module + "/store"}, wiring...), "no adapter imports another adapter"},
	// The packages expose counters and hooks; one place registers them.
	{"github.com/prometheus/client_golang", []string{module + "/internal/app"}, "domain packages stay free of the metrics library"},
}

// leafImports are the module packages each leaf package may import: the
// conventions every adapter shares stay at the bottom of the graph.
var leafImports = map[string][]string{
	"errcode":         nil,
	"errcode/httperr": {"errcode"},
	"strictjson":      {"errcode"},
	"clientip":        nil,
	"secretkey":       nil,
	"cursor":          nil,
	"apitype":         {"errcode"},
	"params":          {"errcode"},
	"ratelimit":       {"errcode", "errcode/httperr"},
	"geo":             nil,
	"dbdeadline":      {"errcode"},
	"cors":            nil,
	// web renders pages from the views its callers fill: it knows no
	// service, store or adapter.
	"web":     nil,
	"version": nil,
	// client is for other modules: it imports no package of the server.
	"client": nil,
}

func allowed(pkg string, list []string) bool {
	for _, a := range list {
		if base, ok := strings.CutSuffix(a, "/..."); ok {
			if pkg == base || strings.HasPrefix(pkg, base+"/") {
				return true
			}
		} else if pkg == a {
			return true
		}
	}
	return false
}

// listPackages returns the module's packages with their non-test imports.
func listPackages(t *testing.T) map[string][]string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	cmd := exec.Command(goTool, "list", "-e", "-json=ImportPath,Imports", "./...")
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())

	pkgs := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var pkg struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&pkg); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		pkgs[pkg.ImportPath] = pkg.Imports
	}
	require.Greater(t, len(pkgs), 10, "go list listed the module's packages")
	return pkgs
}

// TestDependencyDirections fails when a package other than the wiring, the
// binaries and the examples imports the REST adapter (or store, fx or
// another adapter): adapters and services reach shared conventions through
// leaf packages instead.
func TestDependencyDirections(t *testing.T) {
	pkgs := listPackages(t)
	for _, rule := range importRules {
		for pkg, imports := range pkgs {
			if allowed(pkg, []string{rule.target + "/..."}) {
				continue
			}
			for _, imp := range imports {
				if allowed(imp, []string{rule.target + "/..."}) {
					assert.True(t, allowed(pkg, rule.by), "%s imports %s: %s", pkg, imp, rule.why)
				}
			}
		}
	}
}

// TestLeafPackagesStayLeaves fails when a leaf package gains an import of
// another module package than the few it is documented to use.
func TestLeafPackagesStayLeaves(t *testing.T) {
	pkgs := listPackages(t)
	for leaf, may := range leafImports {
		imports, ok := pkgs[module+"/"+leaf]
		require.True(t, ok, "%s is listed", leaf)
		for _, imp := range imports {
			rel, inModule := strings.CutPrefix(imp, module+"/")
			if inModule {
				assert.Contains(t, may, rel, "leaf package %s imports %s", leaf, imp)
			}
		}
	}
}

// TestAuthServiceBuildsNoRESTAPI proves that hoplink-auth's graph does not
// provide the REST API: asking for it fails, while hoplink-api's graph has
// it.
func TestAuthServiceBuildsNoRESTAPI(t *testing.T) {
	needAPI := fx.Invoke(func(*httpapi.API) {})
	auth := app.Options(validConfig(t), app.StoreOptions{Migrate: true}, app.AuthService(), needAPI)
	err := fx.ValidateApp(auth)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "*httpapi.API")

	api := app.Options(validConfig(t), app.StoreOptions{Migrate: true}, app.APIService(), needAPI)
	assert.NoError(t, fx.ValidateApp(api), "the check above must be able to pass")
}
