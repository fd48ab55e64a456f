package web

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// linear maps the domain [d0, d1] onto the range [r0, r1].
type linear struct{ d0, d1, r0, r1 float64 }

// at returns the position of v.
func (s linear) at(v float64) float64 {
	if s.d1 == s.d0 {
		return s.r0
	}
	return s.r0 + (v-s.d0)*(s.r1-s.r0)/(s.d1-s.d0)
}

// niceTicks returns the ticks of an axis of counts from 0 to at least top:
// 0, step, 2*step, ... up to the first multiple of step not below top, with
// step 1, 2 or 5 times a power of ten and at most intervals steps. A top of
// 0 or less gives 0 and 1, so that an empty chart still has a scale.
func niceTicks(top int64, intervals int) []int64 {
	if top <= 0 {
		return []int64{0, 1}
	}
	intervals = min(max(intervals, 1), 10)
	step := int64(1)
	for p := int64(1); ; p *= 10 {
		found := false
		for _, m := range []int64{1, 2, 5} {
			step = m * p
			if (top+step-1)/step <= int64(intervals) {
				found = true
				break
			}
		}
		if found || p > (1<<62)/100 {
			break
		}
	}
	n := (top + step - 1) / step
	out := make([]int64, 0, n+1)
	for i := int64(0); i <= n; i++ {
		out = append(out, i*step)
	}
	return out
}

// formatCount writes n with a comma between groups of three digits
// ("12,345"), as the tables show counts.
func formatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// compactCount writes an axis label: n in full below 10,000, then in
// thousands ("12.5k") and millions ("3M"), with at most one decimal.
func compactCount(n int64) string {
	switch {
	case n < 10_000 && n > -10_000:
		return formatCount(n)
	case n < 1_000_000 && n > -1_000_000:
		return oneDecimal(float64(n)/1e3) + "k"
	case n < 1_000_000_000 && n > -1_000_000_000:
		return oneDecimal(float64(n)/1e6) + "M"
	}
	return oneDecimal(float64(n)/1e9) + "B"
}

func oneDecimal(f float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0")
}

// Intervals of a time series, as GET /v1/analytics/timeseries names them.
const (
	IntervalHour  = "hour"
	IntervalDay   = "day"
	IntervalWeek  = "week"
	IntervalMonth = "month"
)

// calendar units of the time axis, finest first.
type unit int

const (
	unitHour unit = iota
	unitDay
	unitWeek
	unitMonth
	unitYear
)

// intervalUnit returns the unit of an interval; an unknown one is a day.
func intervalUnit(interval string) unit {
	switch interval {
	case IntervalHour:
		return unitHour
	case IntervalWeek:
		return unitWeek
	case IntervalMonth:
		return unitMonth
	}
	return unitDay
}

// civilDay returns the days from 1970-01-01 to t's date on its own clock.
func civilDay(t time.Time) int64 {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// key numbers the units of u that t is in, on t's own clock: hours, days,
// weeks from Monday, months or years.
func (u unit) key(t time.Time) int64 {
	switch u {
	case unitHour:
		return civilDay(t)*24 + int64(t.Hour())
	case unitDay:
		return civilDay(t)
	case unitWeek:
		// 1970-01-01 was a Thursday: day 0 is in the week of Monday -3.
		return floorDiv(civilDay(t)+3, 7)
	case unitMonth:
		return int64(t.Year())*12 + int64(t.Month()) - 1
	}
	return int64(t.Year())
}

// ticker marks a tick where a new group of n units begins.
type ticker struct {
	unit unit
	n    int64
}

// tickers lists the tick spacings tried for an axis of buckets of the
// interval's unit, finest first: never finer than a bucket.
func tickers(interval unit) []ticker {
	all := []ticker{
		{unitHour, 1}, {unitHour, 2}, {unitHour, 3}, {unitHour, 6}, {unitHour, 12},
		{unitDay, 1}, {unitDay, 2}, {unitWeek, 1}, {unitWeek, 2},
		{unitMonth, 1}, {unitMonth, 2}, {unitMonth, 3}, {unitMonth, 6},
		{unitYear, 1}, {unitYear, 2}, {unitYear, 5}, {unitYear, 10}, {unitYear, 25}, {unitYear, 50}, {unitYear, 100},
	}
	out := all[:0:0]
	for _, tk := range all {
		if tk.unit >= interval {
			out = append(out, tk)
		}
	}
	return out
}

// group returns the group of tk that t is in.
func (tk ticker) group(t time.Time) int64 { return floorDiv(tk.unit.key(t), tk.n) }

// marks returns the indexes of the buckets that begin a new group: the
// first bucket when a group begins exactly at its start, and every other
// bucket in a group other than its predecessor's.
func (tk ticker) marks(starts []time.Time) []int {
	var out []int
	for i, t := range starts {
		var prev time.Time
		if i == 0 {
			prev = t.Add(-time.Nanosecond)
		} else {
			prev = starts[i-1]
		}
		if tk.group(t) != tk.group(prev) {
			out = append(out, i)
		}
	}
	return out
}

// axisLabel is a time axis label: a main line and an optional second line
// that gives the context the main line leaves out (the date under an
// hour, the year under a day or a month).
type axisLabel struct{ main, context string }

// label returns the label of the tick at t, given the previous tick's time
// (zero for the first tick): the context line appears on the first tick
// and where the context changes.
func (tk ticker) label(t, prev time.Time, interval unit) axisLabel {
	u := tk.unit
	if interval == unitWeek && u > unitWeek {
		// A week that begins a month starts on some day of it: say which.
		u = unitDay
	}
	first := prev.IsZero()
	switch u {
	case unitHour:
		l := axisLabel{main: t.Format("15:04")}
		if first || civilDay(t) != civilDay(prev) {
			l.context = t.Format("2 Jan")
		}
		return l
	case unitDay, unitWeek:
		l := axisLabel{main: t.Format("2 Jan")}
		if first || t.Year() != prev.Year() {
			l.context = strconv.Itoa(t.Year())
		}
		return l
	case unitMonth:
		l := axisLabel{main: t.Format("Jan")}
		if first || t.Year() != prev.Year() {
			l.context = strconv.Itoa(t.Year())
		}
		return l
	}
	return axisLabel{main: strconv.Itoa(t.Year())}
}

// timeTick is one tick of the time axis: the index of its bucket and its
// label.
type timeTick struct {
	index int
	label axisLabel
}

// textWidth estimates the width of s in user units at fontSize.
func textWidth(s string, fontSize float64) float64 {
	return float64(len([]rune(s))) * charWidth * fontSize
}

// labelWidth is the width of l's longer line.
func labelWidth(l axisLabel, fontSize float64) float64 {
	return max(textWidth(l.main, fontSize), textWidth(l.context, fontSize))
}

// charWidth is the average advance of a character of the system fonts in
// font sizes, a little generous so that estimates do not overlap.
const charWidth = 0.62

// timeTicks chooses the ticks of a time axis of n = len(starts) buckets
// of interval drawn over width units at fontSize: the finest calendar
// spacing whose labels, each centred under its bucket's point (the
// bucket's middle) and kept inside the axis, leave gap units between
// neighbours on each line. When no spacing fits, the
// first bucket alone is labelled.
func timeTicks(starts []time.Time, interval string, width, fontSize, gap float64) []timeTick {
	if len(starts) == 0 {
		return nil
	}
	iu := intervalUnit(interval)
	bucket := width / float64(len(starts))
	for _, tk := range tickers(iu) {
		marks := tk.marks(starts)
		if len(marks) == 0 {
			continue
		}
		ticks := make([]timeTick, len(marks))
		var prev time.Time
		for j, i := range marks {
			ticks[j] = timeTick{index: i, label: tk.label(starts[i], prev, iu)}
			prev = starts[i]
		}
		if fits(ticks, bucket, width, fontSize, gap) {
			return ticks
		}
	}
	tk := ticker{unit: iu, n: 1}
	return []timeTick{{index: 0, label: tk.label(starts[0], time.Time{}, iu)}}
}

// tickX returns where the label of the tick at bucket i is centred: under
// the bucket's middle, moved inward as far as the label needs to stay
// inside [0, width].
func tickX(i int, bucket, width, labelW float64) float64 {
	x := (float64(i) + 0.5) * bucket
	return min(max(x, labelW/2), width-labelW/2)
}

// fits reports whether the labels of ticks fit the axis and leave gap
// between neighbours on each of their two lines.
func fits(ticks []timeTick, bucket, width, fontSize, gap float64) bool {
	lastMain, lastContext := math.Inf(-1), math.Inf(-1)
	for _, tk := range ticks {
		w := labelWidth(tk.label, fontSize)
		if w > width {
			return false
		}
		x := tickX(tk.index, bucket, width, w)
		wm := textWidth(tk.label.main, fontSize)
		if x-wm/2 < lastMain+gap {
			return false
		}
		lastMain = x + wm/2
		if tk.label.context != "" {
			wc := textWidth(tk.label.context, fontSize)
			if x-wc/2 < lastContext+gap {
				return false
			}
			lastContext = x + wc/2
		}
	}
	return true
}
