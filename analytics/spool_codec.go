package analytics

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"slices"
	"time"

	"github.com/google/uuid"
)

// A spool chunk is a sequence of records, each one click:
//
//	length   uint32, little endian: the bytes of payload
//	checksum uint32, little endian: CRC-32C (Castagnoli) of payload
//	payload  version byte 1, the click (encodeClick)
//
// A record is appended with one copy into the chunk's mapping (or one
// write where chunks are not mapped). A process that dies mid-copy leaves
// a record torn whose click was never answered; a machine that loses power
// may leave the last records torn or zero. The length or the checksum
// shows a torn record, which decodeRecords drops with whatever follows;
// a zero tail (the unused end of a mapped chunk) ends the records.

// recordHeader is the length and checksum before each payload.
const recordHeader = 8

// recordVersion is the first byte of every payload.
const recordVersion = 1

// maxRecord bounds a payload; a longer length is a torn or foreign record.
// A normalized click is far smaller (its text fields are bounded).
const maxRecord = 1 << 16

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// errTorn says a chunk ends with a record that is not whole.
var errTorn = errors.New("analytics: torn spool record")

// appendRecord appends c as one record to b.
func appendRecord(b []byte, c *Click) []byte {
	start := len(b)
	b = append(b, make([]byte, recordHeader)...)
	b = appendClick(b, c)
	payload := b[start+recordHeader:]
	binary.LittleEndian.PutUint32(b[start:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[start+4:], crc32.Checksum(payload, crcTable))
	return b
}

// Flag bits of a payload.
const (
	flagApp = 1 << iota
	flagTap
	flagCountOnly
)

// appendClick appends the payload of c to b.
func appendClick(b []byte, c *Click) []byte {
	b = append(b, recordVersion)
	var flags byte
	if c.AppID != nil {
		flags |= flagApp
	}
	if c.TapID != nil {
		flags |= flagTap
	}
	if c.CountOnly {
		flags |= flagCountOnly
	}
	b = append(b, flags)
	b = append(b, c.ID[:]...)
	b = append(b, c.OrgID[:]...)
	b = append(b, c.LinkID[:]...)
	if c.AppID != nil {
		b = append(b, c.AppID[:]...)
	}
	if c.TapID != nil {
		b = append(b, c.TapID[:]...)
	}
	b = binary.AppendVarint(b, c.OccurredAt.UnixNano())
	b = binary.AppendVarint(b, c.Weight)
	for _, s := range c.texts() {
		b = binary.AppendUvarint(b, uint64(len(*s)))
		b = append(b, *s...)
	}
	return b
}

// texts lists c's text fields in the order a payload holds them. A new
// field is added at the end, with a new recordVersion.
func (c *Click) texts() [24]*string {
	src := (*string)(&c.Source)
	return [24]*string{
		&c.Domain, &c.Slug, src, &c.Platform, &c.OS, &c.OSVersion, &c.DeviceModel, &c.Browser,
		&c.InAppBrowser, &c.IP, &c.Country, &c.Region, &c.City, &c.IPClass, &c.IPKey, &c.UserAgent,
		&c.AcceptLanguage, &c.Referer, &c.RefererHost, &c.UTMSource, &c.UTMMedium, &c.UTMCampaign,
		&c.UTMTerm, &c.UTMContent,
	}
}

// decodeRecords decodes the records of a chunk, appending their clicks to
// dst. It returns the clicks of the whole records before the first that is
// not (errTorn, with the bytes left), or the clicks of all.
func decodeRecords(dst []Click, b []byte) (clicks []Click, rest int, err error) {
	clicks = dst
	grown := false
	for len(b) > 0 {
		if zeros(b) {
			// The unused end of a mapped chunk whose process died.
			return clicks, 0, nil
		}
		if len(b) < recordHeader {
			return clicks, len(b), errTorn
		}
		n := binary.LittleEndian.Uint32(b)
		sum := binary.LittleEndian.Uint32(b[4:])
		if n == 0 || n > maxRecord || int(n) > len(b)-recordHeader {
			return clicks, len(b), errTorn
		}
		payload := b[recordHeader : recordHeader+int(n)]
		if crc32.Checksum(payload, crcTable) != sum {
			return clicks, len(b), errTorn
		}
		c, ok := decodeClick(payload)
		if !ok {
			return clicks, len(b), errTorn
		}
		if !grown {
			clicks, grown = slices.Grow(clicks, countRecords(b)), true
		}
		clicks = append(clicks, c)
		b = b[recordHeader+int(n):]
	}
	return clicks, 0, nil
}

// countRecords returns how many records b seems to hold, reading only
// their lengths: at least as many as decodeRecords decodes, so that its
// slice is made once.
func countRecords(b []byte) int {
	count := 0
	for len(b) >= recordHeader {
		n := binary.LittleEndian.Uint32(b)
		if n == 0 || n > maxRecord || int(n) > len(b)-recordHeader {
			break
		}
		count++
		b = b[recordHeader+int(n):]
	}
	return count
}

// zeros reports whether b holds only zero bytes.
func zeros(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// decodeClick decodes a payload appendClick wrote.
func decodeClick(p []byte) (Click, bool) {
	var c Click
	if len(p) < 2+3*16 || p[0] != recordVersion {
		return c, false
	}
	flags := p[1]
	if flags&^(flagApp|flagTap|flagCountOnly) != 0 {
		return c, false
	}
	p = p[2:]
	takeID := func() (uuid.UUID, bool) {
		var id uuid.UUID
		if len(p) < 16 {
			return id, false
		}
		copy(id[:], p)
		p = p[16:]
		return id, true
	}
	c.ID, _ = takeID()
	c.OrgID, _ = takeID()
	c.LinkID, _ = takeID()
	if flags&flagApp != 0 {
		id, ok := takeID()
		if !ok {
			return c, false
		}
		c.AppID = &id
	}
	if flags&flagTap != 0 {
		id, ok := takeID()
		if !ok {
			return c, false
		}
		c.TapID = &id
	}
	c.CountOnly = flags&flagCountOnly != 0
	ns, k := binary.Varint(p)
	if k <= 0 {
		return c, false
	}
	p = p[k:]
	c.OccurredAt = time.Unix(0, ns).UTC()
	if c.Weight, k = binary.Varint(p); k <= 0 {
		return c, false
	}
	p = p[k:]
	for _, s := range c.texts() {
		n, k := binary.Uvarint(p)
		if k <= 0 || n > uint64(len(p)-k) {
			return c, false
		}
		*s = string(p[k : k+int(n)])
		p = p[k+int(n):]
	}
	return c, len(p) == 0
}
