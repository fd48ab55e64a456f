package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/internal/app"
	"github.com/hoplink/hoplink/store"
)

// backupDoc is what `hoplink backup --json` prints.
type backupDoc struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}

// backupCommand is `hoplink backup`: a consistent copy of a live SQLite
// database, taken while the servers keep using it (docs/operating.md,
// Backups). It neither migrates nor creates the database: a backup must
// copy what is there, and a mistyped --db must not leave an empty file.
func (e *cliEnv) backupCommand() *cli.Command {
	return &cli.Command{
		Name: "backup",
		Usage: "copy a live SQLite database consistently into a new file (SQLite's VACUUM INTO) " +
			"while the servers keep running; for PostgreSQL use pg_dump",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "db", Value: "hoplink.db", EnvVars: []string{"HOPLINK_DB"},
				Usage: "the SQLite database file to copy"},
			&cli.StringFlag{Name: "out", Required: true, Usage: "the file to write the copy to; it must not exist unless --force"},
			&cli.BoolFlag{Name: "force", Usage: "replace --out when it exists"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			doc, err := e.backup(c)
			if err != nil {
				e.fail(c, err)
				return err
			}
			if c.Bool("json") {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(doc)
			}
			fmt.Fprintf(e.stdout, "Wrote %s (%d bytes).\n", doc.Path, doc.Bytes)
			return nil
		},
	}
}

func (e *cliEnv) backup(c *cli.Context) (*backupDoc, error) {
	if args, err := positional(c); err != nil {
		return nil, err
	} else if len(args) > 0 {
		return nil, errcode.Newf(errcode.ValidationError, "backup takes no arguments (got %q); name the copy with --out", args[0])
	}
	if !c.IsSet("out") || c.String("out") == "" {
		return nil, errcode.Field("out", "is required (--out)")
	}
	db := c.String("db")
	switch {
	case app.IsPostgresDSN(db):
		return nil, errcode.Field("db", "is a PostgreSQL database: back it up with pg_dump "+
			"(pg_dump --format=custom --file FILE DSN, see docs/operating.md)")
	case db == ":memory:" || db == "":
		return nil, errcode.Field("db", "must be a SQLite database file")
	}
	file := strings.TrimPrefix(db, "file:")
	file, _, _ = strings.Cut(file, "?")
	if !isSQLiteFile(file) {
		return nil, errcode.Field("db", fmt.Sprintf("%s is not a SQLite database file", file))
	}
	out, err := filepath.Abs(c.String("out"))
	if err != nil {
		return nil, errcode.Field("out", err.Error())
	}
	if info, err := os.Stat(out); err == nil && info.IsDir() {
		return nil, errcode.Field("out", out+" is a directory; name the file to write")
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, errcode.Field("out", err.Error())
	}
	if info, err := os.Stat(filepath.Dir(out)); err != nil || !info.IsDir() {
		return nil, errcode.Field("out", "the directory "+filepath.Dir(out)+" does not exist")
	}

	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	s, err := store.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	size, err := s.BackupSQLite(ctx, out, c.Bool("force"))
	if errors.Is(err, store.ErrBackupExists) {
		return nil, errcode.Field("out", out+" already exists; pass --force to replace it")
	}
	if err != nil {
		return nil, err
	}
	return &backupDoc{Path: out, Bytes: size}, nil
}

// sqliteHeader starts every SQLite database file (SQLite's file format,
// section 1.3).
const sqliteHeader = "SQLite format 3\x00"

// isSQLiteFile reports whether path is a regular file that starts with the
// SQLite header, so that a mistyped --db fails as the operator's mistake
// rather than as a database error.
func isSQLiteFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return false
	}
	head := make([]byte, len(sqliteHeader))
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == sqliteHeader
}
