package store

import (
	"context"
	"strings"
	"sync"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// On SQLite a batch of clicks is written with an INSERT whose SQL text this
// file builds directly, rather than through bun's query builder. The pure-Go
// SQLite driver parses and plans the SQL text of every statement it runs,
// prepared or not, so bound parameters would not save the parsing and cost
// a bind call per value; what can be saved is bun's reflection over 26
// fields of 500 rows and the garbage it leaves. The values are written
// exactly as bun's SQLite dialect writes them (UUIDs as their text form,
// times as UTC "2006-01-02 15:04:05.999999-07:00", strings quoted with
// doubled single quotes), so rows read back through bun are the same.

// clickInsertColumns lists the columns in the order appendClickValues
// writes them. claimed_by_install is left to its default, NULL.
const clickInsertColumns = `"id","org_id","link_id","app_id","domain","slug","occurred_at","source","platform",` +
	`"os","os_version","device_model","browser","in_app_browser","ip","ip_key","user_agent",` +
	`"accept_language","referer","utm_source","utm_medium","utm_campaign","utm_term","utm_content","tap_id"`

// sqliteTimeFormat is how bun's SQLite dialect writes a time.
const sqliteTimeFormat = "2006-01-02 15:04:05.999999-07:00"

// clickSQLBuffers reuses the SQL text buffers of click batches.
var clickSQLBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 256<<10); return &b }}

// insertClickRowsSQLite inserts rows in tx with one statement that skips a
// row whose id or (org_id, tap_id) exists already, and returns the ids it
// inserted.
func insertClickRowsSQLite(ctx context.Context, tx bun.Tx, rows []clickRow) ([]uuid.UUID, error) {
	bp := clickSQLBuffers.Get().(*[]byte)
	defer clickSQLBuffers.Put(bp)
	b := append((*bp)[:0], `INSERT INTO "clicks" (`...)
	b = append(b, clickInsertColumns...)
	b = append(b, ") VALUES "...)
	for i := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendClickValues(b, &rows[i])
	}
	b = append(b, ` ON CONFLICT DO NOTHING RETURNING "id"`...)
	*bp = b

	// The statement's text is copied into the driver; the buffer is reused.
	r, err := tx.QueryContext(ctx, string(b))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	ids := make([]uuid.UUID, 0, len(rows))
	for r.Next() {
		var id uuid.UUID
		if err := r.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, r.Err()
}

// appendClickValues appends r's values as a parenthesised SQL row.
func appendClickValues(b []byte, r *clickRow) []byte {
	b = append(b, '(')
	b = appendSQLUUID(b, r.ID)
	b = append(b, ',')
	b = appendSQLUUID(b, r.OrgID)
	b = append(b, ',')
	b = appendSQLUUID(b, r.LinkID)
	b = append(b, ',')
	b = appendSQLNullUUID(b, r.AppID)
	for _, s := range [...]string{r.Domain, r.Slug} {
		b = append(b, ',')
		b = appendSQLString(b, s)
	}
	b = append(b, ",'"...)
	b = r.OccurredAt.UTC().AppendFormat(b, sqliteTimeFormat)
	b = append(b, '\'')
	for _, s := range [...]string{
		r.Source, r.Platform, r.OS, r.OSVersion, r.DeviceModel, r.Browser, r.InAppBrowser,
		r.IP, r.IPKey, r.UserAgent, r.AcceptLanguage, r.Referer,
		r.UTMSource, r.UTMMedium, r.UTMCampaign, r.UTMTerm, r.UTMContent,
	} {
		b = append(b, ',')
		b = appendSQLString(b, s)
	}
	b = append(b, ',')
	b = appendSQLNullUUID(b, r.TapID)
	return append(b, ')')
}

func appendSQLUUID(b []byte, id uuid.UUID) []byte {
	b = append(b, '\'')
	// The text form is hex digits and hyphens: nothing to quote.
	var buf [36]byte
	encodeUUID(buf[:], id)
	b = append(b, buf[:]...)
	return append(b, '\'')
}

func appendSQLNullUUID(b []byte, id *uuid.UUID) []byte {
	if id == nil {
		return append(b, "NULL"...)
	}
	return appendSQLUUID(b, *id)
}

const hexDigits = "0123456789abcdef"

// encodeUUID writes id in its canonical 8-4-4-4-12 form, as id.String()
// does, without allocating.
func encodeUUID(dst []byte, id uuid.UUID) {
	j := 0
	for i, c := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst[j] = '-'
			j++
		}
		dst[j] = hexDigits[c>>4]
		dst[j+1] = hexDigits[c&0x0f]
		j += 2
	}
}

// appendSQLString appends s as an SQL string literal. Click.Normalize has
// made s valid UTF-8 without NUL bytes, which SQLite's text literals cannot
// hold; anything else is kept as it is, a single quote doubled.
func appendSQLString(b []byte, s string) []byte {
	b = append(b, '\'')
	for {
		i := strings.IndexByte(s, '\'')
		if i < 0 {
			break
		}
		b = append(b, s[:i+1]...)
		b = append(b, '\'')
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, '\'')
}
