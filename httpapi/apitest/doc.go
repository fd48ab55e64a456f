// Package apitest holds the /v1 API's tests to its OpenAPI document
// (httpapi/openapi.yaml, the API contract of SPEC.md as implemented).
//
// A Validator wraps an http.RoundTripper: every request a test sends under
// /v1 through it is checked against the document before it is sent, and the
// answer is checked after it comes back (status documented for the
// operation, headers, body schema). A mismatch fails the test with
// t.Errorf, so a handler that drifts from the document, or a document that
// drifts from a handler, is caught by whichever test exercises it. Tests that
// send invalid requests on purpose mark them with OffContract:
//
//	srv := httptest.NewServer(api)
//	client := apitest.NewValidator(t).Client()
//
//	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/keys", nil)
//	req.Header.Set("Authorization", "Bearer "+rawKey)
//	resp, err := client.Do(req) // request and response checked
//
//	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/v1/keys", strings.NewReader(`{"name":`))
//	req.Header.Set("Content-Type", "application/json")
//	resp, err = client.Do(apitest.OffContract(req)) // only the 400 envelope checked
//
// The package is imported by tests only. It imports httpapi (for the
// document) and kin-openapi, and nothing of the services or the store.
package apitest
