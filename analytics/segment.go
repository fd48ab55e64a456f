package analytics

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/google/uuid"
)

// A segment is a batch of one organization's stored clicks encoded as one
// compact value, the unit a click store can write in one row instead of a
// row per click (BENCHMARKS.md, Click store: a row per click costs several
// times the redirect's budget on SQLite, and a payload costs about 19 ns a
// byte written). The layout is columnar with dictionaries of the batch's
// own values, since most of a batch's links, domains, user agents,
// browsers, countries and UTM values repeat:
//
//	magic "HS" | version 1 | uvarint n
//	uuid dictionary:   uvarint count, 16 bytes each (links, apps, taps)
//	string dictionary: uvarint count, each uvarint length + bytes;
//	                   entry 0 is "" and is not written
//	per click, in order:
//	  id (16 bytes)
//	  occurred_at: zigzag varint milliseconds since the previous click's
//	               (since the Unix epoch for the first)
//	  link, app, tap: uvarint uuid dictionary index + 1, 0 for none
//	  ip: 0, or 4 or 16 followed by that many address bytes
//	  every string field of segmentStrings: uvarint string dictionary index
//
// OrgID is not stored: every click of a segment belongs to the organization
// the segment is stored under. IPKey and RefererHost are derived from the
// IP and the referer again when a segment is decoded (IPClass is stored:
// a click whose IP was purged keeps its class), and CountOnly clicks
// are never stored. Times keep
// millisecond precision, the resolution of the API's times.

// segmentMagic starts every encoded segment.
var segmentMagic = [3]byte{'H', 'S', 2}

// MaxSegmentClicks bounds the clicks one segment holds, so that a decoder
// never allocates for a count it cannot have.
const MaxSegmentClicks = 1 << 16

// segmentStringCount is how many string fields a click has in a segment.
const segmentStringCount = 21

// segmentStrings lists the string fields of a click in the order a segment
// writes them.
func segmentStrings(c *Click) [segmentStringCount]*string {
	return [segmentStringCount]*string{
		&c.Domain, &c.Slug, (*string)(&c.Source), &c.Platform, &c.OS, &c.OSVersion, &c.DeviceModel,
		&c.Browser, &c.InAppBrowser, &c.Country, &c.Region, &c.City, &c.UserAgent, &c.AcceptLanguage,
		&c.Referer, &c.UTMSource, &c.UTMMedium, &c.UTMCampaign, &c.UTMTerm, &c.UTMContent, &c.IPClass,
	}
}

// EncodeSegment appends the encoding of clicks, which must be stored clicks
// (not CountOnly) of one organization, to dst and returns the result.
// Clicks should be normalized (Click.Normalize) first; their IP must be an
// address or empty; it is kept as its canonical text (netip.Addr.String).
func EncodeSegment(dst []byte, clicks []Click) ([]byte, error) {
	if len(clicks) > MaxSegmentClicks {
		return dst, fmt.Errorf("analytics: a segment holds at most %d clicks, not %d", MaxSegmentClicks, len(clicks))
	}
	ids := map[uuid.UUID]uint64{}
	var idList []uuid.UUID
	strs := map[string]uint64{"": 0}
	var strList []string
	id := func(v *uuid.UUID) uint64 {
		if v == nil {
			return 0
		}
		i, ok := ids[*v]
		if !ok {
			i = uint64(len(idList)) + 1
			ids[*v] = i
			idList = append(idList, *v)
		}
		return i
	}
	str := func(s string) uint64 {
		i, ok := strs[s]
		if !ok {
			i = uint64(len(strList)) + 1
			strs[s] = i
			strList = append(strList, s)
		}
		return i
	}

	// The per-click part first, into body, so the dictionaries are known
	// when the header is written.
	body := make([]byte, 0, len(clicks)*48)
	var prev int64
	for i := range clicks {
		c := &clicks[i]
		if c.CountOnly {
			return dst, errors.New("analytics: a count-only click has no stored row")
		}
		body = append(body, c.ID[:]...)
		ms := c.OccurredAt.UnixMilli()
		body = binary.AppendVarint(body, ms-prev)
		prev = ms
		link := c.LinkID
		body = binary.AppendUvarint(body, id(&link))
		body = binary.AppendUvarint(body, id(c.AppID))
		body = binary.AppendUvarint(body, id(c.TapID))
		switch ip, err := netip.ParseAddr(c.IP); {
		case c.IP == "":
			body = append(body, 0)
		case err != nil:
			return dst, fmt.Errorf("analytics: click %s: IP %q is not an address", c.ID, c.IP)
		case ip.Zone() != "":
			return dst, fmt.Errorf("analytics: click %s: IP %q has a zone", c.ID, c.IP)
		case ip.Is4():
			a := ip.As4()
			body = append(append(body, 4), a[:]...)
		default:
			a := ip.As16()
			body = append(append(body, 16), a[:]...)
		}
		for _, f := range segmentStrings(c) {
			body = binary.AppendUvarint(body, str(*f))
		}
	}

	dst = append(dst, segmentMagic[:]...)
	dst = binary.AppendUvarint(dst, uint64(len(clicks)))
	dst = binary.AppendUvarint(dst, uint64(len(idList)))
	for _, v := range idList {
		dst = append(dst, v[:]...)
	}
	dst = binary.AppendUvarint(dst, uint64(len(strList)))
	for _, s := range strList {
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		dst = append(dst, s...)
	}
	return append(dst, body...), nil
}

// ErrBadSegment is returned, wrapped, for a value that is not a segment
// EncodeSegment wrote.
var ErrBadSegment = errors.New("analytics: not a click segment")

// DecodeSegment decodes a segment of organization orgID. It never panics,
// whatever data holds: a value that is not a complete segment is
// ErrBadSegment.
func DecodeSegment(orgID uuid.UUID, data []byte) ([]Click, error) {
	return decodeSegment(orgID, data, nil)
}

// FindInSegment returns the click with id of a segment of organization
// orgID, and whether it holds one, decoding that click alone: the others'
// fields are passed over, not materialized, which makes it several times
// cheaper than DecodeSegment for a lookup by id. It never panics; a value
// that is not a segment is ErrBadSegment (a damage after the click found
// may go unnoticed).
func FindInSegment(orgID uuid.UUID, data []byte, id uuid.UUID) (Click, bool, error) {
	clicks, err := decodeSegment(orgID, data, &id)
	if err != nil || len(clicks) == 0 {
		return Click{}, false, err
	}
	return clicks[0], true, nil
}

// decodeSegment is DecodeSegment, or FindInSegment when want is not nil:
// then only the click with that id is materialized and returned, and the
// decoding stops there.
func decodeSegment(orgID uuid.UUID, data []byte, want *uuid.UUID) ([]Click, error) {
	d := segmentDecoder{data: data}
	if len(data) < len(segmentMagic) || [3]byte(data[:3]) != segmentMagic {
		return nil, fmt.Errorf("%w: wrong magic or version", ErrBadSegment)
	}
	d.pos = len(segmentMagic)
	n := d.count(MaxSegmentClicks)
	idCount := d.count(3 * MaxSegmentClicks)
	idList := make([]uuid.UUID, 0, min(idCount, len(data)/16))
	for range idCount {
		var v uuid.UUID
		copy(v[:], d.bytes(16))
		idList = append(idList, v)
	}
	strCount := d.count(len(data))
	strList := make([]string, 1, min(strCount, len(data))+1)
	for range strCount {
		strList = append(strList, string(d.bytes(d.count(len(data)))))
	}
	if d.err != nil {
		return nil, d.err
	}

	capacity := min(n, len(data)/20)
	if want != nil {
		capacity = min(n, 1)
	}
	clicks := make([]Click, 0, capacity)
	var ms int64
	for range n {
		c := Click{OrgID: orgID}
		copy(c.ID[:], d.bytes(16))
		ms += d.varint()
		if want != nil && c.ID != *want {
			d.skipClick(len(idList), len(strList))
			if d.err != nil {
				return nil, d.err
			}
			continue
		}
		c.OccurredAt = time.UnixMilli(ms).UTC()
		ref := func() *uuid.UUID {
			i := d.count(len(idList))
			if i == 0 || d.err != nil {
				return nil
			}
			v := idList[i-1]
			return &v
		}
		if link := ref(); link != nil {
			c.LinkID = *link
		}
		c.AppID, c.TapID = ref(), ref()
		switch size := d.count(16); size {
		case 0:
		case 4:
			c.IP = netip.AddrFrom4([4]byte(pad(d.bytes(4), 4))).String()
		case 16:
			c.IP = netip.AddrFrom16([16]byte(pad(d.bytes(16), 16))).String()
		default:
			d.fail("an IP of %d bytes", size)
		}
		for _, f := range segmentStrings(&c) {
			*f = strList[d.count(len(strList)-1)]
		}
		if d.err != nil {
			return nil, d.err
		}
		c.IPKey, c.RefererHost = IPKey(c.IP), RefererHost(c.Referer)
		clicks = append(clicks, c)
		if want != nil {
			return clicks, nil
		}
	}
	if want != nil {
		return nil, nil
	}
	if d.pos != len(data) {
		return nil, fmt.Errorf("%w: %d bytes after the last click", ErrBadSegment, len(data)-d.pos)
	}
	return clicks, nil
}

// skipClick reads past the fields of a click after its time, checking them
// as decodeSegment does, for a segment of ids uuids and strs strings
// (entry 0 included).
func (d *segmentDecoder) skipClick(ids, strs int) {
	for range 3 { // link, app, tap
		d.count(ids)
	}
	switch size := d.count(16); size {
	case 0:
	case 4, 16:
		d.bytes(size)
	default:
		d.fail("an IP of %d bytes", size)
	}
	for range segmentStringCount {
		d.count(strs - 1)
	}
}

// pad returns b, or a zero slice of n bytes when a failed read left b
// short.
func pad(b []byte, n int) []byte {
	if len(b) == n {
		return b
	}
	return make([]byte, n)
}

// segmentDecoder reads a segment, remembering the first error; every read
// after it returns zero values.
type segmentDecoder struct {
	data []byte
	pos  int
	err  error
}

func (d *segmentDecoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format+" at byte %d", append([]any{ErrBadSegment}, append(args, d.pos)...)...)
	}
}

// count reads a uvarint that must be at most max.
func (d *segmentDecoder) count(max int) int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.data[d.pos:])
	if n <= 0 {
		d.fail("a truncated number")
		return 0
	}
	if v > uint64(max) {
		d.fail("%d where at most %d fits", v, max)
		return 0
	}
	d.pos += n
	return int(v)
}

func (d *segmentDecoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.data[d.pos:])
	if n <= 0 {
		d.fail("a truncated time")
		return 0
	}
	d.pos += n
	return v
}

// bytes reads n bytes, without copying.
func (d *segmentDecoder) bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.data)-d.pos {
		d.fail("%d bytes past the end", n)
		return nil
	}
	b := d.data[d.pos : d.pos+n]
	d.pos += n
	return b
}
