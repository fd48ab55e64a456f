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

// mayImportHTTPAPI are the packages, besides httpapi and its own
// subpackages, whose non-test code may import httpapi: the wiring, the
// binaries and the examples (DESIGN.md, Layout). A path ending in "/..."
// allows everything under it.
var mayImportHTTPAPI = []string{
	module + "/internal/app",
	module + "/cmd/...",
	module + "/examples/...",
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

// TestOnlyTheWiringImportsHTTPAPI fails when a package other than the
// wiring, the binaries and the examples imports the REST adapter: adapters
// and services reach shared conventions through leaf packages instead.
func TestOnlyTheWiringImportsHTTPAPI(t *testing.T) {
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

	httpapiPath := module + "/httpapi"
	dec := json.NewDecoder(bytes.NewReader(out))
	seen := 0
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
		seen++
		if pkg.ImportPath == httpapiPath || strings.HasPrefix(pkg.ImportPath, httpapiPath+"/") {
			continue
		}
		for _, imp := range pkg.Imports {
			if imp == httpapiPath || strings.HasPrefix(imp, httpapiPath+"/") {
				assert.True(t, allowed(pkg.ImportPath, mayImportHTTPAPI), "%s imports %s", pkg.ImportPath, imp)
			}
		}
	}
	assert.Greater(t, seen, 10, "go list listed the module's packages")
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
