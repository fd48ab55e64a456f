package store

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrBackupExists is returned by BackupSQLite when the backup file exists
// and overwrite was not asked for.
var ErrBackupExists = errors.New("store: the backup file already exists")

// BackupSQLite writes a consistent copy of a SQLite database to path with
// VACUUM INTO: one read transaction sees a single committed state of the
// database while the servers keep reading and writing it (WAL mode lets them).
// The copy is written beside path under a temporary name, synced, and then
// moved to path, so that path never holds a partial copy. An existing path
// is replaced only when overwrite is set; otherwise BackupSQLite returns an
// error wrapping ErrBackupExists and leaves it alone. It returns the size of
// the copy in bytes.
//
// BackupSQLite fails on PostgreSQL (back it up with pg_dump) and on an
// in-memory database.
func (s *Store) BackupSQLite(ctx context.Context, path string, overwrite bool) (int64, error) {
	if s.Dialect() != "sqlite" {
		return 0, errors.New("store: BackupSQLite backs up SQLite only; use pg_dump for PostgreSQL")
	}
	if s.keep != nil {
		return 0, errors.New("store: an in-memory database has nothing to back up")
	}
	if !overwrite {
		if _, err := os.Lstat(path); err == nil {
			return 0, fmt.Errorf("%w: %s", ErrBackupExists, path)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return 0, fmt.Errorf("store: backup: %w", err)
		}
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+rand.Text()+".tmp")
	defer os.Remove(tmp)
	if _, err := s.db.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		return 0, s.err("backup", err)
	}
	size, err := syncFile(tmp)
	if err != nil {
		return 0, fmt.Errorf("store: backup: %w", err)
	}
	if overwrite {
		err = os.Rename(tmp, path)
	} else {
		// A hard link fails when path exists, so a backup taken
		// meanwhile under the same name is never replaced.
		err = os.Link(tmp, path)
		if errors.Is(err, fs.ErrExist) {
			err = fmt.Errorf("%w: %s", ErrBackupExists, path)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("store: backup: %w", err)
	}
	if dir, err := os.Open(filepath.Dir(path)); err == nil {
		_ = dir.Sync()
		_ = dir.Close()
	}
	return size, nil
}

// syncFile flushes the file at path to disk and returns its size.
func syncFile(path string) (int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return 0, err
	}
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}
