//go:build !linux

package analytics

import (
	"errors"
	"os"
)

// mapChunk is not available here: the spool appends with a write each.
func mapChunk(*os.File, int, bool) ([]byte, error) {
	return nil, errors.New("analytics: mapped spool chunks need Linux")
}

func unmapChunk(*os.File, []byte, int64) error { return nil }
