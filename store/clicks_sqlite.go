package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// On SQLite a batch of clicks is written row by row through one prepared
// statement, bound and stepped at the driver's level (sql.Conn.Raw) on the
// connection of the batch's transaction. This is the cheapest way the
// pure-Go driver offers: a multi-row INSERT's text is parsed and compiled
// into a program holding every value (a third of the writer's time went
// there), and database/sql's statements add a goroutine per execution that
// watches the context. The statement is prepared once per batch; the
// context is checked between rows.
//
// The values are bound as bun's SQLite dialect writes them (UUIDs as their
// text form, times as UTC "2006-01-02 15:04:05.999999-07:00" text), so rows
// read back through bun are the same.

// clickInsertColumns lists the columns in the order clickArgs binds them.
// claimed_by_install is left to its default, NULL.
var clickInsertColumns = [...]string{
	"id", "org_id", "link_id", "app_id", "domain", "slug", "occurred_at", "source", "platform",
	"os", "os_version", "device_model", "browser", "in_app_browser", "ip", "ip_key", "user_agent",
	"accept_language", "referer", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "tap_id",
}

// clickInsertSQL inserts one click and skips it when its id or its
// (org_id, tap_id) exists already.
var clickInsertSQL = func() string {
	var b strings.Builder
	b.WriteString(`INSERT INTO "clicks" (`)
	for i, c := range clickInsertColumns {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q", c)
	}
	b.WriteString(") VALUES (")
	b.WriteString(strings.TrimSuffix(strings.Repeat("?,", len(clickInsertColumns)), ","))
	b.WriteString(") ON CONFLICT DO NOTHING")
	return b.String()
}()

// sqliteTimeFormat is how bun's SQLite dialect writes a time.
const sqliteTimeFormat = "2006-01-02 15:04:05.999999-07:00"

// clickCheckEvery is how many rows are inserted between two looks at the
// context.
const clickCheckEvery = 64

// insertClickRowsSQLite inserts rows on conn, which must be the connection
// of the transaction the caller has open, and reports which rows it
// inserted (inserted[i] for rows[i]); a row whose id or (org_id, tap_id)
// exists already is skipped.
func insertClickRowsSQLite(ctx context.Context, conn bun.Conn, rows []clickRow) (inserted []bool, err error) {
	inserted = make([]bool, len(rows))
	err = conn.Raw(func(dc any) error {
		prep, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("sqlite driver connection %T cannot prepare with a context", dc)
		}
		// The driver watches a cancellable context with a goroutine per
		// call; the context is checked here instead.
		bg := context.Background()
		st, err := prep.PrepareContext(bg, clickInsertSQL)
		if err != nil {
			return err
		}
		defer st.Close()
		exec, ok := st.(driver.StmtExecContext)
		if !ok {
			return fmt.Errorf("sqlite driver statement %T cannot execute with a context", st)
		}
		var args [len(clickInsertColumns)]driver.NamedValue
		for i := range args {
			args[i].Ordinal = i + 1
		}
		for i := range rows {
			if i%clickCheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			clickArgs(&args, &rows[i])
			res, err := exec.ExecContext(bg, args[:])
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			inserted[i] = n == 1
		}
		return nil
	})
	return inserted, err
}

// clickArgs sets args to r's values in the order of clickInsertColumns.
func clickArgs(args *[len(clickInsertColumns)]driver.NamedValue, r *clickRow) {
	vals := [len(clickInsertColumns)]driver.Value{
		r.ID.String(), r.OrgID.String(), r.LinkID.String(), nullUUIDText(r.AppID), r.Domain, r.Slug,
		r.OccurredAt.UTC().Format(sqliteTimeFormat), r.Source, r.Platform,
		r.OS, r.OSVersion, r.DeviceModel, r.Browser, r.InAppBrowser, r.IP, r.IPKey, r.UserAgent,
		r.AcceptLanguage, r.Referer, r.UTMSource, r.UTMMedium, r.UTMCampaign, r.UTMTerm, r.UTMContent,
		nullUUIDText(r.TapID),
	}
	for i := range vals {
		args[i].Value = vals[i]
	}
}

// nullUUIDText is id's text form, or NULL.
func nullUUIDText(id *uuid.UUID) driver.Value {
	if id == nil {
		return nil
	}
	return id.String()
}
