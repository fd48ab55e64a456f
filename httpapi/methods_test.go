package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestWrongMethodsOnNestedRoutesAre405 proves that a route whose path
// parameter is followed by more path (/organizations/{id}/parameters,
// /security) answers a wrong method 405 with Allow, with or without a key,
// as every other resource does, instead of 404.
func TestWrongMethodsOnNestedRoutesAre405(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	var accounts *account.Service
	h := newHarness(t, s, withAccounts(t, &accounts), withAPI(func(h *harness, o *httpapi.Options) {
		o.Parameters = org.NewParameters(h.store, org.ParametersOptions{Clock: h.clock.Now})
	}))
	o := h.newOrg(t, "Acme")
	for _, sub := range []string{"/parameters", "/security"} {
		path := "/v1/organizations/" + o.ID.String() + sub
		assert.Equal(t, http.StatusOK, h.get(t, o.key.raw, path).status, "GET %s", path)
		for _, method := range []string{http.MethodPost, http.MethodPatch, http.MethodDelete} {
			for _, key := range []string{o.key.raw, ""} {
				resp := h.do(t, request{method: method, path: path, key: key, off: true})
				assertError(t, resp, http.StatusMethodNotAllowed, errcode.MethodNotAllowed)
				var allow []string
				for _, m := range strings.Split(resp.header.Get("Allow"), ",") {
					allow = append(allow, strings.TrimSpace(m))
				}
				assert.ElementsMatch(t, []string{"GET", "HEAD", "PUT"}, allow, "%s %s", method, path)
			}
		}
	}
	// A route that was right before stays right.
	resp := h.do(t, request{method: http.MethodPost, path: "/v1/organizations/" + o.ID.String(), key: o.key.raw, off: true})
	assertError(t, resp, http.StatusMethodNotAllowed, errcode.MethodNotAllowed)
}
