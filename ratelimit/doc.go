// Package ratelimit owns Hoplink's request-rate limits (SPEC.md, Limits): 60
// requests per minute per API key on normal routes, 60 per minute per key per
// client IP on the three SDK routes, and a per-IP limit for unauthenticated
// requests. It counts requests in named buckets and reports what the
// X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset and Retry-After
// headers must say. It does not decide which bucket a request belongs to: the
// HTTP layer builds the bucket name ("key:<id>", "sdk:<id>:<client>",
// "ip:<client>") and calls a Limiter. Every per-client bucket names the
// client by clientip.Key: an IPv4 address by itself, an IPv6 address by its
// /64 network, since one IPv6 client can choose among 2^64 addresses.
//
// The rules every adapter applies (KeyRule, SDKRule, AnonymousRule) live
// here, and so does Check, the one HTTP helper: it counts a request, sets
// the headers and answers 429 with the error envelope, so that the REST API
// and the MCP endpoint limit requests the same way.
//
// Two implementations share one interface and one algorithm: Memory counts in
// this process (the all-in-one server, or a single replica), and Redis shares
// the counters among replicas (the --redis flag). They can run side by side
// during a migration and agree on every window.
//
// # Algorithm
//
// Both implementations use a fixed window aligned to the Unix epoch: the
// window of an instant t under a rule with window w has index
// floor(t.UnixNano() / w), starts at index*w and ends at (index+1)*w. Every
// replica therefore computes the same window from its own clock without any
// coordination, X-RateLimit-Reset is simply the time until the window ends,
// and the shared state is one integer per bucket and window (one INCR in
// Redis).
//
// The trade-off is the well-known fixed-window burst: a client can spend its
// whole allowance at the end of one window and again at the start of the
// next, so up to 2×Limit requests can pass within a short span straddling a
// boundary (120 in two seconds under the 60-per-minute rule). Over any whole
// window the average stays at Limit. A sliding window would smooth that edge
// at the cost of two counters per bucket and a less obvious Reset; the
// limits in SPEC.md protect capacity rather than meter usage precisely, so
// the simpler, cheaper and exactly reproducible rule was chosen.
//
// Replicas sharing Redis each read their own clock, so their clocks should be
// synchronised (NTP): a replica whose clock is off by d counts requests made
// within d of a boundary in the neighbouring window.
//
// # Counting refused requests
//
// Every call to Allow counts, including refused ones: the counter keeps
// increasing past Limit and Remaining is clamped at zero. A refused request
// therefore never earns anything back, and the counter needs no
// read-then-write. Because windows are fixed, hammering a bucket does not
// extend its penalty: the count starts again at zero when the next window
// begins.
//
// # Failures
//
// Memory never fails once the rule is valid. Redis returns an error wrapping
// ErrUnavailable when the server cannot be reached, times out or refuses the
// command. The recommended reaction, which the HTTP layer implements, is to
// fail open: serve the request without rate-limit headers and log the
// error, because an outage of a shared counter must not become an outage of
// the API. To bound what a slow server costs each request, pass Allow a
// context with a short deadline (a few hundred milliseconds); OpenRedis
// configures its client to honour it, and a deadline that expires is
// reported as ErrUnavailable too. ErrUnavailable is deliberately not errcode.ErrUnavailable, which
// turns into a 503.
//
// # Lockouts
//
// A Lockout counts failures rather than requests and locks a key for a
// growing time (LockoutRule): package account's failed sign-ins, and the
// wrong passwords of each password-protected link. MemoryLockout counts in
// this process; RedisLockout keeps the counts in Redis (it also implements
// account.Limiter without importing account): a hash per key with the
// failure count and the times of the last failure and of the lock's end,
// updated by one Lua script, so that replicas share lockouts. Both apply a
// rule alike, and RedisLockout fails open like the rate limits.
//
// # Imports
//
// This package imports the standard library, go-redis, errcode and
// errcode/httperr (for Check's 429 envelope) only. It must not import an
// adapter (httpapi, mcpserver), bunrouter, bun, store or fx: handlers depend
// on it, never the other way round, and it works without any of them.
package ratelimit
