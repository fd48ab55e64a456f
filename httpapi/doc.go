// Package httpapi is Hoplink's HTTP adapter (DESIGN.md): the /v1 REST API on
// bunrouter with the middleware (request ids, recovery, client IP behind
// trusted proxies, key authentication, rate limits); the link-domain
// handler (redirects, previews, password pages, association files);
// HostRouter, which splits the two by Host; and the sign-in, account and
// dashboard pages of the service host.
// It translates HTTP into service calls and service errors into responses;
// business rules live in the services. It does not import store or fx.
//
// The conventions it shares with the other adapters live in leaf packages
// it imports: the error envelope and status table (errcode/httperr), strict
// JSON decoding (strictjson), the client IP (clientip), the key derivation
// from the server secret (secretkey), and the rate-limit rules with their
// HTTP helper (ratelimit).
//
// # Sign-in and account pages
//
// The pages' handlers (/login, /logout, /account, /account/2fa;
// account_pages.go and account_pages_render.go) live here rather than in a
// package of their own because they share what the link-password pages and
// the API already have: the router and its request ids and client IP, the
// length-prefixed HMAC fields. What they show is package web's: its
// templates, layout and stylesheet, and its security headers and CSP (no
// script at all); the handlers fill web's views and call web.Render.
// They are mounted on the API's root group (Options.AccountPages with
// Options.Accounts) and call package account for every rule; package audit
// records what they do. They need no JavaScript. The invitation
// acceptance pages (/invitations/{token}; invitation_pages.go) are served
// with them, with Options.Invitations and Options.Orgs, on the same
// sessions and CSRF tokens.
//
// # Dashboard
//
// The dashboard (/dashboard; dashboard.go and dashboard_links.go) is served
// with the account pages when Options.Links is set, on the same sessions,
// CSRF tokens and layout. Each request acts as the signed-in member's
// principal (the member's current role and the scopes it may hold) through
// the services the /v1 handlers call, never through those handlers.
package httpapi
