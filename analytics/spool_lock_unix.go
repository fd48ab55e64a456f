//go:build unix

package analytics

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockDir opens path and takes an exclusive flock on it, which the kernel
// releases when the process ends, however it ends. It returns an error
// wrapping ErrSpoolLocked when another process holds it.
func lockDir(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("analytics: opening the click spool lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s (give each process its own --spool-dir)", ErrSpoolLocked, path)
		}
		return nil, fmt.Errorf("analytics: locking the click spool: %w", err)
	}
	return f, nil
}
