package analytics

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sync"
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
		clicks, rest, err := decodeRecords(nil, b)
		if (err == nil) != (rest == 0) {
			t.Fatalf("err %v with %d bytes left", err, rest)
		}
		var again []byte
		for i := range clicks {
			again = appendRecord(again, &clicks[i])
		}
		back, rest, err := decodeRecords(nil, again)
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

// makeAheadNow makes the next chunk of s ahead, as the goroutine that
// startChunk starts does, and returns its file's identity. It waits for
// that goroutine first, which would otherwise hold the lock a rotation
// of the test tries.
func makeAheadNow(t *testing.T, s *spool) os.FileInfo {
	t.Helper()
	s.making.Wait()
	s.makeAhead()
	info, err := os.Stat(filepath.Join(s.dir, aheadFile))
	if err != nil {
		t.Fatal("no chunk made ahead:", err)
	}
	return info
}

// A rotation takes the chunk made ahead (renamed: the same file) rather
// than creating one.
func TestSpoolRotationTakesTheChunkMadeAhead(t *testing.T) {
	s, err := openSpool(t.TempDir(), 1<<30, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	ahead := makeAheadNow(t, s)
	first := s.seq
	for range 3 {
		c := Click{ID: uuid.New(), OrgID: uuid.New(), LinkID: uuid.New(), OccurredAt: time.Now().UTC()}
		if ok, err := s.append(&c, false); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	if s.seq != first+1 {
		t.Fatalf("active chunk %d after a full chunk %d", s.seq, first)
	}
	active, err := os.Stat(filepath.Join(s.dir, chunkName(s.seq)))
	if err != nil || !os.SameFile(ahead, active) {
		t.Fatalf("the new active chunk is not the one made ahead (%v)", err)
	}
}

// A chunk made ahead while a rotation takes the previous one never
// replaces the file the rotation renames: the chunk the rotation returns
// is the file under the chunk's name, whatever the interleaving.
func TestSpoolTakeAheadRacingMakeAhead(t *testing.T) {
	s, err := openSpool(t.TempDir(), 1<<30, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	for i := range 200 {
		makeAheadNow(t, s)
		path := filepath.Join(s.dir, fmt.Sprintf("taken-%d", i))
		var wg sync.WaitGroup
		wg.Go(s.makeAhead)
		f, mapped := s.takeAhead(path)
		wg.Wait()
		if f == nil {
			continue
		}
		got, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		named, err := os.Stat(path)
		if err != nil || !os.SameFile(got, named) {
			t.Fatalf("round %d: the chunk taken is not the file named %s (%v)", i, path, err)
		}
		if mapped != nil {
			_ = unmapChunk(f, mapped, 0)
		}
		_ = f.Close()
	}
}

// What a process killed with a chunk made ahead leaves: the chunk made
// ahead is deleted at open, is no chunk to write and adds nothing to the
// spool's size; the killed process's active chunk is written whole.
func TestSpoolDeletesTheChunkMadeAheadOfAKilledProcess(t *testing.T) {
	live := t.TempDir()
	s, err := openSpool(live, 1<<30, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	makeAheadNow(t, s)
	var ids []uuid.UUID
	for range 2 {
		c := Click{ID: uuid.New(), OrgID: uuid.New(), LinkID: uuid.New(), OccurredAt: time.Now().UTC()}
		if ok, err := s.append(&c, false); !ok || err != nil {
			t.Fatal(ok, err)
		}
		ids = append(ids, c.ID)
	}
	// The files as the kernel holds them now are what kill -9 leaves.
	left := t.TempDir()
	for _, name := range []string{chunkName(s.seq), aheadFile} {
		b, err := os.ReadFile(filepath.Join(live, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(left, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	chunk, err := os.Stat(filepath.Join(left, chunkName(s.seq)))
	if err != nil {
		t.Fatal(err)
	}

	s2, err := openSpool(left, 1<<30, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.close()
	if got := s2.waiting(10); !reflect.DeepEqual(got, []int64{s.seq}) {
		t.Fatalf("chunks to write %v, want only the killed process's active chunk %d", got, s.seq)
	}
	if s2.seq != s.seq+1 {
		t.Fatalf("the new active chunk is %d, want %d", s2.seq, s.seq+1)
	}
	if got := s2.size.Load(); got != chunk.Size() {
		t.Fatalf("spool size %d, want the left chunk's %d", got, chunk.Size())
	}
	clicks, _, torn, err := s2.read(s.seq)
	if err != nil || torn != 0 || len(clicks) != 2 || clicks[0].ID != ids[0] || clicks[1].ID != ids[1] {
		t.Fatalf("the left chunk reads back %d clicks, %d torn bytes, %v", len(clicks), torn, err)
	}
}

// Closing deletes the chunk made ahead: only chunks stay on disk.
func TestSpoolCloseDeletesTheChunkMadeAhead(t *testing.T) {
	dir := t.TempDir()
	s, err := openSpool(dir, 1<<30, 1000)
	if err != nil {
		t.Fatal(err)
	}
	makeAheadNow(t, s)
	s.close()
	if _, err := os.Stat(filepath.Join(dir, aheadFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the chunk made ahead is left after close: %v", err)
	}
	s.makeAhead()
	if _, err := os.Stat(filepath.Join(dir, aheadFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a chunk is made ahead after close: %v", err)
	}
}
