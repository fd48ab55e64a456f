package main

import (
	"context"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
)

// seedClicks inserts a link of orgID and one click on it per time in at.
func seedClicks(t *testing.T, db string, orgID uuid.UUID, at ...time.Time) *linking.Link {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, db)
	require.NoError(t, err)
	defer s.Close()
	now := time.Now().UTC()
	l := &linking.Link{ID: uuid.Must(uuid.NewV7()), OrgID: orgID, Domain: "hop.localhost", Slug: "spring",
		DestinationURL: "https://example.com/spring", IsActive: true, Tags: []string{}, CreatedAt: now, UpdatedAt: now}
	require.NoError(t, s.CreateLink(ctx, l, linking.LinkQuota{}))
	clicks := make([]analytics.Click, len(at))
	for i, t := range at {
		clicks[i] = analytics.Click{ID: uuid.Must(uuid.NewV7()), OrgID: orgID, LinkID: l.ID, Domain: l.Domain,
			Slug: l.Slug, OccurredAt: t, Source: analytics.SourceRedirect, Platform: "android", Country: "DE",
			IP: "192.0.2.1", UserAgent: "Mozilla/5.0 (Linux; Android 15)", Referer: "@SUM(A1)"}
	}
	_, err = s.InsertClicks(ctx, clicks)
	require.NoError(t, err)
	return l
}

// Standard output is exactly the CSV, and standard error, not a terminal,
// gets no progress line.
func TestClicksExport(t *testing.T) {
	db := newDB(t)
	id, _ := createOrg(t, db, "Acme")
	orgID := uuid.MustParse(id)
	now := time.Now().UTC()
	l := seedClicks(t, db, orgID, now.Add(-3*time.Hour), now.Add(-2*time.Hour), now.Add(-40*24*time.Hour))

	run := hoplink(t, "", "clicks", "export", "--db", db, "--org", id)
	require.NoError(t, run.err, run.stderr)
	assert.Empty(t, run.stderr, "no progress when standard error is not a terminal")
	records, err := csv.NewReader(strings.NewReader(run.stdout)).ReadAll()
	require.NoError(t, err)
	require.Len(t, records, 3, "the header and the clicks of the last 30 days")
	assert.Equal(t, analytics.ExportColumns(), records[0])
	assert.Equal(t, l.ID.String(), records[1][1])
	assert.Equal(t, "'@SUM(A1)", records[1][12], "formula neutralised")
	assert.NotContains(t, run.stdout, "192.0.2.1")

	from := now.Add(-150 * time.Minute).Format(time.RFC3339)
	run = hoplink(t, "", "clicks", "export", "--db", db, "--org", id, "--from", from, "--country", "DE", "--link-id", l.ID.String())
	require.NoError(t, run.err, run.stderr)
	assert.Equal(t, 2, strings.Count(run.stdout, "\n"), "the header and one click")

	run = hoplink(t, "", "clicks", "export", "--db", db, "--org", id, "--country", "FR")
	require.NoError(t, run.err, run.stderr)
	assert.Equal(t, strings.Join(analytics.ExportColumns(), ",")+"\n", run.stdout, "a header without rows")
}

func TestClicksExportRefusals(t *testing.T) {
	db := newDB(t)
	id, _ := createOrg(t, db, "Acme")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no organization", []string{}, "--org"},
		{"a bad window and link", []string{"--org", id, "--from", "yesterday", "--link-id", "x"}, "link-id"},
		{"an unknown organization", []string{"--org", uuid.NewString()}, "not found"},
		{"the Free look-back", []string{"--org", id, "--from", time.Now().Add(-40 * 24 * time.Hour).Format(time.RFC3339)}, "30 days"},
	}
	for _, tt := range tests {
		run := hoplink(t, "", append([]string{"clicks", "export", "--db", db}, tt.args...)...)
		require.Error(t, run.err, tt.name)
		assert.Empty(t, run.stdout, tt.name)
		assert.Contains(t, run.stderr, tt.want, tt.name)
	}
}
