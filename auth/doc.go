// Package auth owns Hoplink's credentials and who may do what: the key format,
// key generation and SHA-256 hashing, scopes, roles and the role-permission
// matrix, the Principal of a request, the Authenticator that turns a bearer
// token into a Principal, and the Keys service.
//
// # Keys
//
// A key is "svc_live_" (or "svc_test_") followed by 32 letters and digits
// drawn from crypto/rand. Only its SHA-256 is stored; key_prefix holds the
// fixed prefix alone and the raw key is returned once, when it is created.
// API keys carry chosen scopes and an optional expiry; SDK keys carry the
// fixed scopes links:read and attribution:write, never expire, and may be
// tied to one app at creation. links:write includes links:read.
//
// # Authorization
//
// Every request passes two layers (SPEC.md, Authentication rule 8):
//
//  1. The key must carry the scope of the operation (403 FORBIDDEN).
//  2. A key with a creator (created_by, a team member) is checked against the
//     creator's current role through the matrix below; a creator who has left
//     the organization makes every request 403 FORBIDDEN. Keys without a
//     creator (bootstrap keys, keys made by the CLI) skip this layer.
//
// A key created through the API gets the creating key's creator. A key may
// never be created with a scope its creator's role lacks.
//
// The role-permission matrix ("own" means only resources the member created,
// or, for installs, installs of links the member created):
//
//	action          owner  admin  member
//	links.read      all    all    all
//	links.create    all    all    all
//	links.write     all    all    own     (update, delete, activate, move)
//	apps.read       all    all    all
//	apps.write      all    all    -
//	analytics.read  all    all    own
//	installs.read   all    all    own
//	attempts.read   all    all    -
//	keys.read       all    all    own
//	keys.write      all    all    own
//	domains.read    all    all    all
//	domains.write   all    all    -
//	org.read        all    all    all
//	org.write       all    all    -       (organization settings)
//	org.security    all    -      -       (security policy)
//	org.delete      all    -      -
//	team.read       all    all    all
//	team.write      all    all    -
//	owners.manage   all    -      -       (change, add or remove owners)
//	audit.read      all    all    -
//	webhooks.read   all    all    all
//	webhooks.write  all    all    -
//
// A role holds a scope when it has some reach on one of the scope's actions;
// so a member may hold links:write, analytics:read and keys:write, but not
// apps:write, domains:write, team:write, webhooks:write or org:delete.
//
// # Caching
//
// The Authenticator caches each key with its creator's role for at most two
// seconds (DefaultCacheTTL); the process that revokes a key or removes a
// member drops the entry at once, and every other replica within the TTL.
// last_used_at is written in the background at most once a minute per key.
// A key lookup that misses the cache runs under a deadline (StoreTimeout,
// one second by default): a stalled database makes the request fail with
// dbdeadline.ErrTimeout (503), never hang.
//
// The rule files (key.go, scope.go, role.go) are pure: they import the
// standard library only and read no clock. Nothing here imports store,
// httpapi, bun, fx or net/http.
package auth
