package auth_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// BenchmarkHashKey measures the SHA-256 of a presented key.
func BenchmarkHashKey(b *testing.B) {
	raw, err := auth.GenerateKey(nil, auth.LivePrefix)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		_ = auth.HashKey(raw)
	}
}

// BenchmarkAuthenticate measures one authentication: a cache hit, which
// touches no database, and a miss that looks the key and its creator's role
// up in SQLite and, when HOPLINK_TEST_POSTGRES is set, PostgreSQL.
func BenchmarkAuthenticate(b *testing.B) {
	b.Run("cache-hit", func(b *testing.B) {
		f := newFixture(b)
		k := f.issue(b, nil, "", auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:read"}})
		a := auth.NewAuthenticator(f.store, auth.AuthenticatorOptions{})
		benchAuthenticate(b, a, k.RawKey)
	})
	dbs := map[string]func(testing.TB) *store.Store{"sqlite": storetest.SQLite, "postgres": storetest.Postgres}
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run("lookup-"+name, func(b *testing.B) {
			s := dbs[name](b)
			orgs := org.NewService(s, org.ServiceOptions{})
			ctx := context.Background()
			o, _, err := orgs.Create(ctx, "Bench", org.PlanFree)
			require.NoError(b, err)
			u, err := orgs.CreateUser(ctx, "bench@example.com", "a long enough password")
			require.NoError(b, err)
			_, err = orgs.AddMember(ctx, o.ID, u.Email, auth.RoleAdmin)
			require.NoError(b, err)
			k, err := auth.NewKeys(s, auth.KeysOptions{}).CreateFor(ctx, o.ID, &u.ID, auth.RoleAdmin,
				auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:read"}})
			require.NoError(b, err)
			a := auth.NewAuthenticator(s, auth.AuthenticatorOptions{CacheTTL: -1})
			benchAuthenticate(b, a, k.RawKey)
		})
	}
}

func benchAuthenticate(b *testing.B, a *auth.Authenticator, raw string) {
	ctx := context.Background()
	header := "Bearer " + raw
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p, err := a.AuthenticateHeader(ctx, header)
		if err != nil || p == nil {
			b.Fatal(err)
		}
	}
}
