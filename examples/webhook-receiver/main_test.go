package main

import (
	"strings"
	"testing"
)

// TestRun checks the demo: the delivery is handled once, its retry is
// recognised, and a changed body or another secret is refused.
func TestRun(t *testing.T) {
	var b strings.Builder
	run(&b)
	want := []string{
		"install 0193a8f2-0000-7000-8000-000000000001 came from link 0193a8f2-0000-7000-8000-000000000002 (deterministic, confidence 1.00)",
		"delivery -> 204",
		"duplicate evt-1: already handled",
		"retry -> 204",
		"refused: webhook: no signature matches",
		"changed body -> 401",
		"refused: webhook: no signature matches",
		"other secret -> 401",
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
