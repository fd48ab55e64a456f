// Package clientip finds the address of the client that sent an HTTP
// request (DESIGN.md, Client IP): the connection's peer, or the
// X-Forwarded-For chain only when the peer is one of the operator's trusted
// proxies (--trusted-proxies). Rate limits, password-attempt limits,
// attribution signals and audit events all read the client address this one
// way. Key names the client for every per-client limit: an IPv4 address by
// itself (an IPv4-mapped IPv6 address as its IPv4 address) and an IPv6
// address by its /64 network, so that one IPv6 subscriber cannot multiply a
// per-address limit by changing addresses within its network.
//
// This package imports the standard library only.
package clientip
