//go:build !race

package testkit

// RaceDetector reports whether the binary runs with the race detector.
const RaceDetector = false
