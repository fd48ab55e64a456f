package app

import (
	"runtime/debug"
	"testing"
)

// restoreGC puts the collector's settings back as the test found them.
func restoreGC(t *testing.T) {
	percent := debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
}

func currentGCPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestTuneGCSetsTheServerTargetAndLimit(t *testing.T) {
	restoreGC(t)
	debug.SetGCPercent(100)
	got := tuneGC(env(nil), func() int64 { return 8 << 30 })
	if got.percent != serveGCPercent || currentGCPercent() != serveGCPercent {
		t.Fatalf("GOGC unset: settings %+v, runtime percent %d, want %d", got, currentGCPercent(), serveGCPercent)
	}
	if got.memoryLimit != 4<<30 || debug.SetMemoryLimit(-1) != 4<<30 {
		t.Fatalf("GOMEMLIMIT unset, 8 GiB: limit %d (runtime %d), want half", got.memoryLimit, debug.SetMemoryLimit(-1))
	}
}

func TestTuneGCLeavesTheOperatorsSettings(t *testing.T) {
	restoreGC(t)
	debug.SetGCPercent(150)
	debug.SetMemoryLimit(3 << 30)
	got := tuneGC(env(map[string]string{"GOGC": "150", "GOMEMLIMIT": "3GiB"}), func() int64 { return 8 << 30 })
	if got != (gcSettings{}) || currentGCPercent() != 150 || debug.SetMemoryLimit(-1) != 3<<30 {
		t.Fatalf("GOGC and GOMEMLIMIT set: settings %+v, runtime percent %d, limit %d; want them untouched",
			got, currentGCPercent(), debug.SetMemoryLimit(-1))
	}
}

func TestTuneGCWithoutKnownMemorySetsNoLimit(t *testing.T) {
	restoreGC(t)
	before := debug.SetMemoryLimit(-1)
	got := tuneGC(env(map[string]string{"GOGC": "off"}), func() int64 { return 0 })
	if got.memoryLimit != 0 || debug.SetMemoryLimit(-1) != before {
		t.Fatalf("memory unknown: limit %d, runtime %d; want none set", got.memoryLimit, debug.SetMemoryLimit(-1))
	}
	if got.percent != 0 {
		t.Fatalf("GOGC set: percent %d set", got.percent)
	}
}

func TestMemTotal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"MemTotal:       24576000 kB\nMemFree:  100 kB\n", 24576000 << 10},
		{"MemFree:  100 kB\nMemTotal: 2048 kB\n", 2048 << 10},
		{"MemTotal: 2048 MB\n", 0},
		{"MemTotal: lots kB\n", 0},
		{"MemTotal: -5 kB\n", 0},
		{"MemTotal:\n", 0},
		{"", 0},
	} {
		if got := memTotal([]byte(tc.in)); got != tc.want {
			t.Errorf("memTotal(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestCgroupLimit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"1073741824\n", 1 << 30},
		{"max\n", 0},
		{"", 0},
		{"0\n", 0},
		{"-1", 0},
	} {
		if got := cgroupLimit([]byte(tc.in)); got != tc.want {
			t.Errorf("cgroupLimit(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
