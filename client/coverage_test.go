package client_test

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/client"
)

// notYet lists the /v1 operations that have no client method yet. It must
// shrink to empty; an operation that gains its method must leave it.
var notYet = map[string]bool{}

// methodName is the rule that names the method of an operation: its
// operationId with the first letter upper-cased (createLink is CreateLink).
func methodName(operationID string) string {
	return strings.ToUpper(operationID[:1]) + operationID[1:]
}

// v1Operations returns the operation ids of openapi.yaml by whether they
// live under /v1: a path with servers of its own (/mcp, the OAuth
// endpoints) lives beside /v1, on the service host, and is no part of this
// client.
func v1Operations(t *testing.T) (v1, beside []string) {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromFile("../httpapi/openapi.yaml")
	require.NoError(t, err)
	for path, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			require.NotEmpty(t, op.OperationID, path)
			if len(item.Servers) > 0 {
				beside = append(beside, op.OperationID)
			} else {
				v1 = append(v1, op.OperationID)
			}
		}
	}
	sort.Strings(v1)
	return v1, beside
}

// TestEveryOperationHasAMethod proves both ways that the client has one
// method per /v1 operation of openapi.yaml: every operation has its method
// (or is listed in notYet), and every method of Client but the iterators
// (All..., each beside its List... method) is an operation's.
func TestEveryOperationHasAMethod(t *testing.T) {
	v1, beside := v1Operations(t)
	require.NotEmpty(t, v1)
	typ := reflect.TypeFor[*client.Client]()
	ops := map[string]bool{}
	for _, id := range v1 {
		name := methodName(id)
		ops[name] = true
		_, has := typ.MethodByName(name)
		switch {
		case notYet[id] && has:
			t.Errorf("operation %s has its method %s: remove it from notYet", id, name)
		case !notYet[id] && !has:
			t.Errorf("operation %s has no method %s", id, name)
		}
	}
	for id := range notYet {
		assert.True(t, ops[methodName(id)], "notYet lists %s, which openapi.yaml does not have under /v1", id)
	}
	for _, id := range beside {
		_, has := typ.MethodByName(methodName(id))
		assert.False(t, has, "operation %s is not under /v1 and has no method", id)
	}
	for i := range typ.NumMethod() {
		name := typ.Method(i).Name
		if list, ok := strings.CutPrefix(name, "All"); ok {
			assert.True(t, ops["List"+list], "iterator %s walks no list operation List%s", name, list)
			continue
		}
		assert.True(t, ops[name], "method %s is no /v1 operation's", name)
	}
}

// TestErrorCodesMatchTheDocument proves that the Code constants are the
// ErrorCode enum of openapi.yaml, no more and no fewer.
func TestErrorCodesMatchTheDocument(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromFile("../httpapi/openapi.yaml")
	require.NoError(t, err)
	var want []string
	for _, v := range doc.Components.Schemas["ErrorCode"].Value.Enum {
		want = append(want, v.(string))
	}
	f, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, 0)
	require.NoError(t, err)
	var got []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || !strings.HasPrefix(vs.Names[0].Name, "Code") {
			return true
		}
		lit := vs.Values[0].(*ast.BasicLit)
		s, err := strconv.Unquote(lit.Value)
		require.NoError(t, err)
		got = append(got, s)
		return true
	})
	assert.ElementsMatch(t, want, got)
}

// TestImportsOnlyTheStandardLibrary proves DESIGN.md's rule for the
// client: depending on it brings no other module and nothing of the server.
func TestImportsOnlyTheStandardLibrary(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	require.NoError(t, err)
	require.NotEmpty(t, pkg.Imports)
	for _, imp := range pkg.Imports {
		first, _, _ := strings.Cut(imp, "/")
		assert.NotContains(t, first, ".", "%s is not in the standard library", imp)
	}
}
