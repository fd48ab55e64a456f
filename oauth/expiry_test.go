package oauth_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestExpiredAccessTokenIsInvalidToken moves the stored expiry of an access
// token into the past (fosite reads the wall clock, so the harness clock
// cannot expire it) and checks that the MCP endpoint then answers 401
// invalid_token.
func TestExpiredAccessTokenIsInvalidToken(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *storeT) {
		h := newHarness(t, s)
		user, o := h.member(t, "Acme", auth.RoleOwner)
		b := h.browser(t)
		c := h.connect(t, b, user.Email, o.ID.String(), "links:read")
		mcp := func() response {
			req, err := http.NewRequest(http.MethodPost, h.public+"/mcp", strings.NewReader(
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+c.access)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			return b.do(req)
		}
		require.Equal(t, http.StatusOK, mcp().status, "the fresh token works")

		var rows []struct {
			Signature string `bun:"signature"`
			Request   string `bun:"request"`
		}
		ctx := t.Context()
		require.NoError(t, s.DB().NewSelect().Table("oauth_tokens").Column("signature", "request").
			Where("kind = ?", "access").Scan(ctx, &rows))
		require.Len(t, rows, 1)
		var req map[string]any
		require.NoError(t, json.Unmarshal([]byte(rows[0].Request), &req))
		sess := req["session"].(map[string]any)
		expires := sess["expires_at"].(map[string]any)
		require.Contains(t, expires, "access_token")
		expires["access_token"] = "2000-01-01T00:00:00Z"
		body, err := json.Marshal(req)
		require.NoError(t, err)
		_, err = s.DB().NewUpdate().Table("oauth_tokens").Set("request = ?", string(body)).
			Where("kind = ? AND signature = ?", "access", rows[0].Signature).Exec(ctx)
		require.NoError(t, err)

		_, err = h.oauth.VerifyAccessToken(ctx, c.access, h.public+"/mcp")
		require.ErrorIs(t, err, auth.ErrInvalidToken)
		res := mcp()
		assert.Equal(t, http.StatusUnauthorized, res.status)
		assert.Contains(t, res.header.Get("WWW-Authenticate"), `error="invalid_token"`)
	})
}
