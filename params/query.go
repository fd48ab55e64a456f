package params

import (
	"net/url"
	"strings"
)

// CustomParams returns the query parameters already on a stored
// destination, the first value of each key, for the SDK resolve's
// `custom_params` (SPEC.md: "Query parameters on destination_url are echoed
// as custom_params on resolve"). The query is read as url.ParseQuery reads
// it: pairs with a bad percent-escape or a semicolon are dropped; pairs with
// an empty key are dropped too, and a blank value is kept. The result is
// never nil, so that it encodes as a JSON object.
func CustomParams(destination string) map[string]string {
	out := map[string]string{}
	for s := newSegments(rawQuery(destination)); ; {
		seg, more := s.next()
		if !more {
			break
		}
		k, v, ok := decodePair(seg)
		if !ok || k == "" {
			continue
		}
		if _, seen := out[k]; !seen {
			out[k] = v
		}
	}
	return out
}

// UTMValues holds the five UTM parameters read from a URL or a query; ""
// means absent or blank.
type UTMValues struct {
	Source, Medium, Campaign, Term, Content string
}

// UTMFromURL returns the UTM values in rawURL's query: for each of
// utm_source, utm_medium, utm_campaign, utm_term and utm_content, its first
// non-blank value. Apply's result has at most one of each.
func UTMFromURL(rawURL string) UTMValues {
	return UTMFromQuery(rawQuery(rawURL))
}

// UTMFromQuery returns the UTM values of a raw query (with or without its
// leading "?"), read as UTMFromURL reads them.
func UTMFromQuery(query string) UTMValues {
	var u UTMValues
	for s := newSegments(strings.TrimPrefix(query, "?")); ; {
		seg, more := s.next()
		if !more {
			break
		}
		if k, v, ok := decodePair(seg); ok {
			u.note(k, v)
		}
	}
	return u
}

// note takes the value v of the decoded key k when k is a UTM key that u
// has no value of yet and v is not blank.
func (u *UTMValues) note(k, v string) {
	var dst *string
	switch k {
	case "utm_source":
		dst = &u.Source
	case "utm_medium":
		dst = &u.Medium
	case "utm_campaign":
		dst = &u.Campaign
	case "utm_term":
		dst = &u.Term
	case "utm_content":
		dst = &u.Content
	default:
		return
	}
	if *dst == "" && !blank(v) {
		*dst = v
	}
}

// ClickUTM returns the UTM values a click records (SPEC.md, UTM rule 4):
// for a web target (UTMApplies) the values read from the final URL that
// Apply returned; for an app-store page or a custom-scheme URL, the values
// of the tap, read from the visitor's query.
func ClickUTM(finalURL, visitorQuery string, opts Options) UTMValues {
	if UTMApplies(finalURL, opts) {
		return UTMFromURL(finalURL)
	}
	return UTMFromQuery(visitorQuery)
}

// rawQuery returns the raw query of rawURL, split as url.Parse splits it.
func rawQuery(rawURL string) string {
	rest, _, _ := strings.Cut(rawURL, "#")
	_, q, _ := strings.Cut(rest, "?")
	return q
}

// segments walks the '&'-separated segments of a raw query. An empty query
// has none; "a=1&" has two, the second empty.
type segments struct {
	rest string
	done bool
}

func newSegments(query string) segments {
	return segments{rest: query, done: query == ""}
}

func (s *segments) next() (string, bool) {
	if s.done {
		return "", false
	}
	seg, rest, more := strings.Cut(s.rest, "&")
	s.rest, s.done = rest, !more
	return seg, true
}

// decodePair decodes one query segment as url.ParseQuery does; ok is false
// for a segment that url.ParseQuery drops (a semicolon or a bad escape).
// It allocates only for a segment that holds '%' or '+'.
func decodePair(seg string) (key, value string, ok bool) {
	if strings.IndexByte(seg, ';') >= 0 {
		return "", "", false
	}
	k, v, _ := strings.Cut(seg, "=")
	key, err := url.QueryUnescape(k)
	if err != nil {
		return "", "", false
	}
	value, err = url.QueryUnescape(v)
	if err != nil {
		return "", "", false
	}
	return key, value, true
}

const upperHex = "0123456789ABCDEF"

// writeQueryEscaped writes s to b escaped as url.QueryEscape escapes it,
// without allocating.
func writeQueryEscaped(b *strings.Builder, s string) {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == '~' {
			continue
		}
		b.WriteString(s[start:i])
		if c == ' ' {
			b.WriteByte('+')
		} else {
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
		start = i + 1
	}
	b.WriteString(s[start:])
}
