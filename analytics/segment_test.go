package analytics_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
)

// segmentBatch returns n stored clicks of org as a redirect writes them:
// a third each iPhone, Android and desktop visitors on two links, with
// their own IPs, ids and times.
func segmentBatch(org uuid.UUID, n int) []analytics.Click {
	app := uuid.Must(uuid.NewV7())
	links := []uuid.UUID{uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())}
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	out := make([]analytics.Click, n)
	for i := range out {
		c := analytics.Click{
			ID: uuid.Must(uuid.NewV7()), OrgID: org, LinkID: links[i%2], Domain: "acme.hop.example", Slug: "spring",
			OccurredAt: at.Add(time.Duration(i) * 3 * time.Millisecond), Source: analytics.SourceRedirect,
			IP: fmt.Sprintf("203.0.%d.%d", i/250, i%250), Country: "GB", AcceptLanguage: "en-GB,en;q=0.9",
			Referer: "https://news.example/story", UTMSource: "newsletter", UTMMedium: "email", UTMCampaign: "spring",
		}
		switch i % 3 {
		case 0:
			c.AppID, c.Platform, c.OS, c.OSVersion, c.DeviceModel, c.Browser = &app, "ios", "iOS", "18.6", "iPhone", "Safari"
			c.UserAgent = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1"
		case 1:
			c.AppID, c.Platform, c.OS, c.OSVersion, c.DeviceModel, c.Browser = &app, "android", "Android", "15", "Pixel 9", "Chrome"
			c.UserAgent = "Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
			c.IP = fmt.Sprintf("2001:db8:%x::%x", i, i)
		default:
			c.Platform, c.OS, c.OSVersion, c.Browser = "desktop", "macOS", "10.15.7", "Chrome"
			c.UserAgent = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"
		}
		c.Normalize()
		out[i] = c
	}
	return out
}

func TestSegmentRoundTrip(t *testing.T) {
	org := uuid.Must(uuid.NewV7())
	batch := segmentBatch(org, 300)
	tap := uuid.New()
	batch[7].TapID, batch[7].Source = &tap, analytics.SourceAppOpen
	batch[8].IP, batch[8].IPKey = "", ""
	batch[9].IP = "::ffff:198.51.100.4"
	batch[9].IPKey = analytics.IPKey(batch[9].IP)
	batch[10].OccurredAt = batch[0].OccurredAt.Add(-time.Hour) // out of order
	batch[11].UTMTerm, batch[11].UTMContent, batch[11].City = "ünïcødé ✓", "a,b\nc", "Zürich"

	data, err := analytics.EncodeSegment(nil, batch)
	require.NoError(t, err)
	got, err := analytics.DecodeSegment(org, data)
	require.NoError(t, err)
	require.Len(t, got, len(batch))
	for i := range batch {
		want := batch[i]
		want.OccurredAt = want.OccurredAt.Truncate(time.Millisecond)
		assert.Equal(t, want, got[i], "click %d", i)
	}
	assert.Less(t, len(data)/len(batch), 60, "bytes a click: a batch's repeated values are written once")
}

func TestSegmentEmpty(t *testing.T) {
	data, err := analytics.EncodeSegment(nil, nil)
	require.NoError(t, err)
	got, err := analytics.DecodeSegment(uuid.New(), data)
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestEncodeSegmentRefuses(t *testing.T) {
	org := uuid.New()
	for name, change := range map[string]func(c *analytics.Click){
		"a count-only click": func(c *analytics.Click) { c.CountOnly = true },
		"an IP that is not":  func(c *analytics.Click) { c.IP = "example.com" },
		"an IP with a zone":  func(c *analytics.Click) { c.IP = "fe80::1%eth0" },
	} {
		batch := segmentBatch(org, 3)
		change(&batch[1])
		_, err := analytics.EncodeSegment(nil, batch)
		assert.Error(t, err, name)
	}
	_, err := analytics.EncodeSegment(nil, make([]analytics.Click, analytics.MaxSegmentClicks+1))
	assert.Error(t, err, "more clicks than a segment holds")
}

// Every prefix of a segment, and the segment with any one byte changed,
// decodes to an error or to clicks, never to a panic; a prefix is always
// an error.
func TestDecodeSegmentDamaged(t *testing.T) {
	org := uuid.New()
	data, err := analytics.EncodeSegment(nil, segmentBatch(org, 20))
	require.NoError(t, err)
	for i := range data {
		_, err := analytics.DecodeSegment(org, data[:i])
		require.ErrorIs(t, err, analytics.ErrBadSegment, "prefix of %d bytes", i)
	}
	for i := range data {
		damaged := append([]byte(nil), data...)
		damaged[i] ^= 0xff
		_, _ = analytics.DecodeSegment(org, damaged)
	}
	_, err = analytics.DecodeSegment(org, append(data, 0))
	assert.ErrorIs(t, err, analytics.ErrBadSegment, "a byte after the last click")
	_, err = analytics.DecodeSegment(org, []byte(strings.Repeat("\xff", 64)))
	assert.ErrorIs(t, err, analytics.ErrBadSegment)
}

func FuzzDecodeSegment(f *testing.F) {
	org := uuid.New()
	for _, n := range []int{0, 1, 5} {
		data, err := analytics.EncodeSegment(nil, segmentBatch(org, n))
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte("HS\x02\xff\xff\xff\xff\x0f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		clicks, err := analytics.DecodeSegment(org, data)
		if err != nil {
			// A lookup by id never panics either.
			_, _, _ = analytics.FindInSegment(org, data, uuid.UUID{})
			return
		}
		for i := range clicks {
			got, ok, err := analytics.FindInSegment(org, data, clicks[i].ID)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, firstWithID(clicks, clicks[i].ID), got)
		}
		again, err := analytics.EncodeSegment(nil, clicks)
		require.NoError(t, err, "what decodes encodes again")
		back, err := analytics.DecodeSegment(org, again)
		require.NoError(t, err)
		require.Equal(t, clicks, back)
	})
}

// firstWithID is the first of clicks with id.
func firstWithID(clicks []analytics.Click, id uuid.UUID) analytics.Click {
	for _, c := range clicks {
		if c.ID == id {
			return c
		}
	}
	return analytics.Click{}
}

// FindInSegment returns each click of a segment as DecodeSegment decodes
// it, reports an id the segment does not hold, and refuses what is not a
// segment as DecodeSegment does.
func TestFindInSegment(t *testing.T) {
	t.Parallel()
	org := uuid.New()
	batch := segmentBatch(org, 40)
	data, err := analytics.EncodeSegment(nil, batch)
	require.NoError(t, err)
	clicks, err := analytics.DecodeSegment(org, data)
	require.NoError(t, err)
	for _, c := range clicks {
		got, ok, err := analytics.FindInSegment(org, data, c.ID)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, c, got)
	}
	_, ok, err := analytics.FindInSegment(org, data, uuid.New())
	require.NoError(t, err)
	assert.False(t, ok, "an id the segment does not hold")
	_, _, err = analytics.FindInSegment(org, data[:len(data)/2], uuid.New())
	assert.ErrorIs(t, err, analytics.ErrBadSegment, "a truncated segment")
	_, _, err = analytics.FindInSegment(org, []byte("not a segment"), clicks[0].ID)
	assert.ErrorIs(t, err, analytics.ErrBadSegment)
}

// BenchmarkSegment encodes and decodes a batch of 500 mixed-visitor clicks
// and reports the bytes a click takes.
func BenchmarkSegment(b *testing.B) {
	org := uuid.New()
	batch := segmentBatch(org, 500)
	data, err := analytics.EncodeSegment(nil, batch)
	require.NoError(b, err)
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, len(data))
		for b.Loop() {
			buf, _ = analytics.EncodeSegment(buf[:0], batch)
		}
		b.ReportMetric(float64(len(data))/float64(len(batch)), "B/click")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/click")
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = analytics.DecodeSegment(org, data)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/click")
	})
}
