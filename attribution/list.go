package attribution

import (
	"context"
	"fmt"

	"github.com/hoplink/hoplink/errcode"
)

// listLimit checks a list's limit: 0 is DefaultListLimit, else 1 to
// MaxListLimit.
func listLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return DefaultListLimit, nil
	case limit < 1 || limit > MaxListLimit:
		return 0, errcode.Field("limit", "must be 1 to 500")
	}
	return limit, nil
}

// ListInstalls returns a page of the organization's installs in f's window,
// newest first by (installed_at, id), continuing after f.After. The caller
// has parsed the query and applied retention and look-back.
func (m *Matcher) ListInstalls(ctx context.Context, f InstallFilter) (InstallPage, error) {
	limit, err := listLimit(f.Limit)
	if err != nil {
		return InstallPage{}, err
	}
	rows, err := m.store.ListInstalls(ctx, f, limit+1)
	if err != nil {
		return InstallPage{}, fmt.Errorf("attribution: list installs: %w", err)
	}
	page := InstallPage{Data: rows}
	if len(rows) > limit {
		page.Data, page.HasMore = rows[:limit], true
		last := page.Data[limit-1]
		page.Next = &Position{Time: last.InstalledAt, ID: last.ID}
	}
	if page.Data == nil {
		page.Data = []Install{}
	}
	return page, nil
}

// ListAttempts returns a page of the organization's attempts in f's
// window, newest first by (created_at, id), continuing after f.After.
func (m *Matcher) ListAttempts(ctx context.Context, f AttemptFilter) (AttemptPage, error) {
	limit, err := listLimit(f.Limit)
	if err != nil {
		return AttemptPage{}, err
	}
	rows, err := m.store.ListAttempts(ctx, f, limit+1)
	if err != nil {
		return AttemptPage{}, fmt.Errorf("attribution: list attempts: %w", err)
	}
	page := AttemptPage{Data: rows}
	if len(rows) > limit {
		page.Data, page.HasMore = rows[:limit], true
		last := page.Data[limit-1]
		page.Next = &Position{Time: last.CreatedAt, ID: last.ID}
	}
	if page.Data == nil {
		page.Data = []Attempt{}
	}
	return page, nil
}
