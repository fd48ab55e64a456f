package ratelimit

import "time"

// The rules of SPEC.md's Limits that every adapter applies to its requests.
// The adapter names the bucket: "key:<key id>" for KeyRule (an OAuth
// connection counts as a key: "oauth:<connection id>"),
// "sdk:<key id>:<client>" for SDKRule and "ip:<client>" for AnonymousRule,
// where <client> is clientip.Key of the client address: an IPv4 address,
// or the /64 network of an IPv6 address.
var (
	// KeyRule limits each key on every route but the SDK routes.
	KeyRule = Rule{Limit: 60, Window: time.Minute}
	// SDKRule limits each key per client IP on the SDK routes.
	SDKRule = Rule{Limit: 60, Window: time.Minute}
	// AnonymousRule limits requests without a valid key per client IP.
	AnonymousRule = Rule{Limit: 60, Window: time.Minute}
)
