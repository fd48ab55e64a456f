//go:build race

package testkit

// RaceDetector reports whether the binary runs with the race detector,
// under which the tests that compare many views with a raw scan check a
// sample of them and the million-row export skips; .ci/run runs those
// tests once more without it, in full.
const RaceDetector = true
