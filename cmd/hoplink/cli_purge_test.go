package main

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One purge deletes the clicks older than the plan keeps (Free: 365 days)
// and clears the IP of those older than 7 days, and says so; a second
// finds nothing.
func TestPurge(t *testing.T) {
	db := newDB(t)
	id, _ := createOrg(t, db, "Acme")
	now := time.Now().UTC()
	seedClicks(t, db, uuid.MustParse(id), now.Add(-400*24*time.Hour), now.Add(-10*24*time.Hour), now.Add(-time.Hour))

	doc := ok(t, "", "purge", "--db", db, "--json")
	// The link has no app: its clicks are in segments only, one each
	// (they are hours apart), and no row of clicks.
	assert.Equal(t, map[string]any{"clicks_deleted": 0.0, "segments_deleted": 1.0, "installs_deleted": 0.0,
		"attempts_deleted": 0.0, "unstored_deleted": 0.0, "ips_cleared": 0.0, "install_ips_cleared": 0.0,
		"segment_ips_cleared": 1.0, "links_compacted": 0.0, "link_days_folded": 0.0}, doc)

	run := hoplink(t, "", "purge", "--db", db)
	require.NoError(t, run.err, run.stderr)
	assert.Contains(t, run.stdout, "clicks deleted:    0\n")
	assert.Contains(t, run.stdout, "IPs cleared:       0\n")
	assert.Contains(t, run.stdout, "click segments deleted: 0\n")
}
