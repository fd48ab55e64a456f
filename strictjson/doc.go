// Package strictjson decodes request bodies and tool arguments strictly
// (SPEC.md, Validation): the input must be one JSON object, of at most
// MaxBodyBytes when read from a request, with every string in valid UTF-8
// (a \u escape of a lone UTF-16 surrogate, which encoding/json would turn
// into U+FFFD, is invalid too), no key twice in one object, no field the
// target lacks and every value of the right type. Failures are errcode
// errors the adapters answer as they answer any other: VALIDATION_ERROR
// with details.fields naming each bad field, or PAYLOAD_TOO_LARGE. The REST
// handlers and the MCP tools decode with it, so a body and a tool's
// arguments are refused alike.
//
// This package imports the standard library and errcode only.
package strictjson
