package linking_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

var benchDBs = []struct {
	name string
	open func(testing.TB) *store.Store
}{
	{"sqlite", storetest.SQLite},
	{"postgres", storetest.Postgres},
}

// newBenchFixture is a link fixture on the Scale plan, so that the monthly
// link limit does not stop a benchmark.
func newBenchFixture(b *testing.B, s *store.Store) *linkFixture {
	f := newLinkFixture(b, s)
	f.org.Plan = org.PlanScale
	require.NoError(b, s.UpdateOrganization(b.Context(), f.org))
	return f
}

// BenchmarkCreateLink measures LinkService.Create with a generated slug:
// validation, the app count, the organization read, the domain rules, and
// one transaction that counts the month's links and inserts the link.
func BenchmarkCreateLink(b *testing.B) {
	for _, db := range benchDBs {
		b.Run(db.name, func(b *testing.B) {
			f := newBenchFixture(b, db.open(b))
			in := linking.CreateLinkInput{
				DestinationURL: "https://shop.example/spring?id=42",
				Name:           sp("Spring sale"),
				Tags:           []string{"spring", "email"},
				UTMSource:      sp("newsletter"),
			}
			ctx := b.Context()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.svc.Create(ctx, f.owner, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkListLinks measures one page of GET /links over 1,000 links of
// the organization: the page query and the count query.
func BenchmarkListLinks(b *testing.B) {
	for _, db := range benchDBs {
		b.Run(db.name, func(b *testing.B) {
			f := newBenchFixture(b, db.open(b))
			ctx := b.Context()
			for i := range 1000 {
				tags := []string{"batch"}
				if i%10 == 0 {
					tags = append(tags, "spring")
				}
				_, err := f.svc.Create(ctx, f.owner, linking.CreateLinkInput{
					DestinationURL: fmt.Sprintf("https://shop.example/p/%d", i), Slug: sp(fmt.Sprintf("link-%d", i)), Tags: tags,
				})
				require.NoError(b, err)
			}
			for _, bc := range []struct {
				name string
				in   linking.ListLinksInput
			}{
				{"first-page", linking.ListLinksInput{}},
				{"page-40", linking.ListLinksInput{Offset: ptrTo(780)}},
				{"tag", linking.ListLinksInput{Tag: sp("spring")}},
				{"search", linking.ListLinksInput{Search: sp("P/12")}},
			} {
				b.Run(bc.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, err := f.svc.List(ctx, f.owner, bc.in); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
