package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
)

func httptestRequest(body string) *http.Request {
	return httptest.NewRequest(http.MethodPost, "/v1/keys", strings.NewReader(body))
}
