package httpapi

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
)

func TestParseQRQuery(t *testing.T) {
	tests := []struct {
		query string
		want  qrOptions
	}{
		{"", qrOptions{format: "png", size: QRDefaultSize}},
		{"format=svg", qrOptions{format: "svg", size: QRDefaultSize}},
		{"size=128", qrOptions{format: "png", size: 128}},
		{"size=1024&format=png", qrOptions{format: "png", size: 1024}},
	}
	for _, tt := range tests {
		values, err := url.ParseQuery(tt.query)
		require.NoError(t, err)
		got, err := parseQRQuery(values)
		require.NoError(t, err, tt.query)
		assert.Equal(t, tt.want, got, tt.query)
	}
}

// FuzzParseQRQuery proves that any query either is refused with a
// VALIDATION_ERROR or gives a format and size inside the bounds.
func FuzzParseQRQuery(f *testing.F) {
	for _, s := range []string{"", "format=svg&size=300", "size=127", "size=1025", "format=gif", "size=%2B256", "size=0x100", "format=png&format=png", "a=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		values, _ := url.ParseQuery(raw)
		o, err := parseQRQuery(values)
		if err != nil {
			var e *errcode.Error
			require.True(t, errors.As(err, &e), "an errcode.Error: %v", err)
			assert.Equal(t, errcode.ValidationError, e.Code)
			return
		}
		assert.Contains(t, []string{"png", "svg"}, o.format)
		assert.GreaterOrEqual(t, o.size, QRMinSize)
		assert.LessOrEqual(t, o.size, QRMaxSize)
	})
}

func TestQRCodeSVGEscapesItsTitle(t *testing.T) {
	c, err := newQRCode("https://hop.example/x")
	require.NoError(t, err)
	title := `</title><script>alert("x")</script>&amp;'`
	b := c.svg(200, title)
	assert.NotContains(t, string(b), "<script")
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	var text strings.Builder
	inTitle := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "well-formed: %s", b)
		switch v := tok.(type) {
		case xml.StartElement:
			inTitle = v.Name.Local == "title"
		case xml.EndElement:
			inTitle = false
		case xml.CharData:
			if inTitle {
				text.Write(v)
			}
		}
	}
	assert.Equal(t, title, text.String(), "the title reads as it was given")
}

func TestQRCodePNGFitsTheCode(t *testing.T) {
	long := "https://" + strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." +
		strings.Repeat("d", 61) + ":65535/" + strings.Repeat("s", 100)
	c, err := newQRCode(long)
	require.NoError(t, err)
	assert.LessOrEqual(t, c.width(), QRMinSize, "the longest short URL gets a pixel per module at the least size")
}

func TestNoneMatch(t *testing.T) {
	etag := `"qr-1"`
	assert.True(t, noneMatch(`"qr-1"`, etag))
	assert.True(t, noneMatch(`W/"qr-1"`, etag), "weak comparison")
	assert.True(t, noneMatch(` "a" , "qr-1" `, etag))
	assert.True(t, noneMatch(`*`, etag))
	assert.False(t, noneMatch(`"qr-2"`, etag))
	assert.False(t, noneMatch(`qr-1`, etag), "an unquoted tag is not the tag")
	assert.False(t, noneMatch(``, etag))
}

func TestQREtag(t *testing.T) {
	base := qrOptions{format: "png", size: 256}
	e := base.etag("https://hop.example/a")
	assert.Equal(t, e, base.etag("https://hop.example/a"))
	assert.NotEqual(t, e, base.etag("https://hop.example/b"))
	assert.NotEqual(t, e, qrOptions{format: "svg", size: 256}.etag("https://hop.example/a"))
	assert.NotEqual(t, e, qrOptions{format: "png", size: 257}.etag("https://hop.example/a"))
}
