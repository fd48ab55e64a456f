package linking

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hoplink/hoplink/errcode"
)

// Tag limits (SPEC.md, Limits: tags max 20 items, each max 50 chars).
const (
	// MaxTags is the most tags a request may send for one link.
	MaxTags = 20
	// MaxTagLength is the longest tag, in characters (Unicode code points),
	// after surrounding whitespace is trimmed.
	MaxTagLength = 50
)

// FieldTags is the request field that tag errors name; an error about one tag
// names it as tags[i], i counting from zero.
const FieldTags = "tags"

// NormalizeTags checks the tags sent for a link and returns them as they are
// stored: each trimmed of surrounding whitespace, duplicates after trimming
// dropped (the first stays, order kept). Tags are compared exactly, so "iOS"
// and "ios" are two tags. Refused, with a VALIDATION_ERROR: more than MaxTags
// items as sent (before duplicates are dropped), a tag that is empty or blank,
// longer than MaxTagLength characters, not valid UTF-8, or holding a control
// character. A nil or empty list gives an empty, non-nil list.
func NormalizeTags(tags []string) ([]string, error) {
	if len(tags) > MaxTags {
		return nil, errcode.Field(FieldTags, fmt.Sprintf("must hold at most %d tags", MaxTags))
	}
	out := make([]string, 0, len(tags))
	for i, tag := range tags {
		field := fmt.Sprintf("%s[%d]", FieldTags, i)
		if !utf8.ValidString(tag) {
			return nil, errcode.Field(field, "must be valid UTF-8")
		}
		tag = strings.TrimSpace(tag)
		switch n := utf8.RuneCountInString(tag); {
		case n == 0:
			return nil, errcode.Field(field, "must not be empty")
		case n > MaxTagLength:
			return nil, errcode.Field(field, fmt.Sprintf("must be at most %d characters", MaxTagLength))
		}
		if strings.IndexFunc(tag, unicode.IsControl) >= 0 {
			return nil, errcode.Field(field, "must not contain control characters")
		}
		if !slices.Contains(out, tag) {
			out = append(out, tag)
		}
	}
	return out, nil
}
