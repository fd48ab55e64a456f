package httpapi_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/makiuchi-d/gozxing"
	zxingqr "github.com/makiuchi-d/gozxing/qrcode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func qrPath(id uuid.UUID, query string) string { return linkPath(id) + "/qr" + query }

// decodeQR reads the text of the QR code in img, failing t when there is
// none.
func decodeQR(t testing.TB, img image.Image) string {
	t.Helper()
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	require.NoError(t, err)
	res, err := zxingqr.NewQRCodeReader().Decode(bmp, nil)
	require.NoError(t, err, "the image holds a readable QR code")
	return res.GetText()
}

// qrSVG is what the test reads of the SVG answer.
type qrSVG struct {
	XMLName xml.Name `xml:"svg"`
	Width   string   `xml:"width,attr"`
	Height  string   `xml:"height,attr"`
	ViewBox string   `xml:"viewBox,attr"`
	Role    string   `xml:"role,attr"`
	Title   string   `xml:"title"`
	Rect    struct {
		Fill string `xml:"fill,attr"`
	} `xml:"rect"`
	Path struct {
		Fill string `xml:"fill,attr"`
		D    string `xml:"d,attr"`
	} `xml:"path"`
}

// parseSVG decodes body strictly as XML, failing t when it is not
// well-formed, and requires every element to be one of the three the code
// is drawn with.
func parseSVG(t testing.TB, body []byte) qrSVG {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = true
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "well-formed XML: %s", body)
		if el, ok := tok.(xml.StartElement); ok {
			assert.Contains(t, []string{"svg", "title", "rect", "path"}, el.Name.Local, "only the drawing's own elements")
			for _, a := range el.Attr {
				assert.False(t, strings.HasPrefix(strings.ToLower(a.Name.Local), "on"), "no event handler")
				assert.NotEqual(t, "style", a.Name.Local, "no style the pages' CSP would refuse")
				assert.NotEqual(t, "href", a.Name.Local, "no reference")
			}
		}
	}
	var s qrSVG
	require.NoError(t, xml.Unmarshal(body, &s))
	return s
}

// rasterize draws the SVG's path, a list of "M x y h n v 1 h -n z" runs
// in a viewBox of 0 0 w w, scale pixels per unit, so that the test can
// read the code back.
func rasterize(t testing.TB, s qrSVG, scale int) image.Image {
	t.Helper()
	var w int
	_, err := fmt.Sscanf(s.ViewBox, "0 0 %d %d", &w, new(int))
	require.NoError(t, err, "viewBox %q", s.ViewBox)
	img := image.NewGray(image.Rect(0, 0, w*scale, w*scale))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for _, run := range strings.Split(strings.TrimSuffix(s.Path.D, "z"), "z") {
		var x, y, n, back int
		_, err := fmt.Sscanf(run, "M%d %dh%dv1h-%d", &x, &y, &n, &back)
		require.NoError(t, err, "run %q", run)
		require.Equal(t, n, back, "a closed run")
		for px := x * scale; px < (x+n)*scale; px++ {
			for py := y * scale; py < (y+1)*scale; py++ {
				img.SetGray(px, py, color.Gray{})
			}
		}
	}
	return img
}

func TestLinkQRCode(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newLinkHarness(t, s, false)
		o, app := h.linkOrg(t, "Acme")
		l := h.create(t, o.key.raw, fmt.Sprintf(`{"destination_url":"https://shop.example/","slug":"spring-sale","app_id":%q}`, app.ID))
		require.Equal(t, "http://"+app.LinkDomain+":8080/spring-sale", l.ShortURL)

		t.Run("a PNG by default, 256 pixels square, of the short URL", func(t *testing.T) {
			resp := h.get(t, o.key.raw, qrPath(l.ID, ""))
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Equal(t, "image/png", resp.header.Get("Content-Type"))
			assert.Equal(t, "nosniff", resp.header.Get("X-Content-Type-Options"))
			assert.Equal(t, "private, no-cache", resp.header.Get("Cache-Control"))
			assert.Regexp(t, `^"qr-[0-9a-f]{24}"$`, resp.header.Get("ETag"))
			img, err := png.Decode(bytes.NewReader(resp.body))
			require.NoError(t, err)
			assert.Equal(t, image.Rect(0, 0, 256, 256), img.Bounds())
			assert.Equal(t, l.ShortURL, decodeQR(t, img))
		})

		for _, size := range []int{128, 200, 1024} {
			t.Run(fmt.Sprintf("a PNG of %d pixels", size), func(t *testing.T) {
				resp := h.get(t, o.key.raw, qrPath(l.ID, fmt.Sprintf("?format=png&size=%d", size)))
				require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
				img, err := png.Decode(bytes.NewReader(resp.body))
				require.NoError(t, err)
				assert.Equal(t, image.Rect(0, 0, size, size), img.Bounds())
				assert.Equal(t, l.ShortURL, decodeQR(t, img))
			})
		}

		t.Run("an SVG of the requested size that reads as the short URL", func(t *testing.T) {
			resp := h.get(t, o.key.raw, qrPath(l.ID, "?format=svg&size=300"))
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Equal(t, "image/svg+xml", resp.header.Get("Content-Type"))
			assert.Equal(t, "default-src 'none'; frame-ancestors 'none'", resp.header.Get("Content-Security-Policy"))
			svg := parseSVG(t, resp.body)
			assert.Equal(t, "300", svg.Width)
			assert.Equal(t, "300", svg.Height)
			assert.Equal(t, "img", svg.Role)
			assert.Equal(t, "QR code of "+l.ShortURL, svg.Title)
			assert.Equal(t, "#fff", svg.Rect.Fill)
			assert.Equal(t, "#000", svg.Path.Fill)
			assert.Equal(t, l.ShortURL, decodeQR(t, rasterize(t, svg, 4)))
		})

		t.Run("revalidation: the same image is 304 without a body", func(t *testing.T) {
			first := h.get(t, o.key.raw, qrPath(l.ID, "?format=svg"))
			require.Equal(t, http.StatusOK, first.status)
			etag := first.header.Get("ETag")
			for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
				resp := h.do(t, request{method: http.MethodGet, path: qrPath(l.ID, "?format=svg"), key: o.key.raw,
					headers: map[string]string{"If-None-Match": inm}})
				assert.Equal(t, http.StatusNotModified, resp.status, "If-None-Match: %s", inm)
				assert.Empty(t, resp.body)
				assert.Equal(t, etag, resp.header.Get("ETag"))
				assert.Equal(t, "private, no-cache", resp.header.Get("Cache-Control"))
			}
			resp := h.do(t, request{method: http.MethodGet, path: qrPath(l.ID, "?format=svg"), key: o.key.raw,
				headers: map[string]string{"If-None-Match": `"qr-000000000000000000000000"`}})
			assert.Equal(t, http.StatusOK, resp.status, "a stale ETag gets the image")
			assert.Equal(t, first.body, resp.body, "the same drawing each time")
		})

		t.Run("the ETag changes with the short URL, the format and the size", func(t *testing.T) {
			other := h.create(t, o.key.raw, fmt.Sprintf(`{"destination_url":"https://shop.example/","slug":"autumn-sale","app_id":%q}`, app.ID))
			seen := map[string]string{}
			for _, p := range []string{qrPath(l.ID, ""), qrPath(l.ID, "?size=257"), qrPath(l.ID, "?format=svg"), qrPath(other.ID, "")} {
				resp := h.get(t, o.key.raw, p)
				require.Equal(t, http.StatusOK, resp.status)
				etag := resp.header.Get("ETag")
				assert.NotContains(t, seen, etag, "%s has the ETag of %s", p, seen[etag])
				seen[etag] = p
			}
			again := h.get(t, o.key.raw, qrPath(l.ID, "?size=256&format=png"))
			assert.Contains(t, seen, again.header.Get("ETag"), "explicit defaults are the defaults")
		})

		t.Run("HEAD answers the headers alone", func(t *testing.T) {
			resp := h.do(t, request{method: http.MethodHead, path: qrPath(l.ID, "?format=svg"), key: o.key.raw, off: true})
			assert.Equal(t, http.StatusOK, resp.status)
			assert.Empty(t, resp.body)
			assert.Equal(t, "image/svg+xml", resp.header.Get("Content-Type"))
			assert.NotEmpty(t, resp.header.Get("ETag"))
		})

		t.Run("bad parameters are 400 naming each", func(t *testing.T) {
			tests := []struct {
				name, query string
				fields      []string
			}{
				{"an unknown format", "?format=gif", []string{"format"}},
				{"an empty format", "?format=", []string{"format"}},
				{"a format in capitals", "?format=PNG", []string{"format"}},
				{"a size below the least", "?size=127", []string{"size"}},
				{"a size above the most", "?size=1025", []string{"size"}},
				{"a negative size", "?size=-256", []string{"size"}},
				{"a size that is not a number", "?size=big", []string{"size"}},
				{"a size with a unit", "?size=256px", []string{"size"}},
				{"a huge size", "?size=99999999999999999999", []string{"size"}},
				{"an unknown parameter", "?scale=2", []string{"scale"}},
				{"a repeated parameter", "?format=png&format=svg", []string{"format"}},
				{"every problem at once", "?format=jpg&size=0&color=red", []string{"format", "size", "color"}},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					resp := h.do(t, request{method: http.MethodGet, path: qrPath(l.ID, tt.query), key: o.key.raw, off: true})
					assertFields(t, assertError(t, resp, http.StatusBadRequest, errcode.ValidationError), tt.fields...)
				})
			}
		})

		t.Run("who may read it", func(t *testing.T) {
			other, _ := h.linkOrg(t, "Other")
			member := h.newMember(t, o, auth.RoleMember)
			tests := []struct {
				name   string
				key    string
				path   string
				status int
				code   errcode.Code
			}{
				{"a key with links:read", h.scopedKey(t, o, auth.ScopeLinksRead).raw, qrPath(l.ID, ""), http.StatusOK, ""},
				{"a member's key, on a link another created", h.memberKey(t, member, auth.ScopeLinksRead).raw, qrPath(l.ID, ""), http.StatusOK, ""},
				{"a key without links:read", h.scopedKey(t, o, auth.ScopeAnalyticsRead).raw, qrPath(l.ID, ""), http.StatusForbidden, errcode.Forbidden},
				{"an SDK key", h.sdkKey(t, o).raw, qrPath(l.ID, ""), http.StatusForbidden, errcode.SDKKeyRouteForbidden},
				{"no key", "", qrPath(l.ID, ""), http.StatusUnauthorized, errcode.Unauthorized},
				{"another organization's key: not found", other.key.raw, qrPath(l.ID, ""), http.StatusNotFound, errcode.NotFound},
				{"a link that does not exist", o.key.raw, qrPath(uuid.Must(uuid.NewV7()), ""), http.StatusNotFound, errcode.NotFound},
				{"an id that is not a UUID", o.key.raw, "/v1/links/spring-sale/qr", http.StatusBadRequest, errcode.InvalidID},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					resp := h.get(t, tt.key, tt.path)
					if tt.code == "" {
						require.Equal(t, tt.status, resp.status, "body: %s", resp.body)
						img, err := png.Decode(bytes.NewReader(resp.body))
						require.NoError(t, err)
						assert.Equal(t, l.ShortURL, decodeQR(t, img))
						return
					}
					assertError(t, resp, tt.status, tt.code)
					assert.Empty(t, resp.header.Get("ETag"), "no validator on an error")
				})
			}
		})

		t.Run("a deleted link has no QR code", func(t *testing.T) {
			gone := h.create(t, o.key.raw, `{"destination_url":"https://shop.example/gone"}`)
			require.Equal(t, http.StatusOK, h.delete(t, o.key.raw, linkPath(gone.ID)).status)
			assertError(t, h.get(t, o.key.raw, qrPath(gone.ID, "")), http.StatusNotFound, errcode.NotFound)
		})

		t.Run("other methods are 405", func(t *testing.T) {
			resp := h.do(t, request{method: http.MethodPost, path: qrPath(l.ID, ""), key: o.key.raw, off: true})
			assertError(t, resp, http.StatusMethodNotAllowed, errcode.MethodNotAllowed)
			assert.Equal(t, "GET, HEAD", resp.header.Get("Allow"))
		})
	})
}
