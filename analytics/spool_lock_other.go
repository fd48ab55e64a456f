//go:build !unix

package analytics

import (
	"fmt"
	"os"
)

// lockDir opens path. Where flock is not available the directory is not
// locked: the operator keeps one process per spool directory.
func lockDir(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("analytics: opening the click spool lock: %w", err)
	}
	return f, nil
}
