// Package apitype holds the request and response conventions that every
// API operation shares (SPEC.md, Pagination and Limits): the pagination
// object of offset lists with the bounds of their limit and offset
// parameters, and Optional, the field of a PATCH body that tells an absent
// field from null and from a value. Services declare their inputs and pages
// with these types, so the REST API and the MCP tools read and write them
// alike and no service package copies them.
//
// This package imports the standard library and errcode only.
package apitype
