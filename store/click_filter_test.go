package store_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// Each analytics filter keeps exactly the clicks whose value equals it, in
// the window, of the organization asked for.
func TestClickFilters(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		withApp, plain := appAndPlainLinks(t, s, c, o.ID)
		tagged := newLink(c, o.ID, "hop.example", "tagged")
		tagged.Tags = []string{"spring", "sale"}
		createLink(t, s, tagged)
		other := createOrg(t, s, c, "other")
		strange := createLink(t, s, newLink(c, other.ID, "hop.example", "strange"))

		first := c.next()
		a := newClick(withApp, first) // ios, GB, newsletter/email/spring
		b := newClick(plain, c.next())
		b.Platform, b.Country, b.UTMSource, b.UTMMedium, b.UTMCampaign, b.Source = "android", "DE", "ads", "cpc", "winter", analytics.SourceAppOpen
		d := newClick(tagged, c.next())
		d.Platform, d.Country = "desktop", "US"
		late := newClick(plain, c.next().Add(time.Hour))
		foreign := newClick(strange, c.next())
		_, err := s.InsertClicks(ctx, []analytics.Click{a, b, d, late, foreign})
		require.NoError(t, err)

		w := analytics.Window{From: first, To: first.Add(time.Hour)}
		str := func(v string) *string { return &v }
		id := func(v uuid.UUID) *uuid.UUID { return &v }
		tests := []struct {
			name string
			f    analytics.Filter
			want int
		}{
			{"no filter keeps the window's clicks of the organization", analytics.Filter{}, 3},
			{"link_id", analytics.Filter{LinkID: id(plain.ID)}, 1},
			{"app_id", analytics.Filter{AppID: withApp.AppID}, 1},
			{"domain", analytics.Filter{Domain: str("hop.example")}, 2},
			{"tag", analytics.Filter{Tag: str("sale")}, 1},
			{"a tag no link carries", analytics.Filter{Tag: str("sal")}, 0},
			{"source", analytics.Filter{Source: str("app_open")}, 1},
			{"platform", analytics.Filter{Platform: str("desktop")}, 1},
			{"country", analytics.Filter{Country: str("GB")}, 1},
			{"utm_source", analytics.Filter{UTMSource: str("ads")}, 1},
			{"utm_medium", analytics.Filter{UTMMedium: str("email")}, 2},
			{"utm_campaign", analytics.Filter{UTMCampaign: str("winter")}, 1},
			{"filters combine", analytics.Filter{Domain: str("hop.example"), Country: str("US")}, 1},
			{"another organization's link finds nothing", analytics.Filter{LinkID: id(strange.ID)}, 0},
		}
		for _, tt := range tests {
			n, err := s.CountClicks(ctx, o.ID, w, tt.f)
			require.NoError(t, err)
			assert.Equal(t, tt.want, n, tt.name)
		}
		n, err := s.CountClicks(ctx, o.ID, analytics.Window{From: first, To: late.OccurredAt}, analytics.Filter{})
		require.NoError(t, err)
		assert.Equal(t, 3, n, "To is exclusive")
		n, err = s.CountClicks(ctx, o.ID, analytics.Window{From: first, To: late.OccurredAt.Add(time.Millisecond)}, analytics.Filter{})
		require.NoError(t, err)
		assert.Equal(t, 4, n)
	})
}
