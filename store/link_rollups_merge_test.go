package store

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
)

// mergeLinkRollup sums a stored row and a change by dimension and value:
// values left without counts go, a count below zero is kept at zero, a
// dimension this writer does not know is kept as it was, and a row left
// with nothing is deleted (nil).
func TestMergeLinkRollup(t *testing.T) {
	v := func(value string, clicks, installs int64) analytics.LinkRollupValue {
		return analytics.LinkRollupValue{Value: value, Clicks: clicks, Installs: installs}
	}
	future := analytics.LinkRollupDim{Dim: "zz_later", Values: []analytics.LinkRollupValue{v("x", 3, 0)}}
	stored, err := analytics.EncodeLinkRollup(nil, &analytics.LinkRollup{Dims: []analytics.LinkRollupDim{
		{Dim: analytics.DimCountry, Values: []analytics.LinkRollupValue{v("DE", 2, 1), v("US", 1, 0)}},
		{Dim: analytics.DimPlatform, Values: []analytics.LinkRollupValue{v("ios", 3, 1)}},
		future,
	}})
	require.NoError(t, err)

	lc := &linkCounts{values: map[linkDimValue]*rollupCounts{}}
	dim := func(d analytics.Dimension) int {
		for i := range linkRollupDims {
			if linkRollupDims[i] == d {
				return i
			}
		}
		t.Fatalf("no dimension %s", d)
		return 0
	}
	lc.add(linkDimValue{dim(analytics.DimCountry), "US"}, -1, 0) // the only click of US removed
	lc.add(linkDimValue{dim(analytics.DimCountry), "FR"}, 2, 0)
	lc.add(linkDimValue{dim(analytics.DimCountry), "DE"}, -5, 0) // more removed than counted
	lc.add(linkDimValue{dim(analytics.DimBrowser), "Safari"}, 1, 0)

	data, err := mergeLinkRollup(linkRollupKey{}, lc.sorted(), stored)
	require.NoError(t, err)
	got, err := analytics.DecodeLinkRollup(data)
	require.NoError(t, err)
	require.Equal(t, []analytics.LinkRollupDim{
		{Dim: analytics.DimBrowser, Values: []analytics.LinkRollupValue{v("Safari", 1, 0)}},
		{Dim: analytics.DimCountry, Values: []analytics.LinkRollupValue{v("DE", 0, 1), v("FR", 2, 0)}},
		{Dim: analytics.DimPlatform, Values: []analytics.LinkRollupValue{v("ios", 3, 1)}},
		future,
	}, got.Dims)

	// A new row is the change alone; a change that empties the row
	// deletes it.
	data, err = mergeLinkRollup(linkRollupKey{}, lc.sorted(), nil)
	require.NoError(t, err)
	got, err = analytics.DecodeLinkRollup(data)
	require.NoError(t, err)
	require.Equal(t, []analytics.LinkRollupDim{
		{Dim: analytics.DimBrowser, Values: []analytics.LinkRollupValue{v("Safari", 1, 0)}},
		{Dim: analytics.DimCountry, Values: []analytics.LinkRollupValue{v("FR", 2, 0)}},
	}, got.Dims)
	only, err := analytics.EncodeLinkRollup(nil, &analytics.LinkRollup{Dims: []analytics.LinkRollupDim{
		{Dim: analytics.DimCountry, Values: []analytics.LinkRollupValue{v("US", 1, 0)}}}})
	require.NoError(t, err)
	remove := &linkCounts{values: map[linkDimValue]*rollupCounts{{dim(analytics.DimCountry), "US"}: {clicks: -1}}}
	data, err = mergeLinkRollup(linkRollupKey{}, remove.sorted(), only)
	require.NoError(t, err)
	require.Nil(t, data)
}
