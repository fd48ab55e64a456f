package web

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNiceTicks(t *testing.T) {
	tests := []struct {
		name string
		top  int64
		want []int64
	}{
		{"nothing counted still has a scale", 0, []int64{0, 1}},
		{"one", 1, []int64{0, 1}},
		{"three: steps of one", 3, []int64{0, 1, 2, 3}},
		{"four: steps of one", 4, []int64{0, 1, 2, 3, 4}},
		{"five: steps of two", 5, []int64{0, 2, 4, 6}},
		{"nine: steps of five", 9, []int64{0, 5, 10}},
		{"a hundred: steps of fifty", 100, []int64{0, 50, 100}},
		{"123: steps of fifty", 123, []int64{0, 50, 100, 150}},
		{"millions", 1_234_567, []int64{0, 500_000, 1_000_000, 1_500_000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, niceTicks(tt.top, 4))
		})
	}
}

// Any count gets at most four steps of 1, 2 or 5 times a power of ten
// from 0 to the first tick not below it.
func TestNiceTicksProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		top := r.Int64N(1 << uint(r.IntN(50)+1))
		ticks := niceTicks(top, 4)
		require.GreaterOrEqual(t, len(ticks), 2, "top %d", top)
		assert.LessOrEqual(t, len(ticks)-1, 4, "top %d", top)
		assert.Equal(t, int64(0), ticks[0])
		assert.GreaterOrEqual(t, ticks[len(ticks)-1], top)
		step := ticks[1]
		assert.Less(t, ticks[len(ticks)-2], max(top, 1), "top %d: no tick wholly above the data", top)
		for i := range ticks {
			assert.Equal(t, int64(i)*step, ticks[i])
		}
		m := step
		for m%10 == 0 {
			m /= 10
		}
		assert.Contains(t, []int64{1, 2, 5}, m, "step %d", step)
	}
}

func TestFormatCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 12345: "12,345",
		1234567: "1,234,567", -1234: "-1,234"} {
		assert.Equal(t, want, formatCount(n))
	}
	for n, want := range map[int64]string{0: "0", 9999: "9,999", 10000: "10k", 12500: "12.5k", 999_000: "999k",
		1_500_000: "1.5M", 20_000_000: "20M", 3_000_000_000: "3B"} {
		assert.Equal(t, want, compactCount(n))
	}
}

func TestLinear(t *testing.T) {
	s := linear{0, 100, 200, 0}
	assert.Equal(t, 200.0, s.at(0))
	assert.Equal(t, 100.0, s.at(50))
	assert.Equal(t, 0.0, s.at(100))
	assert.Equal(t, 5.0, linear{3, 3, 5, 9}.at(3), "an empty domain maps to the range's start")
}

// series returns n bucket starts of interval from first, as the API
// computes them in first's zone.
func series(first time.Time, interval string, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		switch interval {
		case IntervalHour:
			out[i] = first.Add(time.Duration(i) * time.Hour)
		case IntervalDay:
			out[i] = first.AddDate(0, 0, i)
		case IntervalWeek:
			out[i] = first.AddDate(0, 0, 7*i)
		case IntervalMonth:
			out[i] = first.AddDate(0, i, 0)
		}
	}
	return out
}

func labels(ticks []timeTick) []string {
	out := make([]string, len(ticks))
	for i, tk := range ticks {
		out[i] = tk.label.main
		if tk.label.context != "" {
			out[i] += "/" + tk.label.context
		}
	}
	return out
}

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	require.NoError(t, err)
	return loc
}

func TestTimeTicks(t *testing.T) {
	const width, font, gap = 360, chartFontSize, chartTickGap
	berlin := mustZone(t, "Europe/Berlin")
	kolkata := mustZone(t, "Asia/Kolkata")
	tests := []struct {
		name     string
		starts   []time.Time
		interval string
		want     []string
	}{
		{"a day of hours: every six hours, the date once",
			series(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), IntervalHour, 24), IntervalHour,
			[]string{"00:00/2 Mar", "06:00", "12:00", "18:00"}},
		{"two days of hours: the date where it changes",
			series(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), IntervalHour, 48), IntervalHour,
			[]string{"00:00/2 Mar", "12:00", "00:00/3 Mar", "12:00"}},
		{"hours of a :30 zone start at half past",
			series(time.Date(2026, 3, 2, 0, 30, 0, 0, kolkata), IntervalHour, 24), IntervalHour,
			[]string{"03:30/2 Mar", "06:30", "09:30", "12:30", "15:30", "18:30", "21:30"}},
		{"a week of days: each day",
			series(time.Date(2026, 3, 2, 0, 0, 0, 0, berlin), IntervalDay, 7), IntervalDay,
			[]string{"2 Mar/2026", "3 Mar", "4 Mar", "5 Mar", "6 Mar", "7 Mar", "8 Mar"}},
		{"thirty days across the spring change: Mondays",
			series(time.Date(2026, 3, 15, 0, 0, 0, 0, berlin), IntervalDay, 30), IntervalDay,
			[]string{"16 Mar/2026", "23 Mar", "30 Mar", "6 Apr", "13 Apr"}},
		{"a year of days: months",
			series(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), IntervalDay, 365), IntervalDay,
			[]string{"Jan/2026", "Mar", "May", "Jul", "Sep", "Nov"}},
		{"a year of weeks: the first week of every other month",
			series(time.Date(2025, 12, 29, 0, 0, 0, 0, time.UTC), IntervalWeek, 53), IntervalWeek,
			[]string{"5 Jan/2026", "2 Mar", "4 May", "6 Jul", "7 Sep", "2 Nov"}},
		{"a year of months, across a new year",
			series(time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC), IntervalMonth, 12), IntervalMonth,
			[]string{"Jul/2025", "Aug", "Sep", "Oct", "Nov", "Dec", "Jan/2026", "Feb", "Mar", "Apr", "May", "Jun"}},
		{"one bucket", series(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), IntervalDay, 1), IntervalDay,
			[]string{"2 Mar/2026"}},
		{"one bucket at half past: labelled all the same",
			series(time.Date(2026, 3, 2, 5, 30, 0, 0, kolkata), IntervalHour, 1), IntervalHour,
			[]string{"05:30/2 Mar"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, labels(timeTicks(tt.starts, tt.interval, width, font, gap)))
		})
	}
}

// For every interval, zone and window of 1 to 365 buckets (every count
// to 62, every fifth beyond, and 365), on a phone's axis and a wide one, the ticks are in order, at least one, and their
// labels stay inside the axis without touching.
func TestTimeTicksNeverOverlap(t *testing.T) {
	next := func(n int) int {
		switch {
		case n < 62:
			return n + 1
		case n < 360:
			return n + 5
		case n < 365:
			return 365
		}
		return n + 1
	}
	zones := []*time.Location{time.UTC, mustZone(t, "Europe/Berlin"), mustZone(t, "Asia/Kolkata")}
	firsts := map[string]func(*time.Location) time.Time{
		IntervalHour:  func(l *time.Location) time.Time { return time.Date(2026, 3, 27, 17, 0, 0, 0, l) },
		IntervalDay:   func(l *time.Location) time.Time { return time.Date(2026, 2, 20, 0, 0, 0, 0, l) },
		IntervalWeek:  func(l *time.Location) time.Time { return time.Date(2025, 12, 29, 0, 0, 0, 0, l) },
		IntervalMonth: func(l *time.Location) time.Time { return time.Date(2025, 11, 1, 0, 0, 0, 0, l) },
	}
	for interval, first := range firsts {
		for _, loc := range zones {
			for _, width := range []float64{300, 560} {
				for n := 1; n <= 365; n = next(n) {
					starts := series(first(loc), interval, n)
					ticks := timeTicks(starts, interval, width, chartFontSize, chartTickGap)
					where := fmt.Sprintf("%s %s width %v n %d: %v", interval, loc, width, n, labels(ticks))
					require.NotEmpty(t, ticks, where)
					bucket := width / float64(n)
					lastMain, lastContext, lastIndex := -1e9, -1e9, -1
					for _, tk := range ticks {
						w := labelWidth(tk.label, chartFontSize)
						x := tickX(tk.index, bucket, width, w)
						require.GreaterOrEqual(t, x-w/2, 0.0, where)
						require.LessOrEqual(t, x+w/2, width, where)
						require.Greater(t, tk.index, lastIndex, where)
						lastIndex = tk.index
						wm := textWidth(tk.label.main, chartFontSize)
						require.GreaterOrEqual(t, x-wm/2, lastMain+chartTickGap, where)
						lastMain = x + wm/2
						if tk.label.context != "" {
							wc := textWidth(tk.label.context, chartFontSize)
							require.GreaterOrEqual(t, x-wc/2, lastContext+chartTickGap, where)
							lastContext = x + wc/2
						}
					}
				}
			}
		}
	}
}
