// Package app wires Hoplink's binaries together with fx: it turns flags and
// environment variables into a validated Config (config.go), opens the store
// and the server secret, and groups the constructors of every package into
// modules.
//
//   - Core: the store, the services (links, apps, domains, organizations,
//     team, invitations, parameters, accounts, audit, attribution) and the
//     caches that connect them.
//   - API: the /v1 REST handler (httpapi) with its health checks.
//   - OAuth and MCP: the authorization server's routes and the /mcp endpoint,
//     added to the service host.
//   - Server: the HTTP server started in a lifecycle hook, whose listen error
//     fails the start.
//
// APIService, RedirectService, AuthService and ServeAll choose the modules of
// each binary (cmd/hoplink-api, cmd/hoplink-redirect, cmd/hoplink-auth and
// hoplink serve); Options adds the configuration and the store to them. Ops
// serves the admin CLI's commands without an HTTP server.
//
// This package and cmd/ are the only places that import fx (DESIGN.md), and
// with cmd/ and examples/ the only ones that import httpapi or store; every
// package it wires has a plain constructor and works without it.
// imports_test.go checks those directions.
package app
