//go:build race

package httpapi_test

// raceDetector reports whether the tests run with the race detector, which
// makes the million-row export test take many minutes; .ci/run runs that
// test once more without it.
const raceDetector = true
