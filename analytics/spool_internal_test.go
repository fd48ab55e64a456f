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

// A rotated chunk is finished (unmapped, cut, closed) outside the spool's
// mutex; the writer takes no chunk until every older one is finished, so
// that chunks are written in sequence order whatever order their
// rotations finish in.
func TestSpoolWriterWaitsForOlderRetiringChunks(t *testing.T) {
	s, err := openSpool(t.TempDir(), 1<<30, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	c := Click{ID: uuid.New(), OrgID: uuid.New(), LinkID: uuid.New(), OccurredAt: time.Now().UTC()}
	rotateOne := func() retiredChunk {
		t.Helper()
		if ok, err := s.append(&c, false); !ok || err != nil {
			t.Fatal(ok, err)
		}
		s.mu.Lock()
		old, err := s.rotateLocked()
		s.mu.Unlock()
		if err != nil || len(old) != 1 {
			t.Fatal(old, err)
		}
		return old[0]
	}
	first, second := rotateOne(), rotateOne()

	s.retire(second)
	if seq, ok := s.next(); ok {
		t.Fatalf("next gave chunk %d while chunk %d is retiring", seq, first.seq)
	}
	if got := s.waiting(10); len(got) != 0 {
		t.Fatalf("waiting gave %v while chunk %d is retiring", got, first.seq)
	}

	s.retire(first)
	if got := s.waiting(10); !reflect.DeepEqual(got, []int64{first.seq, second.seq}) {
		t.Fatalf("waiting gave %v, want %v", got, []int64{first.seq, second.seq})
	}
	clicks, _, _, err := s.read(first.seq)
	if err != nil || len(clicks) != 1 || clicks[0].ID != c.ID {
		t.Fatalf("the retired chunk reads back %v, %v", clicks, err)
	}
}
