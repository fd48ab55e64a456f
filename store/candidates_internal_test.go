package store

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParseSnapshot checks the reading of PostgreSQL's pg_snapshot text:
// the in-progress list may be empty, and anything else is an error, never
// a snapshot that would make the candidate index skip rows.
func TestParseSnapshot(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		xmax uint64
		xip  []string
	}{
		{"727:727:", 727, nil},
		{"10:20:10,14,15", 20, []string{"10", "14", "15"}},
	} {
		xmax, xip, err := parseSnapshot(c.in)
		require.NoError(t, err, c.in)
		require.Equal(t, c.xmax, xmax, c.in)
		require.Equal(t, c.xip, xip, c.in)
	}
	for _, bad := range []string{"", "10:20", "10::", "1:2:3:4", "10:x:", "10:20:11,", "-1:20:"} {
		_, _, err := parseSnapshot(bad)
		require.Error(t, err, bad)
	}
}
