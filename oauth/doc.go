// Package oauth is Hoplink's OAuth 2.1 authorization server for MCP clients,
// built on github.com/ory/fosite: the RFC 8414 and RFC 9728 metadata
// documents, RFC 7591 dynamic client registration, the authorization
// endpoint with its consent page (authorization code with PKCE S256 for
// every client, RFC 8707 resource indicators, RFC 9207 iss), the token
// endpoint (code and rotating refresh grants), RFC 7009 revocation,
// RFC 7662 introspection, the user's connections page, and
// VerifyAccessToken, the in-process check of access tokens that the MCP
// endpoint uses (auth.OAuthTokenVerifier).
//
// The protected-resource metadata of /mcp names the service host the
// client used (Server.ResourceFor), the root document names the origin
// (RFC 9728, section 3.3), and every token is issued for the canonical
// resource {public_url}/mcp. Options.Scopes narrows what the metadata
// offers and a consent grants to the scopes the MCP tools use. Public
// clients may register private-use URI scheme redirects (RFC 8252,
// section 7.1); any non-empty state is accepted.
//
// The OAuth endpoints answer with fosite's RFC 6749 error format, not the
// REST API's error envelope. Sign-in is the account pages' (/login): the
// package reads the browser's session through the Sessions interface and
// never issues a session of its own.
//
// Storage is the Store interface declared here (fosite's storage interfaces
// plus clients and connections); package store implements it. This package
// imports neither store nor fx nor httpapi.
package oauth
