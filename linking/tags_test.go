package linking_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/linking"
)

func TestNormalizeTags(t *testing.T) {
	twenty := make([]string, 20)
	for i := range twenty {
		twenty[i] = fmt.Sprint("t", i)
	}
	tests := []struct {
		name      string
		tags      []string
		want      []string
		wantField string
		wantMsg   string
	}{
		{"nil gives an empty list", nil, []string{}, "", ""},
		{"tags are kept in order", []string{"spring", "promo"}, []string{"spring", "promo"}, "", ""},
		{"SPEC.md limit: 20 tags", twenty, twenty, "", ""},
		{"SPEC.md limit: 21 tags are refused", append(twenty, "x"), nil, "tags", "must hold at most 20 tags"},
		{"21 tags are refused even when duplicates", append(twenty, "t0"), nil, "tags", "must hold at most 20 tags"},
		{"surrounding whitespace is trimmed", []string{"  spring\t"}, []string{"spring"}, "", ""},
		{"duplicates after trimming are dropped, the first kept", []string{"b", "a", " b", "a"}, []string{"b", "a"}, "", ""},
		{"tags are compared exactly", []string{"iOS", "ios"}, []string{"iOS", "ios"}, "", ""},
		{"SPEC.md limit: 50 characters", []string{strings.Repeat("é", 50)}, []string{strings.Repeat("é", 50)}, "", ""},
		{"SPEC.md limit: 51 characters are refused", []string{"ok", strings.Repeat("a", 51)}, nil, "tags[1]", "must be at most 50 characters"},
		{"length is counted after trimming", []string{" " + strings.Repeat("a", 50) + " "}, []string{strings.Repeat("a", 50)}, "", ""},
		{"an empty tag is refused", []string{""}, nil, "tags[0]", "must not be empty"},
		{"a blank tag is refused", []string{"a", "   "}, nil, "tags[1]", "must not be empty"},
		{"a control character is refused", []string{"a\x00b"}, nil, "tags[0]", "must not contain control characters"},
		{"invalid UTF-8 is refused", []string{"\xff"}, nil, "tags[0]", "must be valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := linking.NormalizeTags(tt.tags)
			if tt.wantMsg != "" {
				assert.Equal(t, tt.wantMsg, requireFieldError(t, err, tt.wantField))
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestTextFields(t *testing.T) {
	tests := []struct {
		name     string
		validate func(string) error
		field    string
		value    string
		wantMsg  string
	}{
		{"SPEC.md limit: og_title of 255 characters", linking.ValidateOGTitle, "og_title", strings.Repeat("ü", 255), ""},
		{"SPEC.md limit: og_title of 256 characters is refused", linking.ValidateOGTitle, "og_title", strings.Repeat("a", 256), "must be at most 255 characters"},
		{"og_title may not be blank", linking.ValidateOGTitle, "og_title", "  ", "must not be empty or blank; send null to clear it"},
		{"og_title is one line", linking.ValidateOGTitle, "og_title", "a\nb", "must not contain line breaks or other control characters"},
		{"og_title must be UTF-8", linking.ValidateOGTitle, "og_title", "\xff", "must be valid UTF-8"},
		{"og_description of 1000 characters", linking.ValidateOGDescription, "og_description", strings.Repeat("あ", 1000), ""},
		{"og_description of 1001 characters is refused", linking.ValidateOGDescription, "og_description", strings.Repeat("a", 1001), "must be at most 1000 characters"},
		{"og_description may hold line breaks and tabs", linking.ValidateOGDescription, "og_description", "line one\r\nline\ttwo", ""},
		{"og_description refuses other control characters", linking.ValidateOGDescription, "og_description", "a\x07", "must not contain control characters other than line breaks and tabs"},
		{"og_description may not be empty", linking.ValidateOGDescription, "og_description", "", "must not be empty or blank; send null to clear it"},
		{"name of 255 characters", linking.ValidateName, "name", strings.Repeat("n", 255), ""},
		{"name of 256 characters is refused", linking.ValidateName, "name", strings.Repeat("n", 256), "must be at most 255 characters"},
		{"an empty name is refused: null shows the slug", linking.ValidateName, "name", "", "must not be empty or blank; send null to clear it"},
		{"name is one line", linking.ValidateName, "name", "a\tb", "must not contain line breaks or other control characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.validate(tt.value)
			if tt.wantMsg == "" {
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, tt.wantMsg, requireFieldError(t, err, tt.field))
		})
	}
}
