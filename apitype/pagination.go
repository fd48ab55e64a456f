package apitype

import (
	"github.com/hoplink/hoplink/errcode"
)

// Offset-list bounds (SPEC.md, Limits: offset lists take limit 1 to 100,
// default 20, and offset min 0, default 0).
const (
	// DefaultPageLimit is the page size when a request names none.
	DefaultPageLimit = 20
	// MaxPageLimit is the largest page size.
	MaxPageLimit = 100
)

// Pagination is the pagination object of an offset list (SPEC.md,
// Pagination): how many items match in all, the page's limit and offset, and
// whether more items follow the page.
type Pagination struct {
	Total   int  `json:"total"`
	Limit   int  `json:"limit"`
	Offset  int  `json:"offset"`
	HasMore bool `json:"has_more"`
}

// NewPagination returns the pagination of a page of an offset list.
func NewPagination(total, limit, offset int) Pagination {
	return Pagination{Total: total, Limit: limit, Offset: offset, HasMore: offset+limit < total}
}

// PageBounds checks an offset list's limit and offset, either of which may
// be nil (absent), and returns them with the defaults applied: limit 1 to
// MaxPageLimit (DefaultPageLimit when absent), offset 0 or more (0 when
// absent). Refusals are one VALIDATION_ERROR naming each bad parameter.
func PageBounds(limit, offset *int) (int, int, error) {
	l, o := DefaultPageLimit, 0
	var fields []errcode.FieldError
	if limit != nil {
		l = *limit
		if l < 1 || l > MaxPageLimit {
			fields = append(fields, errcode.FieldError{Field: "limit", Message: "must be 1 to 100"})
		}
	}
	if offset != nil {
		o = *offset
		if o < 0 {
			fields = append(fields, errcode.FieldError{Field: "offset", Message: "must be 0 or more"})
		}
	}
	if len(fields) > 0 {
		return 0, 0, errcode.Validation(fields...)
	}
	return l, o, nil
}
