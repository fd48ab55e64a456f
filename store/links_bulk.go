package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/linking"
)

// bulkLinkBatch is how many links one INSERT of BulkInsertLinks writes.
const bulkLinkBatch = 1_000

// BulkInsertLinks writes links as they are, in multi-row inserts of one
// transaction: no link quota, no check of old addresses, no webhook
// event, none of what CreateLink does besides the insert. It exists to
// load benchmark data (internal/scaledata), where creating 100,000 links
// one transaction at a time takes most of an hour on PostgreSQL; the
// service never calls it. A link whose address is taken fails the whole
// call (errcode.ErrConflict).
func (s *Store) BulkInsertLinks(ctx context.Context, links []*linking.Link) error {
	rows := make([]*linkRow, 0, len(links))
	for _, l := range links {
		row, err := fromLink(l)
		if err != nil {
			return err
		}
		rows = append(rows, row)
	}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for len(rows) > 0 {
			n := min(bulkLinkBatch, len(rows))
			batch := rows[:n]
			if _, err := tx.NewInsert().Model(&batch).Exec(ctx); err != nil {
				return err
			}
			rows = rows[n:]
		}
		return nil
	})
	return s.err("bulk insert links", err)
}
