package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/hoplink/hoplink/httpapi"
)

// prefix is the path prefix of the requests a Validator checks; every other
// request (/healthz, /readyz, link domains, /mcp) passes through unchecked.
const prefix = "/v1"

// errorComponents names the document's response component for each error
// status, used to check the answers to requests the document has no
// operation for (unknown paths, unsupported methods). Other statuses of 400
// and above are checked against the Error schema alone.
var errorComponents = map[int]string{
	http.StatusBadRequest:            "BadRequest",
	http.StatusUnauthorized:          "Unauthorized",
	http.StatusForbidden:             "Forbidden",
	http.StatusNotFound:              "NotFound",
	http.StatusMethodNotAllowed:      "MethodNotAllowed",
	http.StatusRequestEntityTooLarge: "PayloadTooLarge",
	http.StatusTooManyRequests:       "TooManyRequests",
	http.StatusInternalServerError:   "InternalError",
	http.StatusServiceUnavailable:    "ServiceUnavailable",
}

// maxBodyInMessage bounds how much of a response body a failure message quotes.
const maxBodyInMessage = 512

// Validator checks HTTP traffic against the OpenAPI document of the /v1 API.
// It is safe for concurrent use: one Validator may serve every request of a
// test, from any number of goroutines.
type Validator struct {
	t      testing.TB
	router routers.Router
	// unrouted is the pseudo-route that answers to requests without an
	// operation are checked against: the error response components by
	// status, and the Error schema for any other error status.
	unrouted *routers.Route
	opts     *openapi3filter.Options
	// events are the WebhookEvent schemas of the document's components,
	// by the event type their "type" property's enum names.
	events map[string]*openapi3.Schema
}

// NewValidator returns a Validator that reports to t. It loads the document
// that httpapi serves (httpapi.OpenAPI) and fails t at once when the document
// does not load or validate.
//
// The Validator matches requests by path alone, whatever their scheme and
// host, so it works with any httptest.NewServer address: the document's own
// servers (the development and production URLs) are replaced, in the
// Validator's private copy, by the single relative server "/v1".
func NewValidator(t testing.TB) *Validator {
	t.Helper()
	_, served, err := httpapi.OpenAPI()
	if err != nil {
		t.Fatalf("apitest: the OpenAPI document does not load: %v", err)
		return nil
	}
	// A private copy, loaded from the JSON that GET /v1/openapi.json serves:
	// httpapi.OpenAPI's document is shared and must not be changed.
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(served)
	if err != nil {
		t.Fatalf("apitest: the served OpenAPI JSON does not load: %v", err)
		return nil
	}
	doc.Servers = openapi3.Servers{{URL: prefix}}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatalf("apitest: cannot route the OpenAPI document: %v", err)
		return nil
	}
	unrouted, err := unroutedRoute(doc)
	if err != nil {
		t.Fatalf("apitest: %v", err)
		return nil
	}
	events, err := webhookEvents(doc)
	if err != nil {
		t.Fatalf("apitest: %v", err)
		return nil
	}
	return &Validator{
		t:        t,
		router:   router,
		unrouted: unrouted,
		events:   events,
		opts: &openapi3filter.Options{
			// The server checks keys; the document only says one is needed.
			AuthenticationFunc:                openapi3filter.NoopAuthenticationFunc,
			IncludeResponseStatus:             true,
			RejectWhenRequestBodyNotSpecified: true,
			// Validation must never change the request a test sends.
			SkipSettingDefaults: true,
			MultiError:          true,
			SchemaValidationOptions: []openapi3.SchemaValidationOption{
				// The messages name the failing path and reason; the
				// report quotes the body itself.
				openapi3.DisableSchemaErrorDetails(),
				// kin-openapi checks date-time by default but not uuid.
				openapi3.WithStringFormatValidators(map[string]openapi3.StringFormatValidator{
					"uuid": openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562),
				}),
			},
		},
	}
}

func unroutedRoute(doc *openapi3.T) (*routers.Route, error) {
	opts := make([]openapi3.NewResponsesOption, 0, len(errorComponents)+1)
	for status, name := range errorComponents {
		ref := doc.Components.Responses[name]
		if ref == nil || ref.Value == nil {
			return nil, fmt.Errorf("the OpenAPI document has no response component %q for status %d", name, status)
		}
		opts = append(opts, openapi3.WithStatus(status, ref))
	}
	schema := doc.Components.Schemas["Error"]
	if schema == nil {
		return nil, errors.New("the OpenAPI document has no Error schema")
	}
	opts = append(opts, openapi3.WithName("default", openapi3.NewResponse().
		WithDescription("Any other error.").
		WithContent(openapi3.NewContentWithJSONSchemaRef(schema))))
	return &routers.Route{
		Spec:      doc,
		PathItem:  &openapi3.PathItem{},
		Operation: &openapi3.Operation{Responses: openapi3.NewResponses(opts...)},
	}, nil
}

// webhookEventPrefix begins the name of every component schema of a
// webhook delivery's body.
const webhookEventPrefix = "WebhookEvent"

// webhookEvents maps every event type to the component schema of its
// body: each WebhookEvent schema with a "type" property names the types it
// describes in that property's enum; a type named by two schemas is an
// error.
func webhookEvents(doc *openapi3.T) (map[string]*openapi3.Schema, error) {
	events := map[string]*openapi3.Schema{}
	for name, ref := range doc.Components.Schemas {
		if !strings.HasPrefix(name, webhookEventPrefix) || ref == nil || ref.Value == nil {
			continue
		}
		typ := ref.Value.Properties["type"]
		if typ == nil || typ.Value == nil {
			continue // WebhookEventType, the list of types itself
		}
		for _, e := range typ.Value.Enum {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("schema %s: an event type that is not a string: %v", name, e)
			}
			if events[s] != nil {
				return nil, fmt.Errorf("event type %q has two WebhookEvent schemas", s)
			}
			events[s] = ref.Value
		}
	}
	return events, nil
}

// WebhookBody checks body, the request body of a webhook delivery, against
// the document's component schema for its "type" (the WebhookEvent schema
// whose type enum names it): a body that is not JSON, whose type has no
// schema, or that the schema refuses (a missing or extra field, a wrong
// type or format) fails the test.
func (v *Validator) WebhookBody(body []byte) {
	v.t.Helper()
	if err := v.validateWebhookBody(body); err != nil {
		v.t.Errorf("apitest: webhook body does not match the OpenAPI document: %v\nbody: %s", err, quote(body))
	}
}

func (v *Validator) validateWebhookBody(body []byte) error {
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	obj, _ := value.(map[string]any)
	typ, _ := obj["type"].(string)
	schema := v.events[typ]
	if schema == nil {
		return fmt.Errorf("no WebhookEvent schema for type %q", typ)
	}
	opts := append([]openapi3.SchemaValidationOption{openapi3.MultiErrors(), openapi3.VisitAsRequest()},
		v.opts.SchemaValidationOptions...)
	return schema.VisitJSON(value, opts...)
}

// For returns a Validator that shares v's document and reports to t
// instead: a scenario table can load the document once and report each
// scenario's failures to its own subtest.
func (v *Validator) For(t testing.TB) *Validator {
	c := *v
	c.t = t
	return &c
}

type offContractKey struct{}

// OffContract returns req marked as deliberately outside the document: an
// unknown path, an unsupported method, a malformed or invalid body, an
// unknown query parameter, and so on. The Validator does not check such a
// request, nor does it fail the test when the document has no operation for
// it; it still checks the answer: against the operation's documented
// responses when there is an operation, else, for a status of 400 or more,
// against the error response components (the Error envelope and headers).
func OffContract(req *http.Request) *http.Request {
	return req.WithContext(context.WithValue(req.Context(), offContractKey{}, true))
}

func isOffContract(ctx context.Context) bool {
	off, _ := ctx.Value(offContractKey{}).(bool)
	return off
}

// Client returns an HTTP client whose requests go through the Validator
// over http.DefaultTransport.
func (v *Validator) Client() *http.Client {
	return &http.Client{Transport: v.Transport(nil)}
}

// Transport returns a RoundTripper that checks every request under /v1 and
// its response against the document and sends it with base
// (http.DefaultTransport when nil). A mismatch is reported with t.Errorf,
// naming the method, path, status and the validation error; the response is
// returned to the caller either way, its body intact.
//
// Checked on a request: that the document has an operation for its method
// and path, its parameters (no undeclared or repeated query parameters), and
// its body (a JSON body of the documented schema, no body where none is
// documented). Checked on a response: that the operation documents its
// status, its headers, and its body against the documented schema.
func (v *Validator) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{v: v, base: base}
}

type transport struct {
	v    *Validator
	base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if p := req.URL.Path; p != prefix && !strings.HasPrefix(p, prefix+"/") {
		return tr.base.RoundTrip(req)
	}
	v := tr.v
	off := isOffContract(req.Context())

	// Read the body once, so that it can be both checked and sent.
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		body, err = io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("apitest: reading the request body: %w", err)
		}
	}
	send := withBody(req.Clone(req.Context()), body)

	// The request as the router and the validator see it: its path and
	// query only, matched against the document's relative server "/v1".
	check := withBody(req.Clone(req.Context()), body)
	check.URL = &url.URL{Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: req.URL.RawQuery}

	var reqErr error
	route, pathParams, routeErr := v.router.FindRoute(check)
	switch {
	case routeErr != nil && !off:
		reqErr = fmt.Errorf("the document has no operation %s %s (%v); mark the request with apitest.OffContract if it is off the contract on purpose",
			req.Method, req.URL.Path, routeErr)
	case routeErr == nil && !off:
		reqErr = v.validateRequest(check, route, pathParams)
	}

	resp, err := tr.base.RoundTrip(send)
	if err != nil {
		if reqErr != nil {
			v.t.Errorf("apitest: %s %s (no response): request does not match the OpenAPI document: %v\nrequest body: %s",
				req.Method, req.URL.Path, reqErr, quote(body))
		}
		return nil, err
	}

	respBody, readErr := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	if readErr != nil {
		// Hand the caller what arrived and the read error, as the
		// original body would have.
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(respBody), errReader{readErr}))
	}

	if reqErr != nil {
		v.t.Errorf("apitest: %s %s -> %d: request does not match the OpenAPI document: %v\nrequest body: %s",
			req.Method, req.URL.Path, resp.StatusCode, reqErr, quote(body))
	}
	if readErr != nil {
		v.t.Errorf("apitest: %s %s -> %d: reading the response body: %v", req.Method, req.URL.Path, resp.StatusCode, readErr)
		return resp, nil
	}

	if routeErr != nil {
		if resp.StatusCode < http.StatusBadRequest {
			return resp, nil
		}
		route, pathParams = v.unrouted, nil
	}
	if err := v.validateResponse(check, route, pathParams, resp, respBody); err != nil {
		v.t.Errorf("apitest: %s %s -> %d: response does not match the OpenAPI document: %v\nresponse body: %s",
			req.Method, req.URL.Path, resp.StatusCode, err, quote(respBody))
	}
	return resp, nil
}

func (v *Validator) validateRequest(req *http.Request, route *routers.Route, pathParams map[string]string) error {
	in := &openapi3filter.RequestValidationInput{
		Request:    req,
		PathParams: pathParams,
		Route:      route,
		Options:    v.opts,
	}
	err := openapi3filter.ValidateRequest(req.Context(), in)
	return errors.Join(err, strictQuery(req.URL.Query(), route))
}

// strictQuery reports query parameters the operation does not declare and
// repeated values of a parameter that is not an array: the server refuses
// both, so a request carrying them is not on the contract.
func strictQuery(query url.Values, route *routers.Route) error {
	declared := map[string]*openapi3.Parameter{}
	for _, params := range []openapi3.Parameters{route.PathItem.Parameters, route.Operation.Parameters} {
		for _, ref := range params {
			if p := ref.Value; p != nil && p.In == openapi3.ParameterInQuery {
				declared[p.Name] = p
			}
		}
	}
	names := make([]string, 0, len(query))
	for name := range query {
		names = append(names, name)
	}
	sort.Strings(names)
	var errs []error
	for _, name := range names {
		p, ok := declared[name]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("query parameter %q is not declared", name))
		case len(query[name]) > 1 && (p.Schema == nil || p.Schema.Value == nil || !p.Schema.Value.Type.Is(openapi3.TypeArray)):
			errs = append(errs, fmt.Errorf("query parameter %q is repeated", name))
		}
	}
	return errors.Join(errs...)
}

func (v *Validator) validateResponse(req *http.Request, route *routers.Route, pathParams map[string]string, resp *http.Response, body []byte) error {
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: pathParams,
			Route:      route,
			Options:    v.opts,
		},
		Status:  resp.StatusCode,
		Header:  resp.Header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: v.opts,
	}
	return openapi3filter.ValidateResponse(req.Context(), in)
}

// withBody gives req a fresh reader over body (no body when it is empty).
func withBody(req *http.Request, body []byte) *http.Request {
	if len(body) == 0 {
		req.Body, req.GetBody = http.NoBody, nil
		req.ContentLength = 0
		return req
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.ContentLength = int64(len(body))
	return req
}

func quote(body []byte) string {
	if len(body) > maxBodyInMessage {
		return string(body[:maxBodyInMessage]) + "..."
	}
	return string(body)
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
