package app

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// MinSecretBytes is the least length of the server secret.
const MinSecretBytes = 32

// Secret is the server secret: it signs cursors, cookies and CSRF tokens,
// keys fosite's HMAC and encrypts secrets that must be shown again.
type Secret []byte

// SecretPath returns where the secret lives for cfg: --secret-file, or
// hoplink.secret beside a SQLite database file; "" for an in-memory database
// without --secret-file (the secret then lives only as long as the process).
func SecretPath(cfg Config) string {
	if cfg.SecretFile != "" {
		return cfg.SecretFile
	}
	if cfg.IsPostgres() || cfg.DB == ":memory:" {
		return ""
	}
	return filepath.Join(filepath.Dir(cfg.DB), "hoplink.secret")
}

// LoadSecret reads the server secret, creating it (64 hex characters from
// crypto/rand, mode 0600) when it does not exist and the database is SQLite.
// With PostgreSQL the file must exist.
func LoadSecret(cfg Config) (Secret, error) {
	path := SecretPath(cfg)
	if path == "" {
		if cfg.IsPostgres() {
			return nil, errors.New("--secret-file is required with PostgreSQL")
		}
		return newSecret()
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !cfg.IsPostgres() {
		s, err := newSecret()
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, []byte(hex.EncodeToString(s)+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("creating the server secret %s: %w", path, err)
		}
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the server secret %s: %w", path, err)
	}
	b = bytes.TrimSpace(b)
	if len(b) < MinSecretBytes {
		return nil, fmt.Errorf("the server secret %s is shorter than %d bytes", path, MinSecretBytes)
	}
	return Secret(b), nil
}

func newSecret() (Secret, error) {
	s := make([]byte, MinSecretBytes)
	if _, err := rand.Read(s); err != nil {
		return nil, err
	}
	return s, nil
}
