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
		s, cerr := createSecret(path)
		if !errors.Is(cerr, fs.ErrExist) {
			return s, cerr
		}
		// Another process beside the same database created it first.
		b, err = os.ReadFile(path)
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

// createSecret writes a new secret to path, which must not exist (an error
// wrapping fs.ErrExist when it does). The file appears whole or not at all:
// the secret is written to a temporary file that is then hard-linked to path,
// which, unlike a rename, fails when path exists, so two processes starting
// beside one database never overwrite or half-read each other's secret. It
// returns the secret as LoadSecret reads it back, the file's text without its
// newline, so the process that creates it uses the bytes of every later start.
func createSecret(path string) (Secret, error) {
	s, err := newSecret()
	if err != nil {
		return nil, err
	}
	text := hex.EncodeToString(s)
	tmp, err := os.CreateTemp(filepath.Dir(path), ".hoplink.secret-*") // mode 0600
	if err != nil {
		return nil, fmt.Errorf("creating the server secret %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(text + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), path)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			// A file system without hard links: still never overwrite.
			err = writeExclusive(path, text+"\n")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("creating the server secret %s: %w", path, err)
	}
	return Secret(text), nil
}

// writeExclusive writes text to path, which must not exist, with mode 0600.
func writeExclusive(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func newSecret() (Secret, error) {
	s := make([]byte, MinSecretBytes)
	if _, err := rand.Read(s); err != nil {
		return nil, err
	}
	return s, nil
}
