package analytics

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// ExportRow is one click as the CSV export writes it (issue 15, item 3):
// the fields an organization may take away, and neither the IP address nor
// the full user agent. It is its own type so that the export does not
// depend on how clicks are stored. An empty string is an unknown value and
// is written as an empty cell.
type ExportRow struct {
	// Time is when the click happened; written in UTC as RFC 3339 with
	// milliseconds ("2026-03-29T01:02:03.456Z"), truncated, not rounded.
	// The zero Time is written as an empty cell.
	Time time.Time
	// LinkID is the clicked link; uuid.Nil is written as an empty cell.
	LinkID uuid.UUID
	Domain string
	Slug   string
	// Source is "redirect" or "app_open" (see Source).
	Source       string
	Platform     string
	OS           string
	OSVersion    string
	DeviceModel  string
	Browser      string
	InAppBrowser string
	// Country is an ISO 3166-1 alpha-2 code.
	Country     string
	Referer     string
	UTMSource   string
	UTMMedium   string
	UTMCampaign string
	UTMTerm     string
	UTMContent  string
}

// exportColumns is the header row, in the order of ExportRow's fields.
var exportColumns = [...]string{
	"time", "link_id", "domain", "slug", "source", "platform", "os", "os_version",
	"device_model", "browser", "in_app_browser", "country", "referer",
	"utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content",
}

// ExportColumns returns the names of the export's columns, as its header
// row writes them: snake_case, as the API names the same fields.
func ExportColumns() []string { return slices.Clone(exportColumns[:]) }

// exportTimeLayout is RFC 3339 with exactly three fractional digits.
const exportTimeLayout = "2006-01-02T15:04:05.000Z07:00"

// ExportWriter writes the CSV export of issue 15 to an io.Writer, one row
// at a time, so that an export of any size runs in constant memory. Its
// output is RFC 4180 CSV in UTF-8 as encoding/csv writes it: comma
// separated, a field quoted when it holds a comma, a double quote (doubled
// inside), a line break or a leading space, and lines ended by "\n" (which
// every RFC 4180 reader accepts) so that a value's own "\r" and "\n" are
// kept byte for byte. It writes no byte order mark. The first row is the
// header (ExportColumns), written before the first row or by Flush for an
// export without rows.
//
// # Formula injection
//
// A spreadsheet that opens the file evaluates a cell that begins with "=",
// "+", "-" or "@" as a formula, and some take a leading tab or carriage
// return the same way; a visitor controls the referer, the UTM values and
// the user-agent-derived fields, so a click could carry
// =HYPERLINK("https://evil.example", "open"). Following OWASP's CSV
// Injection guidance, and ASVS 5.0 requirement 1.2.10 (which adds NUL),
// every cell is neutralised by prefixing a single quote (') when:
//
//   - its first character is =, +, -, @, tab (U+0009), carriage return
//     (U+000D) or NUL (U+0000); or
//   - it begins with whitespace (any Unicode white space, a line feed or a
//     no-break space included) followed by =, +, - or @, which some
//     spreadsheets trim before evaluating.
//
// There is no exception for values that look numeric: "-1" and "-" are
// neutralised too, since a spreadsheet evaluates them as well, and an
// export of clicks has no numeric text column that this would spoil. A
// spreadsheet shows the cell as text without the quote; a program that
// reads the file sees the quote and may strip a leading ' that precedes
// one of these characters. A value that is not valid UTF-8 has each bad
// byte replaced with U+FFFD, so that the file is the UTF-8 its content
// type says.
//
// An ExportWriter is not safe for concurrent use.
type ExportWriter struct {
	csv    *csv.Writer
	record [len(exportColumns)]string
	times  []byte
	header bool
	rows   int64
}

// NewExportWriter returns an ExportWriter that writes to w, through a
// buffer: call Flush when done, and whenever the rows written so far
// should reach w (after a batch, to stream a download).
func NewExportWriter(w io.Writer) *ExportWriter {
	return &ExportWriter{csv: csv.NewWriter(w), times: make([]byte, 0, len(exportTimeLayout)+8)}
}

// Write writes row, after the header row if it is the first. It returns
// the error of the underlying writer, if a write to it has failed; the
// rows buffered since the last Flush may then be lost.
func (e *ExportWriter) Write(row ExportRow) error {
	if err := e.writeHeader(); err != nil {
		return err
	}
	r := &e.record
	r[0] = ""
	if !row.Time.IsZero() {
		e.times = row.Time.UTC().AppendFormat(e.times[:0], exportTimeLayout)
		r[0] = string(e.times)
	}
	r[1] = ""
	if row.LinkID != uuid.Nil {
		r[1] = row.LinkID.String()
	}
	r[2] = exportCell(row.Domain)
	r[3] = exportCell(row.Slug)
	r[4] = exportCell(row.Source)
	r[5] = exportCell(row.Platform)
	r[6] = exportCell(row.OS)
	r[7] = exportCell(row.OSVersion)
	r[8] = exportCell(row.DeviceModel)
	r[9] = exportCell(row.Browser)
	r[10] = exportCell(row.InAppBrowser)
	r[11] = exportCell(row.Country)
	r[12] = exportCell(row.Referer)
	r[13] = exportCell(row.UTMSource)
	r[14] = exportCell(row.UTMMedium)
	r[15] = exportCell(row.UTMCampaign)
	r[16] = exportCell(row.UTMTerm)
	r[17] = exportCell(row.UTMContent)
	if err := e.csv.Write(r[:]); err != nil {
		return fmt.Errorf("analytics: write export row: %w", err)
	}
	e.rows++
	return nil
}

// Flush writes the header row if no row was written, and every buffered
// row to the underlying writer. It returns the first error a write met.
func (e *ExportWriter) Flush() error {
	if err := e.writeHeader(); err != nil {
		return err
	}
	e.csv.Flush()
	if err := e.csv.Error(); err != nil {
		return fmt.Errorf("analytics: write export: %w", err)
	}
	return nil
}

// Rows returns how many rows Write has written, the header not counted.
func (e *ExportWriter) Rows() int64 { return e.rows }

func (e *ExportWriter) writeHeader() error {
	if e.header {
		return nil
	}
	if err := e.csv.Write(exportColumns[:]); err != nil {
		return fmt.Errorf("analytics: write export header: %w", err)
	}
	e.header = true
	return nil
}

// exportCell returns s as valid UTF-8, neutralised against formula
// injection (see ExportWriter).
func exportCell(s string) string {
	if s == "" {
		return s
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	switch c := s[0]; {
	case formulaStart(c) || c == '\t' || c == '\r' || c == 0:
		return "'" + s
	case c < utf8.RuneSelf && c != ' ' && c != '\n' && c != '\v' && c != '\f':
		return s // the common case: a plain ASCII first character
	}
	if rest := strings.TrimLeftFunc(s, unicode.IsSpace); rest != "" && formulaStart(rest[0]) {
		return "'" + s
	}
	return s
}

// formulaStart reports whether a cell beginning with c is a formula to a
// spreadsheet.
func formulaStart(c byte) bool {
	return c == '=' || c == '+' || c == '-' || c == '@'
}
