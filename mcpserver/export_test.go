package mcpserver

import "github.com/hoplink/hoplink/auth"

// ToolScopes returns the scopes of tool name, for the snapshot test.
func ToolScopes(name string) []auth.Scope { return toolScopes[name] }
