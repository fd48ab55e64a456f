// Package clientip finds the address of the client that sent an HTTP
// request (DESIGN.md, Client IP): the connection's peer, or the
// X-Forwarded-For chain only when the peer is one of the operator's trusted
// proxies (--trusted-proxies). Rate limits, password-attempt limits,
// attribution signals and audit events all read the client address this one
// way.
//
// This package imports the standard library only.
package clientip
