package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/netip"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/clientip"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/ratelimit"
)

var (
	errNotFound         = errcode.New(errcode.NotFound, "no such resource")
	errMethodNotAllowed = errcode.New(errcode.MethodNotAllowed, "this method is not allowed here")
	errSDKRoute         = errcode.New(errcode.SDKKeyRouteForbidden, "SDK keys may call only the SDK routes")
)

type ctxKey int

const (
	principalKey ctxKey = iota
	requestIDKey
	clientIPKey
)

// PrincipalFrom returns the authenticated principal of a request's context.
func PrincipalFrom(ctx context.Context) *auth.Principal {
	p, _ := ctx.Value(principalKey).(*auth.Principal)
	return p
}

// RequestID returns the request id of a request's context.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// ClientIPFrom returns the client address of a request's context.
func ClientIPFrom(ctx context.Context) netip.Addr {
	a, _ := ctx.Value(clientIPKey).(netip.Addr)
	return a
}

// requestID gives every request an id, kept from a well-formed X-Request-Id
// header or made anew, echoes it, and records the client address.
func (a *API) requestID(next bunrouter.HandlerFunc) bunrouter.HandlerFunc {
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		id := req.Header.Get("X-Request-Id")
		if !validRequestID(id) {
			var b [12]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", id)
		ip := clientip.FromRequest(req.Request, a.opts.TrustedProxies)
		ctx := context.WithValue(req.Context(), requestIDKey, id)
		ctx = context.WithValue(ctx, clientIPKey, ip)
		return next(w, req.WithContext(ctx))
	}
}

func validRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// recoverer turns a panic into 500 INTERNAL_ERROR and logs it with its stack.
func (a *API) recoverer(next bunrouter.HandlerFunc) bunrouter.HandlerFunc {
	return func(w http.ResponseWriter, req bunrouter.Request) (err error) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				a.log.ErrorContext(req.Context(), "panic serving request", "route", logRoute(req.Request, req.Route()),
					"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				writeError(w, req.Request, nil, errcode.New(errcode.InternalError, "an unexpected error occurred"), "")
				err = nil
			}
		}()
		return next(w, req)
	}
}

// authenticate authenticates a /v1 request, refuses SDK keys outside the SDK
// routes, applies the rate limits and sets their headers. A request without
// a valid key is limited per client IP before it is refused with 401.
func (a *API) authenticate(next bunrouter.HandlerFunc) bunrouter.HandlerFunc {
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		route := req.Route()
		if !slices.Contains(a.allowed(route), req.Method) {
			// A wrong method is 405 before any 401.
			return a.methodNotAllowed(w, req)
		}
		ctx := req.Context()
		ip := ClientIPFrom(ctx)
		header := req.Header.Get("Authorization")
		p, err := a.opts.Authenticator.AuthenticateHeader(ctx, header)
		if err != nil {
			// Without a valid key (or when it cannot be checked) the client
			// IP's allowance applies.
			if a.limit(w, req.Request, "ip:"+clientip.Key(ip), ratelimit.AnonymousRule) {
				if errcode.CodeOf(err) == errcode.Unauthorized {
					err = unauthorized(w, header)
				}
				writeError(w, req.Request, a.log, err, "")
			}
			return nil
		}
		sdkRoute := a.isSDKRoute(req.Method, route)
		bucket, rule := "key:"+p.KeyID.String(), ratelimit.KeyRule
		if sdkRoute {
			bucket, rule = "sdk:"+p.KeyID.String()+":"+clientip.Key(ip), ratelimit.SDKRule
		}
		if !a.limit(w, req.Request, bucket, rule) {
			return nil
		}
		if p.Type == auth.KeyTypeSDK && !sdkRoute {
			writeError(w, req.Request, a.log, errSDKRoute, "")
			return nil
		}
		return next(w, req.WithContext(context.WithValue(ctx, principalKey, p)))
	}
}

// The 401 answers of /v1: each says what was wrong with the Authorization
// header, and only that. An unknown, revoked or expired key is one answer
// (SPEC.md, Authentication rule 2: they are indistinguishable).
var (
	errKeyMissing = errcode.New(errcode.Unauthorized,
		"missing API key: send the header Authorization: Bearer <API_KEY>")
	errKeyMalformed = errcode.New(errcode.Unauthorized,
		"malformed Authorization header: expected Bearer followed by a key that starts with svc_live_ or svc_test_")
	errKeyInvalid = errcode.New(errcode.Unauthorized,
		"the API key is not valid: it is unknown, revoked or expired")
)

// unauthorized sets the WWW-Authenticate challenge of a 401 on /v1 (RFC
// 6750 section 3: no error code when no credentials came, invalid_request
// for a malformed header, invalid_token for a key that does not
// authenticate) and returns the error that says which of the three it was.
func unauthorized(w http.ResponseWriter, header string) error {
	challenge, err := `Bearer realm="hoplink"`, errKeyInvalid
	token, ok := auth.BearerToken(header)
	switch {
	case strings.TrimSpace(header) == "":
		err = errKeyMissing
	case !ok:
		challenge, err = challenge+`, error="invalid_request"`, errKeyMalformed
	default:
		if _, ok := auth.KeyPrefix(token); !ok {
			challenge, err = challenge+`, error="invalid_token"`, errKeyMalformed
		} else {
			challenge += `, error="invalid_token"`
		}
	}
	w.Header().Set("WWW-Authenticate", challenge)
	return err
}

// limit counts the request against bucket and sets the rate-limit headers
// (ratelimit.Check); when the bucket is spent it writes 429 and returns
// false.
func (a *API) limit(w http.ResponseWriter, r *http.Request, bucket string, rule ratelimit.Rule) bool {
	return ratelimit.Check(w, r, a.opts.Limiter, a.log, bucket, rule)
}
