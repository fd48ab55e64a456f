package httpapi

import (
	"net/url"
	"sort"
	"strconv"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/errcode"
)

// query reads the query parameters of an endpoint strictly: a parameter the
// endpoint does not take, or one sent twice, is a field error, and so is a
// value of the wrong type. Read each parameter with str, integer or boolean,
// then call err.
type query struct {
	values map[string][]string
	fields []errcode.FieldError
}

// strictQuery returns the query of req, noting every parameter that is not
// one of names or that is repeated.
func strictQuery(req bunrouter.Request, names ...string) *query {
	return strictValues(req.URL.Query(), names...)
}

// strictValues is strictQuery over parsed query values.
func strictValues(values url.Values, names ...string) *query {
	q := &query{values: values}
	keys := make([]string, 0, len(q.values))
	for k := range q.values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		known := false
		for _, n := range names {
			known = known || k == n
		}
		switch {
		case !known:
			q.fail(k, "is not a known query parameter")
		case len(q.values[k]) > 1:
			q.fail(k, "must not be repeated")
		}
	}
	return q
}

func (q *query) fail(name, msg string) {
	q.fields = append(q.fields, errcode.FieldError{Field: name, Message: msg})
}

// str returns parameter name, nil when absent.
func (q *query) str(name string) *string {
	v, ok := q.values[name]
	if !ok || len(v) == 0 {
		return nil
	}
	return &v[0]
}

// integer returns parameter name as a decimal integer, nil when absent.
func (q *query) integer(name string) *int {
	s := q.str(name)
	if s == nil {
		return nil
	}
	n, err := strconv.Atoi(*s)
	if err != nil {
		q.fail(name, "must be an integer")
		return nil
	}
	return &n
}

// boolean returns parameter name, which must be "true" or "false"; nil when absent.
func (q *query) boolean(name string) *bool {
	s := q.str(name)
	if s == nil {
		return nil
	}
	var b bool
	switch *s {
	case "true":
		b = true
	case "false":
	default:
		q.fail(name, `must be "true" or "false"`)
		return nil
	}
	return &b
}

// err returns the VALIDATION_ERROR of every problem noted, or nil.
func (q *query) err() error {
	if len(q.fields) == 0 {
		return nil
	}
	return errcode.Validation(q.fields...)
}
