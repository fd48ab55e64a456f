package analytics_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
)

func sampleLinkRollup() *analytics.LinkRollup {
	return &analytics.LinkRollup{Dims: []analytics.LinkRollupDim{
		{Dim: analytics.DimCountry, Values: []analytics.LinkRollupValue{{Value: "", Clicks: 2}, {Value: "GB", Clicks: 1, Installs: 1},
			{Value: "US", Clicks: 1 << 40, Installs: 3}}},
		{Dim: analytics.DimPlatform, Values: []analytics.LinkRollupValue{{Value: "ios", Clicks: 3}}},
		{Dim: "zz_later", Values: []analytics.LinkRollupValue{{Value: "x", Installs: 1}}},
	}}
}

// A link rollup decodes to what was encoded, dimensions a reader does not
// know included; an empty one is valid.
func TestLinkRollupRoundTrip(t *testing.T) {
	for _, r := range []*analytics.LinkRollup{sampleLinkRollup(), {Dims: []analytics.LinkRollupDim{}}} {
		data, err := analytics.EncodeLinkRollup(nil, r)
		require.NoError(t, err)
		got, err := analytics.DecodeLinkRollup(data)
		require.NoError(t, err)
		assert.Equal(t, r, got)
	}
	r := sampleLinkRollup()
	assert.Equal(t, r.Dims[1].Values, r.Dim(analytics.DimPlatform))
	assert.Nil(t, r.Dim(analytics.DimOS))
}

// The encoder refuses what the decoder would: dimensions or values out of
// order or repeated, negative counts, names too long.
func TestLinkRollupEncodeRefuses(t *testing.T) {
	for name, edit := range map[string]func(r *analytics.LinkRollup){
		"dimensions out of order": func(r *analytics.LinkRollup) { r.Dims[0], r.Dims[1] = r.Dims[1], r.Dims[0] },
		"a dimension repeated":    func(r *analytics.LinkRollup) { r.Dims[1].Dim = r.Dims[0].Dim },
		"values out of order":     func(r *analytics.LinkRollup) { r.Dims[0].Values[0].Value = "ZZ" },
		"a negative count":        func(r *analytics.LinkRollup) { r.Dims[1].Values[0].Installs = -1 },
		"an empty name":           func(r *analytics.LinkRollup) { r.Dims[0].Dim = "" },
		"a long name":             func(r *analytics.LinkRollup) { r.Dims[2].Dim = analytics.Dimension("zz" + strings.Repeat("x", 80)) },
		"a long value":            func(r *analytics.LinkRollup) { r.Dims[2].Values[0].Value = strings.Repeat("x", 5000) },
	} {
		r := sampleLinkRollup()
		edit(r)
		_, err := analytics.EncodeLinkRollup(nil, r)
		assert.Error(t, err, name)
	}
}

// Malformed input is an error, never a panic: every truncation of a valid
// encoding, bytes left over, another version, counts that claim more than
// the input holds.
func TestLinkRollupDecodeRefuses(t *testing.T) {
	data, err := analytics.EncodeLinkRollup(nil, sampleLinkRollup())
	require.NoError(t, err)
	for n := range len(data) {
		_, err := analytics.DecodeLinkRollup(data[:n])
		assert.Error(t, err, "truncated to %d bytes", n)
	}
	for name, bad := range map[string][]byte{
		"bytes left over":          append(append([]byte{}, data...), 0),
		"another version":          append([]byte{2}, data[1:]...),
		"too many dimensions":      {1, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"too many values":          {1, 1, 1, 'a', 0xff, 0xff, 0x03},
		"a count beyond int64":     {1, 1, 1, 'a', 1, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0},
		"a varint overflowing":     {1, 1, 1, 'a', 1, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0},
		"an empty dimension name":  {1, 1, 0, 0},
		"values repeated":          {1, 1, 1, 'a', 2, 1, 'x', 1, 0, 1, 'x', 1, 0},
		"dimensions repeated":      {1, 2, 1, 'a', 0, 1, 'a', 0},
		"a string past the end":    {1, 1, 1, 'a', 1, 9, 'x'},
		"a name beyond the limit":  append([]byte{1, 1, 65}, []byte(strings.Repeat("a", 65)+"\x00")...),
		"no input":                 {},
		"a dimension count absent": {1},
	} {
		_, err := analytics.DecodeLinkRollup(bad)
		assert.Error(t, err, name)
	}
}

// FuzzLinkRollupDecode checks that no input panics the decoder and that
// what decodes encodes again to an equal rollup. Its seeds run as a test.
func FuzzLinkRollupDecode(f *testing.F) {
	data, err := analytics.EncodeLinkRollup(nil, sampleLinkRollup())
	require.NoError(f, err)
	f.Add(data)
	empty, err := analytics.EncodeLinkRollup(nil, &analytics.LinkRollup{})
	require.NoError(f, err)
	f.Add(empty)
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add([]byte{1, 1, 1, 'a', 1, 0, 0x80, 0x00, 0})
	f.Add(data[:len(data)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := analytics.DecodeLinkRollup(data)
		if err != nil {
			return
		}
		again, err := analytics.EncodeLinkRollup(nil, r)
		require.NoError(t, err, "what decodes encodes again")
		back, err := analytics.DecodeLinkRollup(again)
		require.NoError(t, err)
		require.Equal(t, r, back)
	})
}

// The sum of two link rollups has every dimension and value of either, in
// order, with both counts added, and encodes; neither is changed.
func TestAddLinkRollups(t *testing.T) {
	a := sampleLinkRollup()
	b := &analytics.LinkRollup{Dims: []analytics.LinkRollupDim{
		{Dim: analytics.DimBrowser, Values: []analytics.LinkRollupValue{{Value: "Safari", Clicks: 1}}},
		{Dim: analytics.DimCountry, Values: []analytics.LinkRollupValue{{Value: "DE", Clicks: 4}, {Value: "US", Clicks: 2, Installs: 1}}},
		{Dim: "zz_later", Values: []analytics.LinkRollupValue{{Value: "x", Clicks: 5}, {Value: "y", Installs: 2}}},
	}}
	want := &analytics.LinkRollup{Dims: []analytics.LinkRollupDim{
		{Dim: analytics.DimBrowser, Values: []analytics.LinkRollupValue{{Value: "Safari", Clicks: 1}}},
		{Dim: analytics.DimCountry, Values: []analytics.LinkRollupValue{{Value: "", Clicks: 2}, {Value: "DE", Clicks: 4},
			{Value: "GB", Clicks: 1, Installs: 1}, {Value: "US", Clicks: 1<<40 + 2, Installs: 4}}},
		{Dim: analytics.DimPlatform, Values: []analytics.LinkRollupValue{{Value: "ios", Clicks: 3}}},
		{Dim: "zz_later", Values: []analytics.LinkRollupValue{{Value: "x", Clicks: 5, Installs: 1}, {Value: "y", Installs: 2}}},
	}}
	got := analytics.AddLinkRollups(a, b)
	assert.Equal(t, want, got)
	assert.Equal(t, want, analytics.AddLinkRollups(b, a), "the sum does not depend on the order")
	assert.Equal(t, sampleLinkRollup(), a, "a is unchanged")
	_, err := analytics.EncodeLinkRollup(nil, got)
	assert.NoError(t, err)
	assert.Equal(t, a, analytics.AddLinkRollups(a, &analytics.LinkRollup{}), "adding nothing")
}
