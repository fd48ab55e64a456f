package analytics

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
)

// Decoding any bytes never panics, and whatever decodes encodes into
// records that decode to the same clicks.
func FuzzDecodeSpoolRecords(f *testing.F) {
	app := uuid.New()
	c := Click{ID: uuid.New(), OrgID: uuid.New(), LinkID: uuid.New(), AppID: &app, Domain: "hop.example",
		OccurredAt: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), UTMContent: "hero", Weight: 3, CountOnly: true}
	one := appendRecord(nil, &c)
	f.Add(one)
	f.Add(append(one, one[:len(one)-1]...))
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		clicks, rest, err := decodeRecords(b)
		if (err == nil) != (rest == 0) {
			t.Fatalf("err %v with %d bytes left", err, rest)
		}
		var again []byte
		for i := range clicks {
			again = appendRecord(again, &clicks[i])
		}
		back, rest, err := decodeRecords(again)
		if err != nil || rest != 0 || !reflect.DeepEqual(back, clicks) {
			t.Fatalf("the clicks decoded do not survive a round trip: %v", err)
		}
	})
}
