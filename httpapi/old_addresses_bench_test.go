package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
)

// BenchmarkLinkDomainOldAddress measures the link-domain handler answering
// an old address of a moved link on a warm cache: the old address's entry,
// the link's own entry it leads to, and the 301 with its short body.
func BenchmarkLinkDomainOldAddress(b *testing.B) {
	s, o, _, r := benchLink(b, linking.CreateLinkInput{DestinationURL: "https://shop.example/p?id=1",
		Slug: apitype.Some("bench").Ptr()})
	ctx := context.Background()
	l, err := s.LinkByDomainSlug(ctx, linkDomain, "bench")
	require.NoError(b, err)
	require.NoError(b, s.RecordOldAddress(ctx, &linking.OldAddress{Domain: linkDomain, Slug: "bench-old",
		LinkID: l.ID, OrgID: o.ID, BeganAt: time.Now()}))
	h := httpapi.NewLinkDomain(httpapi.LinkDomainOptions{Resolver: r})

	req := httptest.NewRequest(http.MethodGet, "http://"+linkDomain+"/bench-old?utm_medium=social", nil)
	req.Header.Set("User-Agent", uaDesktop)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(b, http.StatusMovedPermanently, rec.Code, rec.Body.String())
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, req)
		if w.code != http.StatusMovedPermanently {
			b.Fatalf("status %d", w.code)
		}
	}
}
