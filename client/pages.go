package client

import (
	"iter"
)

// Pagination is the pagination object of an offset list.
type Pagination struct {
	Total   int  `json:"total"`
	Limit   int  `json:"limit"`
	Offset  int  `json:"offset"`
	HasMore bool `json:"has_more"`
}

// CursorPagination is the pagination object of a cursor list.
type CursorPagination struct {
	// NextCursor continues the list; nil on the last page.
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

// Page is the options of one page of an offset list; zero values take the
// server's defaults (limit 20, offset 0).
type Page struct {
	Limit  int
	Offset int
}

// offsetSeq walks an offset list from first.Offset, first.Limit items a
// page, calling fetch for every page.
func offsetSeq[T any](first Page, fetch func(p Page) ([]T, Pagination, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		p := first
		for {
			items, pg, err := fetch(p)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if !pg.HasMore || len(items) == 0 {
				return
			}
			p.Offset = pg.Offset + len(items)
		}
	}
}

// cursorSeq walks a cursor list from cursor, calling fetch for every page.
func cursorSeq[T any](cursor string, fetch func(cursor string) ([]T, CursorPagination, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for {
			items, pg, err := fetch(cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if !pg.HasMore || pg.NextCursor == nil || *pg.NextCursor == "" {
				return
			}
			cursor = *pg.NextCursor
		}
	}
}
