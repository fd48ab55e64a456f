package scaledata

import (
	"slices"
	"time"
)

// Quantile returns the q-th percentile of ds in milliseconds: the
// duration at index len(ds)*q/100 of ds sorted (ds is sorted in place),
// 0 when ds is empty.
func Quantile(ds []time.Duration, q int) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return float64(ds[min(len(ds)-1, len(ds)*q/100)].Microseconds()) / 1000
}
