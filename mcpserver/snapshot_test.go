package mcpserver_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/mcpserver"
	"github.com/hoplink/hoplink/store/storetest"
)

var update = flag.Bool("update", false, "rewrite testdata/tools.json from the tools/list answer")

// toolSnapshot is what a client learns of a tool, and the scopes an OAuth
// token needs to call it.
type toolSnapshot struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Scopes      []auth.Scope    `json:"scopes"`
	Annotations json.RawMessage `json:"annotations"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// TestToolListSnapshot pins the tools/list answer (names, titles,
// descriptions, annotations, input schemas) and each tool's scopes to
// testdata/tools.json, so that a change to how tools are declared cannot
// change what clients see. Run with -update after a deliberate change.
func TestToolListSnapshot(t *testing.T) {
	h := newHarness(t, storetest.SQLite(t))
	o := h.newOrg(t, "Acme")
	res, err := h.session(t, o.key).ListTools(context.Background(), nil)
	require.NoError(t, err)
	var got []toolSnapshot
	for _, tool := range res.Tools {
		ann, err := json.Marshal(tool.Annotations)
		require.NoError(t, err)
		schema, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		got = append(got, toolSnapshot{Name: tool.Name, Title: tool.Title, Description: tool.Description,
			Scopes: mcpserver.ToolScopes(tool.Name), Annotations: ann, InputSchema: schema})
	}
	b, err := json.MarshalIndent(got, "", "  ")
	require.NoError(t, err)
	path := filepath.Join("testdata", "tools.json")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(b)+"\n", "byte for byte, property order included")
}
