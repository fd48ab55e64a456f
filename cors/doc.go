// Package cors answers CORS preflights (OPTIONS) and marks the answers of
// the service host's endpoints that browser-based clients call from other
// origins: the MCP endpoint, the OAuth metadata documents and the OAuth
// token and registration endpoints (Fetch Standard, "CORS protocol").
//
// A Handler wraps the service host's handler. Each Rule names exact paths,
// the origins allowed to call them ("*" for any), the methods and request
// headers allowed and the response headers exposed. For a path no rule
// covers the Handler does nothing. No rule allows credentials (cookies):
// these endpoints take bearer tokens or nothing, so a wildcard origin gives
// a page nothing that its user did not hand it.
//
// cors imports only the standard library; which paths get which origins is
// decided where the binaries are wired (internal/app).
package cors
