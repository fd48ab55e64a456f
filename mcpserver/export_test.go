package mcpserver

import "github.com/hoplink/hoplink/auth"

// ToolScopes returns the scopes of tool name, for the snapshot test.
func ToolScopes(name string) []auth.Scope {
	for _, t := range tools {
		if t.def.Name == name {
			return t.scopes
		}
	}
	return nil
}
