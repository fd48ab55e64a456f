// Package version says which build of Hoplink is running: the module
// version and the VCS revision the Go toolchain stamps into every binary
// (runtime/debug.ReadBuildInfo). The CLI's --version, GET /healthz and the
// MCP server's implementation info all read it from here, so that they
// never disagree.
//
// It imports nothing of the module and reads no clock.
package version
