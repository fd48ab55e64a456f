// Package mcpserver is Hoplink's MCP server: a Streamable HTTP endpoint at
// POST /mcp on the service host, built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk), with typed tools that call the
// same service methods as their REST twins. A client that initializes gets
// a session that no replica owns (see Handler); every other request is
// served statelessly.
//
// # Tools
//
// Every tool is declared once, in the tools list of tools.go: its name,
// title, description, the scopes an OAuth token needs to call it, hints,
// argument type and docs, and what it runs; the tool list, the scope check
// and the SDK registration all read that list, and ToolNames returns the
// names. To add a tool, add one define call there.
// Each tool's input schema is inferred from its argument type, every
// property described; its arguments are decoded as strictly as the REST bodies
// (strictjson.DecodeObject), and its result is the REST response's JSON as
// structuredContent (and as text). A refused call (validation, not found,
// limits, role) is a tool error (isError) whose text is the SPEC.md error
// envelope, so it carries the code and the message. Every tool takes an
// optional org.
//
// # Authentication
//
// Our own middleware runs in front of the SDK's handler:
//
//   - a bearer starting with svc_live_ or svc_test_ is an API key, checked by
//     the REST API's auth.Authenticator and counted against the same per-key
//     rate limit; SDK keys get 403 SDK_KEY_ROUTE_FORBIDDEN;
//   - any other bearer is an OAuth access token, checked by an
//     auth.OAuthTokenVerifier against the canonical resource {public_url}/mcp;
//   - without credentials the answer is 401 with
//     WWW-Authenticate: Bearer resource_metadata="{public_url}/.well-known/oauth-protected-resource/mcp", scope="..."
//     listing Scopes (the union of the tools' scopes), the metadata URL on
//     the service host the request used (Handler.ResourceFor); a bad or
//     expired token adds error="invalid_token";
//   - an OAuth token without any scope a tools/call needs is refused with 403
//     and error="insufficient_scope", scope naming the tool's scopes. The
//     check reads the JSON-RPC body before the SDK does, so the refusal is the
//     HTTP answer to the tools/call request itself.
//
// A request that carries a JSON-RPC id counts against the key's or the
// connection's rate limit; notifications do not. Past the limit one
// tools/call is answered with a RATE_LIMIT_EXCEEDED tool error that says
// when to retry, any other request with 429.
//
// Browser requests from another origin are refused (net/http's
// CrossOriginProtection), except from Options.CORSOrigins. GET and DELETE
// answer 405 with Allow: POST. Initialize declares tools, prompts and
// resources without listChanged (Capabilities).
//
// # Organizations
//
// An API key acts for its own organization: org must be empty or its id. An
// OAuth connection made for one organization acts for that one; one made for
// all of the user's organizations needs org on every call, and the tool
// error lists the organizations the user may use. Membership and role are
// read on every call, so a removed member loses access at once. Either way
// the tool runs with an *auth.Principal: for OAuth, the user as creator, the
// current role, and the granted scopes that the role holds.
//
// mcpserver imports the services, the SDK and the leaf packages every
// adapter shares (errcode/httperr for the envelope, strictjson, clientip,
// ratelimit's rules and Check); it never imports httpapi, store or fx.
package mcpserver
