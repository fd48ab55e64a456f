package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/uptrace/bunrouter"
	qrcode "github.com/yeqown/go-qrcode/v2"
)

// Sizes of GET /v1/links/{id}/qr, in pixels: the image's width and height,
// quiet zone included (docs/decisions.md). QRMinSize leaves at least one
// pixel per module for the longest short URL a link can have.
const (
	QRMinSize     = 128
	QRMaxSize     = 1024
	QRDefaultSize = 256
)

// QR codes are drawn here from the modules github.com/yeqown/go-qrcode/v2
// computes (its image writers are separate modules): qrQuiet modules of
// quiet zone on each side, as ISO/IEC 18004 asks, and qrModule pixels per
// module for the two-factor page's code.
const (
	qrModule = 6
	qrQuiet  = 4
	// qrRender names the drawing below in the ETag: change it when the
	// drawing changes, so that clients fetch the new image.
	qrRender = "1"
)

// qrCode is a QR code's modules, [y][x], true for dark, without the quiet
// zone.
type qrCode [][]bool

// newQRCode encodes text with error correction level M (15% of the code
// may be damaged), enough for a screen or a print.
func newQRCode(text string) (qrCode, error) {
	q, err := qrcode.NewWith(text, qrcode.WithErrorCorrectionLevel(qrcode.ErrorCorrectionMedium))
	if err != nil {
		return nil, fmt.Errorf("httpapi: QR code: %w", err)
	}
	var m bitmapWriter
	if err := q.Save(&m); err != nil {
		return nil, fmt.Errorf("httpapi: QR code: %w", err)
	}
	return qrCode(m.bits), nil
}

// width returns the code's width in modules, quiet zone included.
func (c qrCode) width() int { return len(c) + 2*qrQuiet }

// png draws the code size pixels square, black on white: as many whole
// pixels per module as fit, the rest added to the quiet zone. A code wider
// than size modules is drawn one pixel per module, larger than size.
func (c qrCode) png(size int) ([]byte, error) {
	size = max(size, c.width())
	scale := size / c.width()
	offset := (size - scale*len(c)) / 2
	img := image.NewPaletted(image.Rect(0, 0, size, size), color.Palette{color.White, color.Black})
	for y, row := range c {
		for x, dark := range row {
			if !dark {
				continue
			}
			x0, y0 := offset+x*scale, offset+y*scale
			for dy := range scale {
				for dx := range scale {
					img.SetColorIndex(x0+dx, y0+dy, 1)
				}
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("httpapi: QR code: %w", err)
	}
	return b.Bytes(), nil
}

// svg draws the code as an SVG document size pixels square, black on
// white, its viewBox one unit per module, titled title. The document holds
// no script, no style and no reference to anything outside it, and title
// is escaped, so that a page may inline it.
func (c qrCode) svg(size int, title string) []byte {
	var b bytes.Buffer
	w := c.width()
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" shape-rendering="crispEdges">`,
		size, size, w, w)
	fmt.Fprintf(&b, `<title>%s</title><rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="`, html.EscapeString(title), w, w)
	for y, row := range c {
		for x := 0; x < len(row); {
			if !row[x] {
				x++
				continue
			}
			run := 1
			for x+run < len(row) && row[x+run] {
				run++
			}
			fmt.Fprintf(&b, "M%d %dh%dv1h-%dz", x+qrQuiet, y+qrQuiet, run, run)
			x += run
		}
	}
	b.WriteString(`"/></svg>`)
	return b.Bytes()
}

// qrPNG returns the two-factor page's PNG of a QR code of text.
func qrPNG(text string) ([]byte, error) {
	c, err := newQRCode(text)
	if err != nil {
		return nil, err
	}
	return c.png(c.width() * qrModule)
}

// bitmapWriter is a qrcode.Writer that keeps the code's modules, [y][x],
// true for dark.
type bitmapWriter struct{ bits [][]bool }

func (w *bitmapWriter) Write(m qrcode.Matrix) error {
	w.bits = m.Bitmap()
	return nil
}

func (w *bitmapWriter) Close() error { return nil }

// qrOptions are the query of GET /v1/links/{id}/qr.
type qrOptions struct {
	// format is "png" or "svg".
	format string
	// size is the width and height in pixels.
	size int
}

// parseQRQuery reads the query of GET /v1/links/{id}/qr: format (png or
// svg, default png) and size (QRMinSize to QRMaxSize, default
// QRDefaultSize). An unknown or repeated parameter and a bad value are a
// VALIDATION_ERROR naming each.
func parseQRQuery(values url.Values) (qrOptions, error) {
	q := strictValues(values, "format", "size")
	o := qrOptions{format: "png", size: QRDefaultSize}
	if f := q.str("format"); f != nil {
		switch *f {
		case "png", "svg":
			o.format = *f
		default:
			q.fail("format", `must be "png" or "svg"`)
		}
	}
	if n := q.integer("size"); n != nil {
		if *n < QRMinSize || *n > QRMaxSize {
			q.fail("size", fmt.Sprintf("must be between %d and %d", QRMinSize, QRMaxSize))
		} else {
			o.size = *n
		}
	}
	if err := q.err(); err != nil {
		return qrOptions{}, err
	}
	return o, nil
}

// contentType returns the Content-Type of o's image.
func (o qrOptions) contentType() string {
	if o.format == "svg" {
		return "image/svg+xml"
	}
	return "image/png"
}

// etag returns the strong ETag of the image of text drawn under o: it
// changes when the text, the options or the drawing change.
func (o qrOptions) etag(text string) string {
	sum := sha256.Sum256([]byte(qrRender + "\x00" + o.format + "\x00" + strconv.Itoa(o.size) + "\x00" + text))
	return `"qr-` + hex.EncodeToString(sum[:12]) + `"`
}

// render returns the image of text under o.
func (o qrOptions) render(text string) ([]byte, error) {
	c, err := newQRCode(text)
	if err != nil {
		return nil, err
	}
	if o.format == "svg" {
		return c.svg(o.size, "QR code of "+text), nil
	}
	return c.png(o.size)
}

// noneMatch reports whether an If-None-Match header value names etag, by
// the weak comparison RFC 9110 section 13.1.2 asks for, or is "*".
func noneMatch(header, etag string) bool {
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}

// linkQR answers GET /v1/links/{id}/qr: a QR code of the link's short URL.
// It reads the link as GET /v1/links/{id} does (scope, role, tenancy), so
// that a revalidation too sees a link that was deleted or moved.
func (a *API) linkQR(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathParamID(req, "id")
	if err != nil {
		return err
	}
	o, err := parseQRQuery(req.URL.Query())
	if err != nil {
		return err
	}
	l, err := a.opts.Links.Get(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	return writeQR(w, req.Request, o, l.ShortURL)
}

// writeQR answers a request for the QR code of shortURL under o: its ETag
// (304 when If-None-Match names it), then the image, which may load and run
// nothing when opened on its own.
func writeQR(w http.ResponseWriter, r *http.Request, o qrOptions, shortURL string) error {
	h := w.Header()
	etag := o.etag(shortURL)
	h.Set("ETag", etag)
	// Private: the answer needs a key or a session. no-cache: a client
	// keeps the image but asks again each time, and a changed short URL
	// changes the ETag.
	h.Set("Cache-Control", "private, no-cache")
	if inm := r.Header.Get("If-None-Match"); inm != "" && noneMatch(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	img, err := o.render(shortURL)
	if err != nil {
		return err
	}
	h.Set("Content-Type", o.contentType())
	h.Set("Content-Length", strconv.Itoa(len(img)))
	h.Set("X-Content-Type-Options", "nosniff")
	// An SVG opened on its own is a document: it may load and run nothing.
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(img)
	}
	return nil
}
