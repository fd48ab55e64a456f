package app_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/internal/app"
)

func TestLoadSecretCreatesItBesideSQLiteOnFirstStart(t *testing.T) {
	dir := t.TempDir()
	cfg := app.Config{DB: filepath.Join(dir, "hoplink.db")}
	path := filepath.Join(dir, "hoplink.secret")
	assert.Equal(t, path, app.SecretPath(cfg))

	first, err := app.LoadSecret(cfg)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(first), app.MinSecretBytes)

	info, err := os.Stat(path)
	require.NoError(t, err, "the secret file is created beside the database")
	if runtime.GOOS != "windows" {
		assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "only the owner may read the secret")
	}
	content, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(strings.TrimSpace(string(content))), app.MinSecretBytes)

	second, err := app.LoadSecret(cfg)
	require.NoError(t, err)
	assert.Equal(t, first, second, "the second start must use the secret of the first")

	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, content, after, "the second start leaves the file alone")
}

func TestLoadSecretReadsAGivenFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "secret")
	written := "  " + strings.Repeat("k", 40) + "\n"
	require.NoError(t, os.WriteFile(path, []byte(written), 0o600))

	s, err := app.LoadSecret(app.Config{DB: filepath.Join(dir, "data.db"), SecretFile: path})
	require.NoError(t, err)
	assert.Equal(t, app.Secret(strings.Repeat("k", 40)), s, "surrounding space is not part of the secret")
	_, err = os.Stat(filepath.Join(dir, "hoplink.secret"))
	assert.ErrorIs(t, err, os.ErrNotExist, "--secret-file replaces the default beside the database")
}

func TestLoadSecretCreatesAMissingSecretFileForSQLite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "custom.secret")
	cfg := app.Config{DB: filepath.Join(dir, "data.db"), SecretFile: path}

	first, err := app.LoadSecret(cfg)
	require.NoError(t, err)
	second, err := app.LoadSecret(cfg)
	require.NoError(t, err)
	assert.Equal(t, first, second)
	_, err = os.Stat(path)
	assert.NoError(t, err)
}

func TestLoadSecretRefusesAShortSecret(t *testing.T) {
	tests := []struct {
		name    string
		content string
	}{
		{name: "empty file", content: ""},
		{name: "31 bytes", content: strings.Repeat("a", app.MinSecretBytes-1)},
		{name: "31 bytes padded with space to more than 32", content: "\n  " + strings.Repeat("a", app.MinSecretBytes-1) + "  \n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "hoplink.secret"), []byte(tt.content), 0o600))
			_, err := app.LoadSecret(app.Config{DB: filepath.Join(dir, "hoplink.db")})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "shorter than 32 bytes")

			after, err := os.ReadFile(filepath.Join(dir, "hoplink.secret"))
			require.NoError(t, err)
			assert.Equal(t, tt.content, string(after), "a short secret is refused, never replaced")
		})
	}
}

func TestLoadSecretInMemoryNeedsNoFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cfg := app.Config{DB: ":memory:"}
	assert.Empty(t, app.SecretPath(cfg))

	s, err := app.LoadSecret(cfg)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(s), app.MinSecretBytes)

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "an in-memory database writes no secret file")

	other, err := app.LoadSecret(cfg)
	require.NoError(t, err)
	assert.NotEqual(t, s, other, "each in-memory process draws its own secret")
}

func TestLoadSecretPostgresRequiresTheFile(t *testing.T) {
	const dsn = "postgres://u:p@db:5432/hoplink"

	t.Run("without --secret-file", func(t *testing.T) {
		cfg := app.Config{DB: dsn}
		assert.Empty(t, app.SecretPath(cfg), "no default path beside a PostgreSQL database")
		_, err := app.LoadSecret(cfg)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "--secret-file")
	})

	t.Run("a missing file is not created", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "secret")
		_, err := app.LoadSecret(app.Config{DB: dsn, SecretFile: path})
		require.Error(t, err)
		_, statErr := os.Stat(path)
		assert.ErrorIs(t, statErr, os.ErrNotExist, "replicas must share one secret, so none invents its own")
	})

	t.Run("an existing file is read", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "secret")
		secret := "c2hhcmVkIGJ5IGV2ZXJ5IHJlcGxpY2Egb2YgdGhlIHNlcnZpY2U="
		require.NoError(t, os.WriteFile(path, []byte(secret+"\n"), 0o600))
		s, err := app.LoadSecret(app.Config{DB: "postgresql://db/hoplink", SecretFile: path})
		require.NoError(t, err)
		assert.Equal(t, app.Secret(secret), s)
	})
}

func TestLoadSecretConcurrentFirstStartsAgree(t *testing.T) {
	// Several binaries started at once beside one new SQLite file (hoplink-api
	// and hoplink-redirect, say) must end up with one secret.
	cfg := app.Config{DB: filepath.Join(t.TempDir(), "hoplink.db")}
	const n = 8
	secrets := make([]app.Secret, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			secrets[i], errs[i] = app.LoadSecret(cfg)
		}()
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		assert.Equal(t, secrets[0], secrets[i], "start %d", i)
	}
	final, err := app.LoadSecret(cfg)
	require.NoError(t, err)
	assert.Equal(t, secrets[0], final)

	entries, err := os.ReadDir(filepath.Dir(cfg.DB))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")
	assert.Equal(t, "hoplink.secret", entries[0].Name())
}
