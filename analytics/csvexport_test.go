package analytics_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
)

const exportHeader = "time,link_id,domain,slug,source,platform,os,os_version,device_model,browser," +
	"in_app_browser,country,referer,utm_source,utm_medium,utm_campaign,utm_term,utm_content\n"

// exportRow is a builder: a plain click row that each test changes where
// it matters.
func exportRow(change ...func(*analytics.ExportRow)) analytics.ExportRow {
	r := analytics.ExportRow{
		Time:         time.Date(2026, 3, 29, 3, 2, 3, 456_789_000, time.FixedZone("CEST", 2*3600)),
		LinkID:       uuid.MustParse("01963a1e-7c00-7000-8000-000000000001"),
		Domain:       "hop.example",
		Slug:         "spring",
		Source:       "redirect",
		Platform:     "ios",
		OS:           "iOS",
		OSVersion:    "18.3",
		DeviceModel:  "iPhone",
		Browser:      "Safari",
		InAppBrowser: "Instagram",
		Country:      "DE",
		Referer:      "https://news.example/a?b=c",
		UTMSource:    "newsletter",
		UTMMedium:    "email",
		UTMCampaign:  "spring",
		UTMTerm:      "shoes",
		UTMContent:   "hero",
	}
	for _, c := range change {
		c(&r)
	}
	return r
}

// writeExport writes rows and returns the output.
func writeExport(t testing.TB, rows ...analytics.ExportRow) string {
	t.Helper()
	var buf bytes.Buffer
	w := analytics.NewExportWriter(&buf)
	for _, r := range rows {
		require.NoError(t, w.Write(r))
	}
	require.NoError(t, w.Flush())
	return buf.String()
}

// readExport parses an export back, the header included.
func readExport(t testing.TB, out string) [][]string {
	t.Helper()
	r := csv.NewReader(strings.NewReader(out))
	records, err := r.ReadAll()
	require.NoError(t, err)
	return records
}

func TestExportWriterHeader(t *testing.T) {
	t.Run("an export without rows is its header row", func(t *testing.T) {
		assert.Equal(t, exportHeader, writeExport(t))
	})
	t.Run("ExportColumns names the header's columns", func(t *testing.T) {
		assert.Equal(t, exportHeader, strings.Join(analytics.ExportColumns(), ",")+"\n")
	})
	t.Run("the header is written once", func(t *testing.T) {
		out := writeExport(t, exportRow(), exportRow())
		assert.Equal(t, 1, strings.Count(out, "time,link_id"))
		assert.Len(t, readExport(t, out), 3)
	})
}

func TestExportWriterRow(t *testing.T) {
	t.Run("a row has every column, time in UTC with milliseconds", func(t *testing.T) {
		out := writeExport(t, exportRow())
		assert.Equal(t, exportHeader+
			"2026-03-29T01:02:03.456Z,01963a1e-7c00-7000-8000-000000000001,hop.example,spring,redirect,ios,iOS,18.3,"+
			"iPhone,Safari,Instagram,DE,https://news.example/a?b=c,newsletter,email,spring,shoes,hero\n", out)
	})
	t.Run("milliseconds are always three digits", func(t *testing.T) {
		out := writeExport(t, exportRow(func(r *analytics.ExportRow) { r.Time = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }))
		assert.Equal(t, "2026-01-02T03:04:05.000Z", readExport(t, out)[1][0])
	})
	t.Run("unknown values are empty cells", func(t *testing.T) {
		out := writeExport(t, analytics.ExportRow{})
		assert.Equal(t, exportHeader+strings.Repeat(",", 17)+"\n", out)
	})
	t.Run("Rows counts the rows, not the header", func(t *testing.T) {
		w := analytics.NewExportWriter(io.Discard)
		for range 3 {
			require.NoError(t, w.Write(exportRow()))
		}
		require.NoError(t, w.Flush())
		assert.Equal(t, int64(3), w.Rows())
	})
}

func TestExportWriterEscaping(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"a comma is quoted", "a,b"},
		{"a double quote is doubled inside quotes", `say "hi"`},
		{"a line feed stays inside its cell", "line one\nline two"},
		{"a lone carriage return inside a value is kept", "one\rtwo"},
		{"all of them at once", "\"a\",\nb,\"c\""},
		{"a leading space is kept", " spaced"},
		{"UTF-8 passes through", "Zürich – 東京 🚀"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			records := readExport(t, writeExport(t, exportRow(func(r *analytics.ExportRow) { r.UTMCampaign = tc.value })))
			require.Len(t, records, 2)
			assert.Equal(t, tc.value, records[1][15])
			assert.Len(t, records[1], 18)
		})
	}
	t.Run("a quoted value is written as RFC 4180 says", func(t *testing.T) {
		out := writeExport(t, exportRow(func(r *analytics.ExportRow) { r.UTMTerm = `a "b", c` }))
		assert.Contains(t, out, `,"a ""b"", c",`)
	})
	t.Run("a carriage return and line feed are written byte for byte", func(t *testing.T) {
		// encoding/csv reads a quoted CRLF back as LF, so look at the bytes.
		out := writeExport(t, exportRow(func(r *analytics.ExportRow) { r.UTMTerm = "one\r\ntwo" }))
		assert.Contains(t, out, ",\"one\r\ntwo\",")
	})
	t.Run("invalid UTF-8 becomes U+FFFD", func(t *testing.T) {
		records := readExport(t, writeExport(t, exportRow(func(r *analytics.ExportRow) { r.Referer = "bad\xff\xfebytes" })))
		assert.Equal(t, "bad\uFFFDbytes", records[1][12])
	})
}

func TestExportWriterFormulaInjection(t *testing.T) {
	for _, tc := range []struct{ name, value, want string }{
		{"a formula is neutralised", `=HYPERLINK("https://evil.example","open")`, `'=HYPERLINK("https://evil.example","open")`},
		{"a leading plus is neutralised", "+1+1", "'+1+1"},
		{"a leading minus is neutralised", "-2+3", "'-2+3"},
		{"a leading at sign is neutralised", "@SUM(A1:A9)", "'@SUM(A1:A9)"},
		{"a leading tab is neutralised", "\t=1", "'\t=1"},
		{"a leading tab alone is neutralised", "\tplain", "'\tplain"},
		{"a leading carriage return is neutralised", "\r=1", "'\r=1"},
		{"a leading NUL is neutralised", "\x00=1", "'\x00=1"},
		{"a lone minus is neutralised too", "-", "'-"},
		{"a negative-looking number is neutralised too", "-1", "'-1"},
		{"a positive-looking number with a sign is neutralised", "+49", "'+49"},
		{"a formula after leading spaces is neutralised", "   =1+1", "'   =1+1"},
		{"a formula after a line feed is neutralised", "\n=1+1", "'\n=1+1"},
		{"a formula after a no-break space is neutralised", "\u00a0@cmd", "'\u00a0@cmd"},
		{"a formula after an ideographic space is neutralised", "\u3000-1", "'\u3000-1"},
		{"a formula sign later in the value is left alone", "a=b+c-d@e", "a=b+c-d@e"},
		{"a number is left alone", "42", "42"},
		{"an e-mail address is left alone", "me@example.com", "me@example.com"},
		{"an already quoted value is left alone", "'=1", "'=1"},
		{"leading spaces before text are left alone", "  text", "  text"},
		{"whitespace alone is left alone", " \n ", " \n "},
		{"a line feed before text is left alone", "\ntext", "\ntext"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			records := readExport(t, writeExport(t, exportRow(func(r *analytics.ExportRow) { r.UTMSource = tc.value })))
			assert.Equal(t, tc.want, records[1][13])
		})
	}
	t.Run("every visitor-controlled column is neutralised", func(t *testing.T) {
		const evil = "=1+1"
		row := analytics.ExportRow{
			Domain: evil, Slug: evil, Source: evil, Platform: evil, OS: evil, OSVersion: evil,
			DeviceModel: evil, Browser: evil, InAppBrowser: evil, Country: evil, Referer: evil,
			UTMSource: evil, UTMMedium: evil, UTMCampaign: evil, UTMTerm: evil, UTMContent: evil,
		}
		records := readExport(t, writeExport(t, row))
		for i, cell := range records[1][2:] {
			assert.Equal(t, "'"+evil, cell, records[0][i+2])
		}
	})
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestExportWriterErrors(t *testing.T) {
	w := analytics.NewExportWriter(failingWriter{})
	require.NoError(t, w.Write(exportRow()), "the row is buffered")
	err := w.Flush()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "disk full")
}

// FuzzExportCell writes an arbitrary value in a cell and reads the file
// back: the file parses, the row keeps its 18 cells, the cell is the value
// (as valid UTF-8) or that value behind one single quote, and no cell a
// spreadsheet could take for a formula survives.
func FuzzExportCell(f *testing.F) {
	for _, s := range []string{"", "plain", "=1+1", "-1", " @x", "\t", "\r\n=", "a,\"b\"\n", "\xff=", "\u00a0+1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		var buf bytes.Buffer
		w := analytics.NewExportWriter(&buf)
		if err := w.Write(analytics.ExportRow{Referer: value}); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		records, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatalf("the export does not parse: %v", err)
		}
		if len(records) != 2 || len(records[1]) != 18 {
			t.Fatalf("want a header and one row of 18 cells, got %q", records)
		}
		got := records[1][12]
		// encoding/csv reads a quoted "\r\n" as "\n".
		want := strings.ReplaceAll(strings.ToValidUTF8(value, "\uFFFD"), "\r\n", "\n")
		if got != want && got != "'"+want {
			t.Fatalf("cell %q from value %q", got, value)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("cell %q is not UTF-8", got)
		}
		if got != "" && strings.ContainsRune("=+-@\t\r\x00", rune(got[0])) {
			t.Fatalf("cell %q starts a formula", got)
		}
		if rest := strings.TrimLeftFunc(got, unicode.IsSpace); rest != "" && strings.ContainsRune("=+-@", rune(rest[0])) {
			t.Fatalf("cell %q starts a formula after white space", got)
		}
	})
}

// BenchmarkExportWriter writes one million rows per iteration, a tenth of
// them needing quotes or neutralising, and reports rows per second and
// allocations per row.
func BenchmarkExportWriter(b *testing.B) {
	const rowsPerOp = 1_000_000
	rows := make([]analytics.ExportRow, 10)
	for i := range rows {
		rows[i] = exportRow(func(r *analytics.ExportRow) {
			r.LinkID = uuid.MustParse(fmt.Sprintf("01963a1e-7c00-7000-8000-%012d", i))
			r.Time = r.Time.Add(time.Duration(i) * time.Millisecond)
		})
	}
	rows[3].Referer = `https://evil.example/?q="quoted",comma`
	rows[7].UTMCampaign = "=HYPERLINK(\"x\")"
	b.ReportAllocs()
	var written int64
	for b.Loop() {
		w := analytics.NewExportWriter(io.Discard)
		for i := range rowsPerOp {
			if err := w.Write(rows[i%len(rows)]); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		written += w.Rows()
	}
	b.ReportMetric(float64(written)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(testing.AllocsPerRun(1, func() {
		w := analytics.NewExportWriter(io.Discard)
		for i := range 1000 {
			_ = w.Write(rows[i%len(rows)])
		}
		_ = w.Flush()
	}))/1000, "allocs/row")
}
