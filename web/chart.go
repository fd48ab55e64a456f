package web

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Charts are drawn on the server as inline SVG, with no script and no
// style attribute (the CSP allows neither): the templates in
// templates/parts/chart.html draw the geometry that TimeSeries.Layout and
// Breakdown.Layout compute, and the stylesheet colours it through the
// classes chart-clicks and chart-installs, light and dark. Each chart is a
// figure: a caption, a legend, the SVG (role img, with a title and a
// description that says what it shows in words) and a table of the same
// numbers. The SVG scales with its viewBox; its fonts are sized for the
// 390 px phone, where the viewBox is drawn a little smaller than 1:1.
//
// A page shows one with {{template "timeseries-chart" .}} or
// {{template "breakdown-chart" .}} on a TimeSeries or Breakdown.

// Chart geometry, in SVG user units.
const (
	chartWidth    = 400
	chartFontSize = 12
	// chartTickGap is the least room between two axis labels.
	chartTickGap = 6
	// seriesHeight is the time series' plot height.
	seriesHeight = 160
	// seriesDots is the most buckets whose points are marked with dots.
	seriesDots = 62
	// barRow is the height of a breakdown row; barLabelWidth the room of
	// its label, barLabelChars the characters that fit there.
	barRow        = 32
	barLabelWidth = 124
	barLabelChars = 16
	// barValueWidth is the room right of the longest bar for its count.
	barValueWidth = 68
)

// TimeSeries fills a time series chart of clicks and installs per bucket,
// the shape of GET /v1/analytics/timeseries.
type TimeSeries struct {
	// ID is unique in the page: it prefixes the ids the SVG's title and
	// description are referred to by.
	ID string
	// Title is the figure's caption and the SVG's title.
	Title string
	// Interval is the buckets' length: IntervalHour, IntervalDay,
	// IntervalWeek or IntervalMonth.
	Interval string
	// Timezone is the IANA name of the buckets' zone, which the caption
	// states. The buckets' Start times are shown on their own clocks, so
	// they must be in that zone (as the API's offsets put them).
	Timezone string
	// Buckets are the series, oldest first.
	Buckets []Bucket
	// TableOpen shows the table unfolded; it is folded under a summary
	// otherwise, since it has a row per bucket.
	TableOpen bool
}

// Bucket is one bucket of a TimeSeries.
type Bucket struct {
	Start            time.Time
	Clicks, Installs int64
}

// Breakdown fills a bar chart of clicks and installs per value of a
// dimension, the shape of GET /v1/analytics/breakdown.
type Breakdown struct {
	// ID is unique in the page (see TimeSeries.ID).
	ID string
	// Title is the figure's caption and the SVG's title.
	Title string
	// Dimension names the values, as the table's first heading
	// ("Country", "Referrer").
	Dimension string
	// Rows are the values, most clicks first. A nil Value is shown as
	// "Unknown". A caller may put a display name in Value (a country's
	// name for its code, a link's name for its id).
	Rows []BreakdownRow
	// Other sums the values beyond Rows; it is shown last, as "Other",
	// when it counts any click or install.
	Other Counts
}

// BreakdownRow is one value of a Breakdown.
type BreakdownRow struct {
	Value *string
	Counts
}

// Counts are the clicks and installs of a value or a bucket.
type Counts struct {
	Clicks, Installs int64
}

// Point is a point of a chart, in user units.
type Point struct{ X, Y float64 }

// AxisTick is a tick of an axis: its position along the axis and its
// label, in one or two lines.
type AxisTick struct {
	At          float64
	Label       string
	LabelBottom string
}

// TableRow is a row of a chart's table, its numbers formatted.
type TableRow struct {
	Label            string
	Clicks, Installs string
	// Muted marks the rows that are not a single value (Unknown, Other).
	Muted bool
}

// SeriesLayout is what the time series template draws.
type SeriesLayout struct {
	Width, Height int
	// The plot's box.
	Left, Top, Right, Bottom float64
	YTicks, XTicks           []AxisTick
	// ClicksLine and InstallsLine are polyline points ("x,y x,y ...");
	// ClickDots and InstallDots mark each point when there are few.
	ClicksLine, InstallsLine string
	ClickDots, InstallDots   []Point
	// YLabelX is where the count labels end; TickEnd where the time
	// ticks end; LabelY and ContextY the baselines of the time labels'
	// two lines.
	YLabelX, TickEnd, LabelY, ContextY float64
	// Zone states the buckets' time zone under the chart.
	Zone string
	Desc string
	chartTable
}

// chartTable is what the table under a chart shows.
type chartTable struct {
	// Caption is the chart's title; Heading heads the first column.
	Caption, Heading string
	Rows             []TableRow
	Total            TableRow
}

// Layout computes the chart of s.
func (s TimeSeries) Layout() SeriesLayout {
	var top int64
	var total Counts
	for _, b := range s.Buckets {
		top = max(top, b.Clicks, b.Installs)
		total.Clicks += b.Clicks
		total.Installs += b.Installs
	}
	yt := niceTicks(top, 4)
	left := round(8 + textWidth(compactCount(yt[len(yt)-1]), chartFontSize))
	l := SeriesLayout{Width: chartWidth, Left: left, Top: 8, Right: chartWidth - 4, Bottom: 8 + seriesHeight,
		Zone: s.Timezone, chartTable: chartTable{Caption: s.Title, Heading: bucketHeading(s.Interval)}}
	l.YLabelX = l.Left - 6
	l.TickEnd = l.Bottom + 4
	l.LabelY = l.TickEnd + chartFontSize + 2
	l.ContextY = l.LabelY + chartFontSize + 2
	l.Height = int(l.ContextY) + 6
	y := linear{0, float64(yt[len(yt)-1]), l.Bottom, l.Top}
	for _, v := range yt {
		l.YTicks = append(l.YTicks, AxisTick{At: round(y.at(float64(v))), Label: compactCount(v)})
	}

	n := len(s.Buckets)
	plotW := l.Right - l.Left
	bucket := plotW / float64(max(n, 1))
	starts := make([]time.Time, n)
	var clicks, installs []string
	for i, b := range s.Buckets {
		starts[i] = b.Start
		x := round(l.Left + (float64(i)+0.5)*bucket)
		pc, pi := Point{x, round(y.at(float64(b.Clicks)))}, Point{x, round(y.at(float64(b.Installs)))}
		clicks = append(clicks, pointString(pc))
		installs = append(installs, pointString(pi))
		if n <= seriesDots {
			l.ClickDots = append(l.ClickDots, pc)
			l.InstallDots = append(l.InstallDots, pi)
		}
		l.Rows = append(l.Rows, TableRow{Label: bucketLabel(b.Start, s.Interval),
			Clicks: formatCount(b.Clicks), Installs: formatCount(b.Installs)})
	}
	l.ClicksLine, l.InstallsLine = strings.Join(clicks, " "), strings.Join(installs, " ")
	for _, tk := range timeTicks(starts, s.Interval, plotW, chartFontSize, chartTickGap) {
		w := labelWidth(tk.label, chartFontSize)
		l.XTicks = append(l.XTicks, AxisTick{At: round(l.Left + tickX(tk.index, bucket, plotW, w)),
			Label: tk.label.main, LabelBottom: tk.label.context})
	}
	l.Total = TableRow{Label: "Total", Clicks: formatCount(total.Clicks), Installs: formatCount(total.Installs)}
	l.Desc = s.describe(total)
	return l
}

// describe says in words what the time series shows.
func (s TimeSeries) describe(total Counts) string {
	if len(s.Buckets) == 0 {
		return "No buckets to show."
	}
	first, last := s.Buckets[0], s.Buckets[len(s.Buckets)-1]
	peak := first
	for _, b := range s.Buckets {
		if b.Clicks > peak.Clicks {
			peak = b
		}
	}
	d := fmt.Sprintf("Clicks and installs per %s from %s to %s (%s): %s and %s in all.",
		intervalName(s.Interval), bucketLabel(first.Start, s.Interval), bucketLabel(last.Start, s.Interval), s.Timezone,
		plural(total.Clicks, "click"), plural(total.Installs, "install"))
	if peak.Clicks > 0 {
		d += fmt.Sprintf(" The busiest %s was %s, with %s.", intervalName(s.Interval),
			bucketLabel(peak.Start, s.Interval), plural(peak.Clicks, "click"))
	}
	return d
}

// BreakdownLayout is what the breakdown template draws.
type BreakdownLayout struct {
	Width, Height int
	Bars          []Bar
	Desc          string
	chartTable
	// Empty is true when no click or install is counted: the template
	// says so instead of drawing.
	Empty bool
}

// barRowData is a row of a breakdown before it is drawn.
type barRowData struct {
	label string
	muted bool
	c     Counts
}

// Bar is one row of the breakdown chart.
type Bar struct {
	// Label is the value, shortened to fit; the table has it whole.
	Label string
	Muted bool
	Y     float64
	// ClicksWidth and InstallsWidth are the bars' lengths from BarX.
	BarX                       float64
	ClicksWidth, InstallsWidth float64
	Clicks, Installs           string
	// ClicksTextX and InstallsTextX are where the counts begin, right of
	// their bars.
	ClicksTextX, InstallsTextX float64
}

// unknownLabel and otherLabel name a null value and the values beyond the
// rows.
const (
	unknownLabel = "Unknown"
	otherLabel   = "Other"
)

// Layout computes the chart of b.
func (b Breakdown) Layout() BreakdownLayout {
	var rows []barRowData
	for _, r := range b.Rows {
		if r.Value == nil {
			rows = append(rows, barRowData{unknownLabel, true, r.Counts})
		} else {
			rows = append(rows, barRowData{*r.Value, false, r.Counts})
		}
	}
	if b.Other.Clicks > 0 || b.Other.Installs > 0 {
		rows = append(rows, barRowData{otherLabel, true, b.Other})
	}
	var top int64
	var total Counts
	for _, r := range rows {
		top = max(top, r.c.Clicks, r.c.Installs)
		total.Clicks += r.c.Clicks
		total.Installs += r.c.Installs
	}
	l := BreakdownLayout{Width: chartWidth, Height: len(rows)*barRow + 4, Empty: total.Clicks == 0 && total.Installs == 0,
		chartTable: chartTable{Caption: b.Title, Heading: b.Dimension}}
	x := linear{0, float64(max(top, 1)), 0, chartWidth - barLabelWidth - barValueWidth}
	for i, r := range rows {
		bar := Bar{Label: shorten(r.label, barLabelChars), Muted: r.muted,
			Y: float64(i * barRow), BarX: barLabelWidth,
			ClicksWidth: round(x.at(float64(r.c.Clicks))), InstallsWidth: round(x.at(float64(r.c.Installs))),
			Clicks: formatCount(r.c.Clicks), Installs: formatCount(r.c.Installs)}
		bar.ClicksTextX = bar.BarX + bar.ClicksWidth + 4
		bar.InstallsTextX = bar.BarX + bar.InstallsWidth + 4
		l.Bars = append(l.Bars, bar)
		l.Rows = append(l.Rows, TableRow{Label: r.label, Muted: r.muted,
			Clicks: formatCount(r.c.Clicks), Installs: formatCount(r.c.Installs)})
	}
	l.Total = TableRow{Label: "Total", Clicks: formatCount(total.Clicks), Installs: formatCount(total.Installs)}
	l.Desc = b.describe(rows[:min(len(rows), 3)], total)
	return l
}

// describe says in words what the breakdown shows: the totals and the
// first rows.
func (b Breakdown) describe(first []barRowData, total Counts) string {
	if total.Clicks == 0 && total.Installs == 0 {
		return "No clicks or installs to show."
	}
	parts := make([]string, len(first))
	for i, r := range first {
		parts[i] = fmt.Sprintf("%s %s", r.label, plural(r.c.Clicks, "click"))
	}
	return fmt.Sprintf("%s by %s, %s and %s in all: %s.", "Clicks and installs", strings.ToLower(b.Dimension),
		plural(total.Clicks, "click"), plural(total.Installs, "install"), strings.Join(parts, ", "))
}

// shorten cuts s to n characters, the last an ellipsis, when it is longer.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return formatCount(n) + " " + word + "s"
}

// round rounds v to a tenth of a unit, so that the SVG stays short.
func round(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 1, 64), 64)
	return f
}

func pointString(p Point) string {
	return strconv.FormatFloat(p.X, 'f', -1, 64) + "," + strconv.FormatFloat(p.Y, 'f', -1, 64)
}

// intervalName is the word for one bucket of interval.
func intervalName(interval string) string {
	switch interval {
	case IntervalHour, IntervalWeek, IntervalMonth:
		return interval
	}
	return IntervalDay
}

// bucketHeading heads the first column of a time series' table.
func bucketHeading(interval string) string {
	switch interval {
	case IntervalHour:
		return "Hour"
	case IntervalWeek:
		return "Week of"
	case IntervalMonth:
		return "Month"
	}
	return "Day"
}

// bucketLabel names the bucket that starts at t, on t's clock.
func bucketLabel(t time.Time, interval string) string {
	switch interval {
	case IntervalHour:
		return t.Format("Mon 2 Jan 2006 15:04")
	case IntervalMonth:
		return t.Format("January 2006")
	}
	return t.Format("Mon 2 Jan 2006")
}
