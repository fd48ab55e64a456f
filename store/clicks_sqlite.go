package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
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

// clickInsertColumns lists the columns of clickRow in the order clickArgs
// binds them.
// claimed_by_install is left to its default, NULL.
var clickInsertColumns = [...]string{
	"id", "org_id", "link_id", "app_id", "domain", "occurred_at", "source", "platform",
	"os", "os_version", "device_model", "browser", "in_app_browser", "ip_key", "user_agent",
	"accept_language", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "tap_id",
	"country", "referer_host",
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

// insertClickRowsSQLite inserts the rows of clicks (normalized, with their
// ids) on conn, which must be the connection of the transaction the caller
// has open, and returns the rowids of those it inserted (rowids[i] for
// clicks[i], 0 for a row not inserted): a row whose id or (org_id, tap_id)
// exists already is skipped.
func insertClickRowsSQLite(ctx context.Context, conn bun.Conn, rows []analytics.Click) (rowids []int64, err error) {
	rowids = make([]int64, len(rows))
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
		var prev *analytics.Click
		for i := range rows {
			if i%clickCheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			clickArgs(&args, &rows[i], prev)
			prev = &rows[i]
			res, err := exec.ExecContext(bg, args[:])
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			if n == 1 {
				if rowids[i], err = res.LastInsertId(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return rowids, err
}

// clickArgs sets args to the values of r's row in the order of
// clickInsertColumns (fromClick). prev is the click args hold, or nil: a
// value equal to prev's is left as it is, so that the clicks of one link,
// one organization or one browser in a batch do not convert and box the
// same value again for every row.
func clickArgs(args *[len(clickInsertColumns)]driver.NamedValue, r, prev *analytics.Click) {
	first := prev == nil
	if first {
		prev = r
	}
	id := func(i int, v, was uuid.UUID) {
		if first || v != was {
			args[i].Value = v.String()
		}
	}
	nullID := func(i int, v, was *uuid.UUID) {
		if first || !sameUUID(v, was) {
			args[i].Value = nullUUIDText(v)
		}
	}
	text := func(i int, v, was string) {
		if first || v != was {
			args[i].Value = v
		}
	}
	args[0].Value = r.ID.String()
	id(1, r.OrgID, prev.OrgID)
	id(2, r.LinkID, prev.LinkID)
	nullID(3, r.AppID, prev.AppID)
	text(4, r.Domain, prev.Domain)
	args[5].Value = r.OccurredAt.UTC().Format(sqliteTimeFormat)
	text(6, string(r.Source), string(prev.Source))
	text(7, r.Platform, prev.Platform)
	text(8, r.OS, prev.OS)
	text(9, r.OSVersion, prev.OSVersion)
	text(10, r.DeviceModel, prev.DeviceModel)
	text(11, r.Browser, prev.Browser)
	text(12, r.InAppBrowser, prev.InAppBrowser)
	text(13, r.IPKey, prev.IPKey)
	text(14, r.UserAgent, prev.UserAgent)
	text(15, r.AcceptLanguage, prev.AcceptLanguage)
	text(16, r.UTMSource, prev.UTMSource)
	text(17, r.UTMMedium, prev.UTMMedium)
	text(18, r.UTMCampaign, prev.UTMCampaign)
	text(19, r.UTMTerm, prev.UTMTerm)
	text(20, r.UTMContent, prev.UTMContent)
	nullID(21, r.TapID, prev.TapID)
	text(22, r.Country, prev.Country)
	text(23, r.RefererHost, prev.RefererHost)
}

// sameUUID reports whether a and b are both nil or hold the same id.
func sameUUID(a, b *uuid.UUID) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// nullUUIDText is id's text form, or NULL.
func nullUUIDText(id *uuid.UUID) driver.Value {
	if id == nil {
		return nil
	}
	return id.String()
}
