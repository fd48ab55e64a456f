package main

import (
	"strings"
	"testing"
)

// TestRun checks the example's output: the Pixel 8 session (two clicks)
// matches, the reduced Chrome agent in another language scores little and
// the Galaxy, another model, is ruled out by it.
func TestRun(t *testing.T) {
	var b strings.Builder
	run(&b)
	want := []string{
		"Pixel 8, pt-BR, 6 min ago                  clicks 2  probability 0.9895  decided by [time ip device_model]",
		"Chrome reduced agent, en-US, 20 min ago    clicks 1  probability 0.0023  decided by [time ip language]",
		"Galaxy S23, pt-BR, 3 min ago               clicks 1  probability 0.0000  decided by [time ip device_model]",
		"match: Pixel 8, pt-BR, 6 min ago (at least 0.85 and 4 times the runner-up's odds)",
	}
	got := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(got), len(want), b.String())
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %q\nwant %q", i+1, got[i], want[i])
		}
	}
}
