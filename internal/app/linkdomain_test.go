package app_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/internal/app"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestLinkDomainMovesOldAddressesToShortURLBase proves that the link-domain
// handler the binaries build sends an old address of a moved link to the
// link's short URL as --short-url-base builds it.
func TestLinkDomainMovesOldAddressesToShortURLBase(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	ctx := t.Context()
	o, _, err := org.NewService(s, org.ServiceOptions{}).Create(ctx, "Acme", org.PlanFree)
	require.NoError(t, err)
	now := time.Now().UTC().Truncate(time.Millisecond)
	l := &linking.Link{ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, Domain: "shop.hop.localhost", Slug: "spring-sale",
		DestinationURL: "https://shop.example/", IsActive: true, Tags: []string{}, CreatedAt: now, UpdatedAt: now}
	require.NoError(t, s.CreateLink(ctx, l, linking.LinkQuota{}))
	require.NoError(t, s.RecordOldAddress(ctx, &linking.OldAddress{Domain: "hop.localhost", Slug: "spring",
		LinkID: l.ID, OrgID: o.ID, BeganAt: now}))

	cfg := validConfig(t)
	cfg.ShortURLBase = "https://{domain}:8443"
	r := linking.NewResolver(s, linking.ResolverOptions{DefaultLinkDomain: cfg.DefaultLinkDomain})
	h := app.NewLinkDomain(app.LinkDomainDeps{Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Store: s,
		Secret: app.Secret(make([]byte, 32)), Resolver: r})

	req := httptest.NewRequest(http.MethodGet, "http://hop.localhost/spring?ref=mail", nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusMovedPermanently, rec.Code)
	assert.Equal(t, "https://shop.hop.localhost:8443/spring-sale?ref=mail", rec.Header().Get("Location"))
}
