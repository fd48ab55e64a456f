package auth_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/auth"
)

func TestEveryScopeOfTheSpecExists(t *testing.T) {
	want := []string{"links:read", "links:write", "apps:read", "apps:write", "analytics:read",
		"attribution:write", "keys:read", "keys:write", "domains:read", "domains:write",
		"org:read", "org:delete", "team:read", "team:write", "webhooks:read", "webhooks:write"}
	got := make([]string, len(auth.AllScopes))
	for i, s := range auth.AllScopes {
		got[i] = string(s)
		assert.True(t, s.Valid())
	}
	assert.Equal(t, want, got)
	assert.False(t, auth.Scope("links:admin").Valid())
}

func TestAttributionWriteIsNotRequestable(t *testing.T) {
	assert.False(t, auth.ScopeAttributionWrite.Requestable())
	assert.Len(t, auth.RequestableScopes, len(auth.AllScopes)-1)
	assert.True(t, auth.ScopeLinksRead.Requestable())
}

func TestNormalizeScopes(t *testing.T) {
	tests := []struct {
		name string
		in   []auth.Scope
		want []auth.Scope
	}{
		{"links:write includes links:read", []auth.Scope{"links:write"}, []auth.Scope{"links:read", "links:write"}},
		{"duplicates are dropped", []auth.Scope{"apps:read", "apps:read"}, []auth.Scope{"apps:read"}},
		{"order follows the spec", []auth.Scope{"team:read", "links:read"}, []auth.Scope{"links:read", "team:read"}},
		{"empty stays empty", nil, []auth.Scope{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, auth.NormalizeScopes(tt.in))
		})
	}
}

func TestScopeSet(t *testing.T) {
	set := auth.NewScopeSet([]auth.Scope{"links:read", "org:delete", "bogus"})
	assert.True(t, set.Has(auth.ScopeLinksRead))
	assert.True(t, set.Has(auth.ScopeOrgDelete))
	assert.False(t, set.Has(auth.ScopeLinksWrite))
	assert.False(t, set.Has("bogus"))
	assert.Equal(t, []auth.Scope{"links:read", "org:delete"}, set.Scopes())
	assert.Equal(t, "links:read org:delete", set.String())
}
