package linking

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hoplink/hoplink/errcode"
)

// Text limits of a link, in characters (Unicode code points).
const (
	// MaxNameLength is the longest dashboard name (SPEC.md is silent; 255, like an app's name).
	MaxNameLength = 255
	// MaxOGTitleLength is the longest og_title (SPEC.md, Limits: og_title max 255).
	MaxOGTitleLength = 255
	// MaxOGDescriptionLength is the longest og_description (SPEC.md is silent;
	// previews show far less, and 1000 leaves room for every language).
	MaxOGDescriptionLength = 1000
)

// The text fields of a link, as their errors name them.
const (
	FieldName          = "name"
	FieldOGTitle       = "og_title"
	FieldOGDescription = "og_description"
)

// ValidateName checks a link's dashboard name: 1 to MaxNameLength characters,
// not blank, valid UTF-8, one line without control characters. To show the
// slug again a client sends null, not an empty name.
func ValidateName(name string) error {
	return validateText(FieldName, name, MaxNameLength, false)
}

// ValidateOGTitle checks a link's og_title: 1 to MaxOGTitleLength characters,
// not blank, valid UTF-8, one line without control characters. null, not an
// empty title, clears it.
func ValidateOGTitle(title string) error {
	return validateText(FieldOGTitle, title, MaxOGTitleLength, false)
}

// ValidateOGDescription checks a link's og_description: 1 to
// MaxOGDescriptionLength characters, not blank, valid UTF-8; line breaks and
// tabs are allowed, other control characters are not. null, not an empty
// description, clears it.
func ValidateOGDescription(description string) error {
	return validateText(FieldOGDescription, description, MaxOGDescriptionLength, true)
}

// validateText checks one text field. Text is stored as sent: these checks
// trim nothing.
func validateText(field, s string, max int, multiline bool) error {
	if !utf8.ValidString(s) {
		return errcode.Field(field, "must be valid UTF-8")
	}
	if strings.TrimSpace(s) == "" {
		return errcode.Field(field, "must not be empty or blank; send null to clear it")
	}
	if len(s) > max && utf8.RuneCountInString(s) > max {
		return errcode.Field(field, fmt.Sprintf("must be at most %d characters", max))
	}
	for _, r := range s {
		if unicode.IsControl(r) && !(multiline && (r == '\n' || r == '\r' || r == '\t')) {
			if multiline {
				return errcode.Field(field, "must not contain control characters other than line breaks and tabs")
			}
			return errcode.Field(field, "must not contain line breaks or other control characters")
		}
	}
	return nil
}
