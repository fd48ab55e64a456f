package web_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/web"
)

// render returns the main element of the charts sample page showing
// series and breakdowns.
func render(t *testing.T, series []web.TimeSeries, breakdowns []web.Breakdown) string {
	t.Helper()
	b, err := web.Execute(web.PageChartsSample, web.ChartsSampleView{Frame: web.Frame{Title: "Charts"}, Series: series, Breakdowns: breakdowns})
	require.NoError(t, err)
	body := string(b)
	return body[strings.Index(body, "<main>"):]
}

var svgElement = regexp.MustCompile(`(?s)<svg .*?</svg>`)

// svgInfo is what a test reads of an SVG: the svg element's attributes,
// the count of each element, the text of its title, desc and text
// elements.
type svgInfo struct {
	attrs       map[string]string
	count       map[string]int
	title, desc string
	texts       []string
}

// svgs checks that each SVG of page is well-formed XML, with no script, no
// style attribute (the CSP refuses them) and no event handler, and
// returns what it read of each.
func svgs(t *testing.T, page string) []svgInfo {
	t.Helper()
	var out []svgInfo
	for _, src := range svgElement.FindAllString(page, -1) {
		info := svgInfo{attrs: map[string]string{}, count: map[string]int{}}
		d := xml.NewDecoder(strings.NewReader(src))
		d.Strict = true
		var stack []string
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			require.NoError(t, err, "well-formed XML")
			switch v := tok.(type) {
			case xml.StartElement:
				stack = append(stack, v.Name.Local)
				info.count[v.Name.Local]++
				assert.NotEqual(t, "script", v.Name.Local)
				for _, a := range v.Attr {
					assert.NotEqual(t, "style", a.Name.Local, "no style attribute: the CSP refuses it")
					assert.False(t, strings.HasPrefix(a.Name.Local, "on"), "no event handler")
					if v.Name.Local == "svg" {
						info.attrs[a.Name.Local] = a.Value
					}
				}
			case xml.EndElement:
				stack = stack[:len(stack)-1]
			case xml.CharData:
				if len(stack) == 0 {
					continue
				}
				switch stack[len(stack)-1] {
				case "title":
					info.title += string(v)
				case "desc":
					info.desc += string(v)
				case "text":
					info.texts = append(info.texts, string(v))
				}
			}
		}
		out = append(out, info)
	}
	return out
}

var tableRow = regexp.MustCompile(`<tr><th scope="row"[^>]*>([^<]*)</th><td class="num">([^<]*)</td><td class="num">([^<]*)</td></tr>`)

// rows returns the body and footer rows of the tables in page: label,
// clicks, installs.
func rows(page string) [][3]string {
	var out [][3]string
	for _, m := range tableRow.FindAllStringSubmatch(page, -1) {
		out = append(out, [3]string{m[1], m[2], m[3]})
	}
	return out
}

func TestTimeSeriesChart(t *testing.T) {
	s := web.TimeSeries{ID: "ts", Title: "Clicks per day", Interval: web.IntervalDay, Timezone: "Europe/Berlin", TableOpen: true}
	for i, c := range []int64{3, 1200, 0, 45} {
		s.Buckets = append(s.Buckets, web.Bucket{Start: time.Date(2026, 3, 28+i, 0, 0, 0, 0, berlin), Clicks: c, Installs: c / 3})
	}
	page := render(t, []web.TimeSeries{s}, nil)
	all := svgs(t, page)
	require.Len(t, all, 1)
	svg := all[0]
	assert.Equal(t, "img", svg.attrs["role"])
	assert.Equal(t, "ts-title ts-desc", svg.attrs["aria-labelledby"])
	assert.Contains(t, page, `<title id="ts-title">`)
	assert.Contains(t, page, `<desc id="ts-desc">`)
	assert.Regexp(t, `^0 0 400 \d+$`, svg.attrs["viewBox"], "scales with its container")
	assert.NotContains(t, svg.attrs, "width", "no fixed width: it fits the phone")
	assert.Equal(t, "Clicks per day", svg.title)
	assert.Equal(t, "Clicks and installs per day from Sat 28 Mar 2026 to Tue 31 Mar 2026 (Europe/Berlin): "+
		"1,248 clicks and 416 installs in all. The busiest day was Sun 29 Mar 2026, with 1,200 clicks.", svg.desc)
	assert.Equal(t, 2, svg.count["polyline"], "a line for clicks and one for installs")
	assert.Equal(t, 8, svg.count["circle"], "a dot per bucket and series")
	assert.Subset(t, svg.texts, []string{"0", "500", "1,000", "1,500"}, "the count axis, in nice steps")
	assert.Subset(t, svg.texts, []string{"28 Mar", "2026", "29 Mar", "30 Mar", "31 Mar"}, "a label per day, the year once")
	assert.Contains(t, page, "Times in Europe/Berlin.")
	assert.Equal(t, [][3]string{
		{"Sat 28 Mar 2026", "3", "1"}, {"Sun 29 Mar 2026", "1,200", "400"}, {"Mon 30 Mar 2026", "0", "0"},
		{"Tue 31 Mar 2026", "45", "15"}, {"Total", "1,248", "416"},
	}, rows(page), "the table has the same numbers")
	assert.Contains(t, page, `<details class="chart-details" open>`)

	s.TableOpen = false
	assert.Contains(t, render(t, []web.TimeSeries{s}, nil), `<details class="chart-details"><summary>`, "folded by default")
}

func TestTimeSeriesChartPoints(t *testing.T) {
	s := web.TimeSeries{ID: "ts", Title: "t", Interval: web.IntervalHour, Timezone: "UTC"}
	for i := range 100 {
		s.Buckets = append(s.Buckets, web.Bucket{Start: time.Date(2026, 3, 2, i, 0, 0, 0, time.UTC), Clicks: int64(i)})
	}
	l := s.Layout()
	points := strings.Fields(l.ClicksLine)
	require.Len(t, points, 100)
	assert.Empty(t, l.ClickDots, "no dots on a long series")
	var x0, y0, x99, y99 float64
	_, err := sscan(points[0], &x0, &y0)
	require.NoError(t, err)
	_, err = sscan(points[99], &x99, &y99)
	require.NoError(t, err)
	assert.Equal(t, l.Bottom, y0, "zero on the axis")
	assert.Less(t, y99, y0, "more clicks, higher")
	assert.Greater(t, x0, l.Left)
	assert.Less(t, x99, l.Right)
	assert.InDelta(t, l.Bottom-(l.Bottom-l.Top)*99/100, y99, 0.05, "99 of a scale to 100")
}

func sscan(p string, x, y *float64) (int, error) {
	return fmt.Sscanf(p, "%g,%g", x, y)
}

func TestBreakdownChart(t *testing.T) {
	page := render(t, nil, []web.Breakdown{countryBreakdown()})
	all := svgs(t, page)
	require.Len(t, all, 1)
	svg := all[0]
	assert.Equal(t, "country-title country-desc", svg.attrs["aria-labelledby"])
	assert.Equal(t, 10, svg.count["rect"], "a clicks and an installs bar for each of four values and Other")
	assert.Subset(t, svg.texts, []string{"Germany (DE)", "United States (…", "Saint Vincent &…", "Unknown", "Other", "1,520", "210"},
		"a long value is shortened in the chart")
	assert.Equal(t, "Clicks and installs by country, 2,974 clicks and 364 installs in all: "+
		"Germany (DE) 1,520 clicks, United States (US) 980 clicks, Saint Vincent & Grenadines (VC) 310 clicks.", svg.desc)
	assert.Equal(t, [][3]string{
		{"Germany (DE)", "1,520", "210"}, {"United States (US)", "980", "133"},
		{"Saint Vincent &amp; Grenadines (VC)", "310", "12"},
		{"Unknown", "44", "0"}, {"Other", "120", "9"}, {"Total", "2,974", "364"},
	}, rows(page), "the table has every value in full, null as Unknown, and the other values")
	assert.Contains(t, page, `<th scope="row" class="muted">Unknown</th>`)

	l := countryBreakdown().Layout()
	assert.Greater(t, l.Bars[0].ClicksWidth, l.Bars[1].ClicksWidth)
	assert.InDelta(t, l.Bars[0].ClicksWidth*980/1520, l.Bars[1].ClicksWidth, 0.1, "bars in proportion")
	assert.InDelta(t, l.Bars[0].ClicksWidth*210/1520, l.Bars[0].InstallsWidth, 0.1, "installs on the same scale")
	assert.LessOrEqual(t, l.Bars[0].ClicksTextX+float64(len("1,520"))*8, float64(l.Width), "the longest bar's count fits")
}

func TestBreakdownChartWithoutOtherOrData(t *testing.T) {
	b := web.Breakdown{ID: "p", Title: "By platform", Dimension: "Platform",
		Rows: []web.BreakdownRow{{Value: ptr("ios"), Counts: web.Counts{Clicks: 2}}}}
	page := render(t, nil, []web.Breakdown{b})
	assert.Equal(t, [][3]string{{"ios", "2", "0"}, {"Total", "2", "0"}}, rows(page), "no Other row when it counts nothing")

	empty := render(t, nil, []web.Breakdown{{ID: "e", Title: "By platform", Dimension: "Platform"}})
	assert.Contains(t, empty, "No clicks or installs to show.")
	assert.NotContains(t, empty, "<svg", "nothing to draw")
	assert.NotContains(t, empty, "<table", "nor to list")
}

// Values a visitor chose (a referer host, a UTM value) are text in the
// chart, its description and its table, never markup.
func TestChartsEscapeValues(t *testing.T) {
	hostile := `<script>alert(1)</script>`
	b := refererBreakdown()
	s := web.TimeSeries{ID: `x"><script>`, Title: hostile, Interval: web.IntervalDay, Timezone: hostile,
		Buckets: []web.Bucket{{Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Clicks: 1}}}
	page := render(t, []web.TimeSeries{s}, []web.Breakdown{b})
	assert.NotContains(t, page, "<script")
	assert.Contains(t, page, `id="x&#34;&gt;&lt;script&gt;"`, "an id stays inside its attribute")
	assert.Contains(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;")
	all := svgs(t, page)
	require.Len(t, all, 2)
	assert.Equal(t, hostile, all[0].title, "the title reads as the value")
	assert.Contains(t, all[1].desc, hostile+" 12 clicks")
	assert.Contains(t, all[1].texts, "<script>alert(1…")
	assert.Contains(t, all[1].desc, `"quoted" & 'apostrophes' 3 clicks`)
	assert.Contains(t, rows(page), [3]string{"&lt;script&gt;alert(1)&lt;/script&gt;", "12", "1"})
	assert.True(t, bytes.Contains([]byte(page), []byte("&#34;quoted&#34; &amp; &#39;apostrophes&#39;")))
}

func TestTimeSeriesChartWithoutBuckets(t *testing.T) {
	page := render(t, []web.TimeSeries{{ID: "none", Title: "Clicks per day", Interval: web.IntervalDay, Timezone: "UTC"}}, nil)
	all := svgs(t, page)
	require.Len(t, all, 1)
	assert.Equal(t, "No buckets to show.", all[0].desc)
	assert.Subset(t, all[0].texts, []string{"0", "1"}, "an empty chart still has a scale")
	assert.Equal(t, [][3]string{{"Total", "0", "0"}}, rows(page))
}
