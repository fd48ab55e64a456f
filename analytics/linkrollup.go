package analytics

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// A link rollup is the counts of one link's clicks over a span of time
// (an hour or a day, in the click store), per value of each dimension
// that a link's clicks may differ by: the clicks and the installs
// attributed to them. It is stored as one compact value instead of a row
// per dimension value, since most links have far fewer clicks in a span
// than there are rows such a split would take:
//
//	version 1
//	uvarint number of dimensions, then per dimension, in ascending order
//	of name:
//	  uvarint length + name
//	  uvarint number of values, then per value, in ascending order:
//	    uvarint length + value ("" is unknown)
//	    uvarint clicks, uvarint installs
//
// Dimensions are keyed by name, so that a later version of the writer may
// add one: a reader keeps the dimensions it does not know, and a rollup
// written before a dimension existed has none of its values. The order
// makes the encoding canonical: a value decodes only from its own
// encoding.

// linkRollupVersion starts every encoded link rollup.
const linkRollupVersion = 1

// Limits of a link rollup's decoder, so that no input makes it allocate
// for more than it holds.
const (
	maxLinkRollupName  = 64
	maxLinkRollupValue = 4096
)

// LinkRollup is the decoded form of a link rollup: its dimensions in
// ascending order of name.
type LinkRollup struct {
	Dims []LinkRollupDim
}

// LinkRollupDim is one dimension of a link rollup: its values with clicks
// or installs, in ascending order.
type LinkRollupDim struct {
	Dim    Dimension
	Values []LinkRollupValue
}

// LinkRollupValue is the counts of one value of a dimension; Value is ""
// when the value is unknown.
type LinkRollupValue struct {
	Value    string
	Clicks   int64
	Installs int64
}

// Dim returns the values of dimension d, nil when r has none.
func (r *LinkRollup) Dim(d Dimension) []LinkRollupValue {
	for i := range r.Dims {
		if r.Dims[i].Dim == d {
			return r.Dims[i].Values
		}
	}
	return nil
}

// EncodeLinkRollup appends the encoding of r to dst and returns the
// result. r's dimensions and each dimension's values must be in strictly
// ascending order, and no count negative.
func EncodeLinkRollup(dst []byte, r *LinkRollup) ([]byte, error) {
	dst = append(dst, linkRollupVersion)
	dst = binary.AppendUvarint(dst, uint64(len(r.Dims)))
	for i, d := range r.Dims {
		if len(d.Dim) == 0 || len(d.Dim) > maxLinkRollupName {
			return nil, fmt.Errorf("analytics: link rollup: dimension name of %d bytes", len(d.Dim))
		}
		if i > 0 && r.Dims[i-1].Dim >= d.Dim {
			return nil, fmt.Errorf("analytics: link rollup: dimension %q out of order", d.Dim)
		}
		dst = appendLinkRollupString(dst, string(d.Dim))
		dst = binary.AppendUvarint(dst, uint64(len(d.Values)))
		for j, v := range d.Values {
			if len(v.Value) > maxLinkRollupValue {
				return nil, fmt.Errorf("analytics: link rollup: %s value of %d bytes", d.Dim, len(v.Value))
			}
			if j > 0 && d.Values[j-1].Value >= v.Value {
				return nil, fmt.Errorf("analytics: link rollup: %s value %q out of order", d.Dim, v.Value)
			}
			if v.Clicks < 0 || v.Installs < 0 {
				return nil, fmt.Errorf("analytics: link rollup: %s value %q with a negative count", d.Dim, v.Value)
			}
			dst = appendLinkRollupString(dst, v.Value)
			dst = binary.AppendUvarint(dst, uint64(v.Clicks))
			dst = binary.AppendUvarint(dst, uint64(v.Installs))
		}
	}
	return dst, nil
}

func appendLinkRollupString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

var errLinkRollupShort = errors.New("analytics: link rollup: truncated")

// DecodeLinkRollup decodes a link rollup that EncodeLinkRollup wrote. Any
// other input is an error: an unknown version, a truncated value, an
// order that is not strictly ascending, a count beyond int64, bytes left
// over.
func DecodeLinkRollup(data []byte) (*LinkRollup, error) {
	d := linkRollupDecoder{data: data}
	if len(data) == 0 || data[0] != linkRollupVersion {
		return nil, errors.New("analytics: link rollup: unknown version")
	}
	d.pos = 1
	n, err := d.count(2) // a dimension takes at least a name and a count
	if err != nil {
		return nil, err
	}
	r := &LinkRollup{Dims: make([]LinkRollupDim, n)}
	for i := range r.Dims {
		name, err := d.string(maxLinkRollupName)
		if err != nil {
			return nil, err
		}
		if name == "" || i > 0 && string(r.Dims[i-1].Dim) >= name {
			return nil, fmt.Errorf("analytics: link rollup: dimension %q out of order", name)
		}
		nv, err := d.count(3) // a value takes at least a length and two counts
		if err != nil {
			return nil, err
		}
		dim := LinkRollupDim{Dim: Dimension(name), Values: make([]LinkRollupValue, nv)}
		for j := range dim.Values {
			v := &dim.Values[j]
			if v.Value, err = d.string(maxLinkRollupValue); err != nil {
				return nil, err
			}
			if j > 0 && dim.Values[j-1].Value >= v.Value {
				return nil, fmt.Errorf("analytics: link rollup: %s value %q out of order", name, v.Value)
			}
			if v.Clicks, err = d.int(); err != nil {
				return nil, err
			}
			if v.Installs, err = d.int(); err != nil {
				return nil, err
			}
		}
		r.Dims[i] = dim
	}
	if d.pos != len(data) {
		return nil, fmt.Errorf("analytics: link rollup: %d bytes left over", len(data)-d.pos)
	}
	return r, nil
}

type linkRollupDecoder struct {
	data []byte
	pos  int
}

func (d *linkRollupDecoder) uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.data[d.pos:])
	if n <= 0 {
		return 0, errLinkRollupShort
	}
	d.pos += n
	return v, nil
}

// count reads a number of items that take at least min bytes each.
func (d *linkRollupDecoder) count(min int) (int, error) {
	v, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	if v > uint64((len(d.data)-d.pos)/min) {
		return 0, fmt.Errorf("analytics: link rollup: %d items in %d bytes", v, len(d.data)-d.pos)
	}
	return int(v), nil
}

func (d *linkRollupDecoder) int() (int64, error) {
	v, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	if v > math.MaxInt64 {
		return 0, errors.New("analytics: link rollup: count beyond int64")
	}
	return int64(v), nil
}

func (d *linkRollupDecoder) string(max int) (string, error) {
	n, err := d.uvarint()
	if err != nil {
		return "", err
	}
	if n > uint64(max) {
		return "", fmt.Errorf("analytics: link rollup: a string of %d bytes", n)
	}
	if n > uint64(len(d.data)-d.pos) {
		return "", errLinkRollupShort
	}
	s := string(d.data[d.pos : d.pos+int(n)])
	d.pos += int(n)
	return s, nil
}

// AddLinkRollups returns the sum of link rollups a and b, each with its
// dimensions and values in the order EncodeLinkRollup requires, in that
// order: every dimension and value of either, with the counts of both
// added. Neither is changed.
func AddLinkRollups(a, b *LinkRollup) *LinkRollup {
	out := &LinkRollup{Dims: make([]LinkRollupDim, 0, max(len(a.Dims), len(b.Dims)))}
	i, j := 0, 0
	for i < len(a.Dims) || j < len(b.Dims) {
		switch {
		case j == len(b.Dims) || i < len(a.Dims) && a.Dims[i].Dim < b.Dims[j].Dim:
			out.Dims = append(out.Dims, LinkRollupDim{Dim: a.Dims[i].Dim, Values: addLinkRollupValues(a.Dims[i].Values, nil)})
			i++
		case i == len(a.Dims) || b.Dims[j].Dim < a.Dims[i].Dim:
			out.Dims = append(out.Dims, LinkRollupDim{Dim: b.Dims[j].Dim, Values: addLinkRollupValues(nil, b.Dims[j].Values)})
			j++
		default:
			out.Dims = append(out.Dims, LinkRollupDim{Dim: a.Dims[i].Dim, Values: addLinkRollupValues(a.Dims[i].Values, b.Dims[j].Values)})
			i++
			j++
		}
	}
	return out
}

// addLinkRollupValues returns the sum of the value lists a and b, both in
// ascending order of value, in that order.
func addLinkRollupValues(a, b []LinkRollupValue) []LinkRollupValue {
	out := make([]LinkRollupValue, 0, max(len(a), len(b)))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].Value < b[j].Value:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j].Value < a[i].Value:
			out = append(out, b[j])
			j++
		default:
			out = append(out, LinkRollupValue{Value: a[i].Value, Clicks: a[i].Clicks + b[j].Clicks, Installs: a[i].Installs + b[j].Installs})
			i++
			j++
		}
	}
	return out
}
