package oauth

import (
	"net/url"
	"testing"

	"github.com/ory/fosite"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedirectHost proves what the consent page shows as where the answer
// goes: the host of an http or https redirect, and the scheme (and host)
// of a private-use one, which has no host to show otherwise.
func TestRedirectHost(t *testing.T) {
	for raw, want := range map[string]string{
		"http://127.0.0.1:40000/cb":       "127.0.0.1:40000",
		"https://app.example/cb":          "app.example",
		"cursor://callback":               "cursor://callback",
		"com.example.app:/oauth2redirect": "com.example.app:",
	} {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		ar := fosite.NewAuthorizeRequest()
		ar.RedirectURI = u
		assert.Equal(t, want, redirectHost(ar), raw)
	}
}
