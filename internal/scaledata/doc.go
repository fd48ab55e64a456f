// Package scaledata generates a realistic organization at scale for the
// benchmarks: an organization of the Scale plan with its apps, links and
// clicks over the last days, the clicks skewed as real traffic is and
// written through the store's batch path as the recorder writes them. It
// owns the shape of that data (Config, the click generator) and the
// percentiles the benchmarks report (Quantile); the benchmarks that use it
// add what they measure on top.
//
// It is a non-test package only so that the benchmarks of several packages
// share one generator; nothing but _test.go files may import it. It
// imports store and the domain packages the store writes, never httpapi.
package scaledata
