package httpapi_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/store/storetest"
)

// A secret in a path (an invitation token) never reaches the log: a panic
// is logged with the route pattern.
func TestLogsNameTheRouteNotThePath(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t-invitation-token"
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	// Routes are mounted on a server that authenticates its /v1 requests.
	authn := auth.NewAuthenticator(storetest.SQLite(t), auth.AuthenticatorOptions{Logger: log})
	api := httpapi.New(httpapi.Options{Authenticator: authn, Logger: log, Routes: []httpapi.Route{
		{Method: http.MethodGet, Path: "/invitations/:token", Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			panic("boom")
		})},
	}})

	for _, path := range []string{"/invitations/" + secret} {
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://localhost"+path, nil))
		require.Equal(t, http.StatusInternalServerError, rec.Code, path)
	}
	assert.Contains(t, logs.String(), "route=/invitations/:token")
	assert.NotContains(t, logs.String(), secret)
}
