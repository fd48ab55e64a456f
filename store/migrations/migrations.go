// Package migrations holds the schema migrations that store.Migrate runs.
//
// Each migration is a Go file named by timestamp (20261122000001_foundation.go)
// that registers itself in init. A migration uses bun's query builders and a
// frozen, unexported copy of every row it creates or changes, never today's
// models, so one file serves SQLite and PostgreSQL and keeps meaning the same
// thing as the code around it moves on. Each migration runs in one
// transaction; both databases roll DDL back with it.
//
// Every table whose rows belong to an organization references organizations
// (directly or through a parent row) with ON DELETE CASCADE, so that deleting
// an organization deletes everything it owns (see the store package doc).
//
// This package imports bun, uuid, geo (to derive what a new column holds for
// existing rows) and the standard library; only store imports it.
package migrations

import "github.com/uptrace/bun/migrate"

// Migrations is every schema migration, applied in name (timestamp) order.
var Migrations = migrate.NewMigrations()
