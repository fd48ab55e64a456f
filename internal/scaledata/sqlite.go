package scaledata

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
)

// OpenSQLite returns a SQLite store at path holding the organization of
// cfg, and that organization: the one loaded there already when path holds
// an organization with cfg.Slug, else a fresh load (Load) into a temporary
// file beside path, renamed to path when complete, so that an interrupted
// load is never reused. opts are the options of the store returned, not of
// the load's. The store is migrated.
func OpenSQLite(ctx context.Context, path string, cfg Config, opts ...store.Option) (*store.Store, *org.Organization, error) {
	if _, err := os.Stat(path); err == nil {
		s, err := store.Open(ctx, path, opts...)
		if err != nil {
			return nil, nil, err
		}
		if err := s.Migrate(ctx); err != nil {
			_ = s.Close()
			return nil, nil, err
		}
		o, err := FindOrg(ctx, s, cfg.Slug)
		if err != nil {
			_ = s.Close()
			return nil, nil, err
		}
		if o != nil {
			cfg.logf("sqlite: reusing %s, loaded at %s", cfg.Slug, o.CreatedAt.UTC().Format(time.RFC3339))
			return s, o, nil
		}
		if err := s.Close(); err != nil {
			return nil, nil, err
		}
		cfg.logf("sqlite: %s holds no %s; loading again", path, cfg.Slug)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	tmp := path + ".loading"
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(tmp + suffix)
	}
	s, err := store.Open(ctx, tmp)
	if err != nil {
		return nil, nil, err
	}
	if err := s.Migrate(ctx); err != nil {
		_ = s.Close()
		return nil, nil, err
	}
	w, err := Load(ctx, s, cfg)
	if err != nil {
		_ = s.Close()
		return nil, nil, err
	}
	if err := s.Close(); err != nil {
		return nil, nil, err
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		_ = os.Remove(path + suffix)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, nil, err
	}
	s, err = store.Open(ctx, path, opts...)
	if err != nil {
		return nil, nil, err
	}
	return s, w.Org, nil
}
