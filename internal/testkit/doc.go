// Package testkit holds what the tests of many packages share: a settable
// clock, builders of auth principals, users whose passwords are cheap to
// check, a Redis client and key prefix of a test's own, and a free loopback
// address.
//
// Tests of any package in the module may import it, including internal
// tests (package x rather than x_test), so it imports only leaf packages
// (auth and identity with their own dependencies), go-redis and the
// standard library. It must not import store, httpapi, or any package that
// imports them; a fixture that needs a store takes the one small interface
// it uses.
package testkit
