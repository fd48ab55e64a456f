// Package secretkey derives the keys Hoplink uses from the one server secret
// (DESIGN.md, --secret-file): one key per purpose, HMAC-SHA256(secret,
// purpose). The server secret holds 32 or more random bytes, so HMAC with it
// as the key is a sound key derivation (HKDF's extract step adds nothing
// when the input is already uniformly random), and keys of different
// purposes are independent: a key that signs cursors never signs cookies.
//
// A purpose names what the key is for and its version ("hoplink list
// cursor v1"). Changing a purpose string changes the key, which makes every
// value signed or sealed under the old one unreadable: add a new purpose
// instead and keep reading the old one for as long as such values live.
//
// This package imports the standard library only.
package secretkey
