package geo_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestImports holds geo to its doc: the standard library and the two
// modules that carry the data and read the databases, nothing of the
// module it serves.
func TestImports(t *testing.T) {
	allowed := map[string]bool{
		"github.com/phuslu/iploc":                 true,
		"github.com/oschwald/maxminddb-golang/v2": true,
	}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			std := !strings.Contains(strings.SplitN(path, "/", 2)[0], ".")
			assert.True(t, std || allowed[path], "%s imports %s", name, path)
		}
		checked++
	}
	assert.Greater(t, checked, 3, "the package's files were read")
}
