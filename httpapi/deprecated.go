package httpapi

import (
	"log/slog"
	"net/http"

	"github.com/hoplink/hoplink/clientip"
	"github.com/hoplink/hoplink/errcode/httperr"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/strictjson"
)

// These names moved to leaf packages that every adapter imports. They stay
// here only while mcpserver still reaches them through httpapi; delete this
// file once it imports the new homes.

// Envelope returns the error envelope of err with its HTTP status.
//
// Deprecated: use httperr.Envelope; kept until mcpserver moves.
var Envelope = httperr.Envelope

// WriteError writes err as the error envelope, logging an unexpected error
// with the request's route pattern and id.
//
// Deprecated: use httperr.Write; kept until mcpserver moves.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	writeError(w, r, log, err, "")
}

// DecodeObject decodes one JSON object strictly.
//
// Deprecated: use strictjson.DecodeObject; kept until mcpserver moves.
var DecodeObject = strictjson.DecodeObject

// MaxBodyBytes is the largest request body accepted.
//
// Deprecated: use strictjson.MaxBodyBytes; kept until mcpserver moves.
const MaxBodyBytes = strictjson.MaxBodyBytes

// ClientIP returns the address of the client of a request.
//
// Deprecated: use clientip.Of or clientip.FromRequest; kept until mcpserver moves.
var ClientIP = clientip.Of

// KeyRule limits each key on every route but the SDK routes.
//
// Deprecated: use ratelimit.KeyRule; kept until mcpserver moves.
var KeyRule = ratelimit.KeyRule

// AnonymousRule limits requests without a valid key per client IP.
//
// Deprecated: use ratelimit.AnonymousRule; kept until mcpserver moves.
var AnonymousRule = ratelimit.AnonymousRule
