package analytics

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// The files of a spool directory.
const (
	// spoolLockFile is locked (flock) by the process that uses the spool.
	spoolLockFile = "lock"
	// spoolIDFile holds the spool's id: 32 hex characters, made once.
	spoolIDFile = "spool-id"
	// chunkSuffix ends the name of a chunk: its sequence number in 20
	// digits, so that names sort in sequence order.
	chunkSuffix = ".chunk"
	// aheadFile is the next chunk made ahead of need (makeAhead): never a
	// chunk until a rotation renames it to one, so that what a process
	// that died left under this name is no data and is deleted at open.
	aheadFile = "next-chunk"
)

// maxChunkBytes rotates a chunk that reaches this size before it holds a
// batch of clicks.
const maxChunkBytes = 4 << 20

// mappedChunkBytes is the size of a mapped chunk (mapChunk): a chunk is
// rotated when the next record does not fit. It holds the largest record.
const mappedChunkBytes = 1 << 20

// mapChunks is whether chunks are mapped where they can be; the
// benchmarks compare both ways.
var mapChunks = true

// ErrSpoolLocked is returned by OpenRecorder when another process uses the
// spool directory.
var ErrSpoolLocked = errors.New("analytics: the click spool directory is in use by another process")

// spool is a directory of chunk files that holds the clicks a Recorder
// accepted until they are written (see the package doc, Recording).
//
// The active chunk takes appends; rotate makes it immutable, queues it for
// the writer and opens the next sequence number. The active chunk always
// exists on disk and has the highest sequence number of any chunk that was
// ever made, so a process that starts again never reuses a number that
// the store may have committed, even after every other chunk was deleted.
type spool struct {
	dir        string
	id         string
	lock       *os.File
	maxBytes   int64
	maxRecords int
	// firstSeq is the active chunk's number at open: lower numbers are
	// chunks an earlier process left.
	firstSeq int64

	mu          sync.Mutex
	active      *os.File
	seq         int64 // of the active chunk
	records     int   // in the active chunk
	activeBytes int64
	// mapped, when not nil, is the active chunk mapped into memory
	// (mapChunk), its first activeBytes bytes the records; without it,
	// each record is one write to active.
	mapped []byte
	closed bool
	// ready are the immutable chunks not yet written, oldest first.
	ready []int64
	// retiring are the chunks of ready that a rotation has yet to finish
	// (retire): the writer takes none of them, nor any after the first, so
	// that chunks are written in sequence order.
	retiring map[int64]bool

	// aheadMu guards ahead, the next chunk made ahead of need (nil when
	// none is ready), and is held while it is made; it is taken after
	// mu when both are. aheadClosed stops the making; making counts the
	// goroutines that make one.
	aheadMu     sync.Mutex
	ahead       *aheadChunk
	aheadClosed bool
	making      sync.WaitGroup

	// size is the bytes of every chunk file, the active one included.
	size atomic.Int64
	// rotated tells the writer that a chunk is ready.
	rotated chan struct{}
}

// openSpool opens (creating) the spool directory dir, locks it, and opens
// a new active chunk after the chunks it finds, which it queues to be
// written first.
func openSpool(dir string, maxBytes int64, maxRecords int) (*spool, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("analytics: creating the click spool: %w", err)
	}
	lock, err := lockDir(filepath.Join(dir, spoolLockFile))
	if err != nil {
		return nil, err
	}
	s := &spool{dir: dir, lock: lock, maxBytes: maxBytes, maxRecords: maxRecords, rotated: make(chan struct{}, 1)}
	if err := s.open(); err != nil {
		_ = lock.Close()
		return nil, err
	}
	return s, nil
}

func (s *spool) open() error {
	id, err := spoolID(s.dir)
	if err != nil {
		return err
	}
	s.id = id
	// A chunk made ahead that an earlier process left was never
	// renamed to a chunk, so it holds no record.
	if err := os.Remove(filepath.Join(s.dir, aheadFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("analytics: deleting the click spool's unused next chunk: %w", err)
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("analytics: reading the click spool: %w", err)
	}
	var last int64
	for _, e := range entries {
		seq, ok := chunkSeq(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return fmt.Errorf("analytics: reading the click spool: %w", err)
		}
		s.ready = append(s.ready, seq)
		s.size.Add(info.Size())
		last = max(last, seq)
	}
	slices.Sort(s.ready)
	s.firstSeq = last + 1
	return s.startChunk(last + 1)
}

// spoolID reads the spool's id, creating it when the directory has none.
func spoolID(dir string) (string, error) {
	path := filepath.Join(dir, spoolIDFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		raw := make([]byte, 16)
		_, _ = rand.Read(raw)
		id := hex.EncodeToString(raw)
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(id+"\n"), 0o600); err != nil {
			return "", fmt.Errorf("analytics: writing the click spool id: %w", err)
		}
		if err := os.Rename(tmp, path); err != nil {
			return "", fmt.Errorf("analytics: writing the click spool id: %w", err)
		}
		return id, nil
	}
	if err != nil {
		return "", fmt.Errorf("analytics: reading the click spool id: %w", err)
	}
	id := string(bytes.TrimSpace(b))
	if _, err := hex.DecodeString(id); err != nil || len(id) != 32 {
		return "", fmt.Errorf("analytics: the click spool id in %s is not 32 hex characters", path)
	}
	return id, nil
}

func chunkName(seq int64) string { return fmt.Sprintf("%020d%s", seq, chunkSuffix) }

// chunkSeq returns the sequence number of a chunk's file name.
func chunkSeq(name string) (int64, bool) {
	digits, ok := strings.CutSuffix(name, chunkSuffix)
	if !ok || len(digits) != 20 {
		return 0, false
	}
	seq, err := strconv.ParseInt(digits, 10, 64)
	return seq, err == nil && seq > 0
}

// startChunk makes chunk seq the active one: the chunk made ahead, renamed
// (the file's creation and its disk space, 0.6 ms under load, are then
// off the path of the Record that rotates), or one created here when none
// is ready. It starts making the next one. s.mu is held, or s is not
// shared yet.
func (s *spool) startChunk(seq int64) error {
	path := filepath.Join(s.dir, chunkName(seq))
	f, mapped := s.takeAhead(path)
	if f == nil {
		var err error
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("analytics: creating a click spool chunk: %w", err)
		}
		if mapChunks {
			mapped, _ = mapChunk(f, mappedChunkBytes, false) // nil: write instead
		}
	}
	s.active, s.seq, s.records, s.activeBytes, s.mapped = f, seq, 0, 0, mapped
	s.making.Go(s.makeAhead)
	return nil
}

// aheadChunk is the next chunk made ahead of need: the open file
// aheadFile, mapped when mapped is not nil.
type aheadChunk struct {
	f      *os.File
	mapped []byte
}

// makeAhead makes the next chunk under the name aheadFile, unless one is
// made or s is closed. A chunk is renamed from it before its first record
// is copied, so a process that dies leaves under that name no data.
// Failing, it makes none: the rotation creates the chunk itself.
func (s *spool) makeAhead() {
	s.aheadMu.Lock()
	defer s.aheadMu.Unlock()
	if s.aheadClosed || s.ahead != nil {
		return
	}
	path := filepath.Join(s.dir, aheadFile)
	_ = os.Remove(path) // one a failed rename left
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	a := &aheadChunk{f: f}
	if mapChunks {
		a.mapped, _ = mapChunk(f, mappedChunkBytes, true)
	}
	s.ahead = a
}

// takeAhead renames the chunk made ahead to path and returns it, or nil
// when none is ready or the rename fails. The rename happens under
// aheadMu: a makeAhead that ran between taking the chunk and renaming it
// would delete the file as one a failed rename left, and the chunk would
// be written to an unlinked file. A makeAhead holding the lock is making
// a chunk, so none is ready and the rotation does not wait for it.
// s.mu is held, or s is not shared yet.
func (s *spool) takeAhead(path string) (*os.File, []byte) {
	if !s.aheadMu.TryLock() {
		return nil, nil
	}
	defer s.aheadMu.Unlock()
	a := s.ahead
	s.ahead = nil
	if a == nil {
		return nil, nil
	}
	if err := os.Rename(filepath.Join(s.dir, aheadFile), path); err != nil {
		dropAhead(a)
		return nil, nil
	}
	return a.f, a.mapped
}

// dropAhead unmaps and closes the chunk made ahead a; its file stays for
// makeAhead or open to delete.
func dropAhead(a *aheadChunk) {
	if a.mapped != nil {
		_ = unmapChunk(a.f, a.mapped, 0)
	}
	_ = a.f.Close()
}

// closeActive closes the active chunk, its file cut to its records when
// it was mapped.
func (s *spool) closeActive() {
	if s.mapped != nil {
		_ = unmapChunk(s.active, s.mapped, s.activeBytes)
		s.mapped = nil
	}
	_ = s.active.Close()
}

// append writes c to the active chunk as one record, with one write, and
// rotates the chunk when it is full. Unless force is set, it refuses c
// (false, nil) when the spool would grow past maxBytes. It returns false
// and the error when the write fails; the chunk is then rotated, so that
// a partly written record is the last of its chunk.
func (s *spool) append(c *Click, force bool) (bool, error) {
	// The record is encoded before s.mu is taken: every redirect takes
	// it, and a holder the system deschedules stalls them all, so it is
	// held for the copy alone.
	bp := recordBufs.Get().(*[]byte)
	defer recordBufs.Put(bp)
	buf := appendRecord((*bp)[:0], c)
	if len(buf) > recordHeader+maxRecord {
		// Normalized, every text field is bounded and the record fits.
		c.Normalize()
		buf = appendRecord(buf[:0], c)
	}
	*bp = buf
	n := int64(len(buf))

	// A chunk rotated here is finished once s.mu is released.
	var done []retiredChunk
	s.mu.Lock()
	defer func() {
		s.mu.Unlock()
		for _, old := range done {
			s.retire(old)
		}
	}()
	if s.closed {
		return false, errors.New("analytics: the click spool is closed")
	}
	if !force && s.size.Load()+n > s.maxBytes {
		return false, nil
	}
	if s.mapped != nil && s.activeBytes+n > int64(len(s.mapped)) {
		old, err := s.rotateLocked()
		if err != nil {
			return false, err
		}
		done = append(done, old...)
		if s.mapped != nil && s.activeBytes+n > int64(len(s.mapped)) {
			return false, errors.New("analytics: a click spool record does not fit in a chunk")
		}
	}
	if s.mapped != nil {
		copy(s.mapped[s.activeBytes:], buf)
	} else if _, err := s.active.Write(buf); err != nil {
		s.activeBytes = maxChunkBytes // a torn tail: rotate before the next append
		s.records++
		old, _ := s.rotateLocked()
		done = append(done, old...)
		return false, fmt.Errorf("analytics: writing to the click spool: %w", err)
	}
	s.size.Add(n)
	s.records++
	s.activeBytes += n
	if s.records >= s.maxRecords || s.activeBytes >= maxChunkBytes {
		old, err := s.rotateLocked()
		if err != nil {
			return true, err
		}
		done = append(done, old...)
	}
	return true, nil
}

// recordBufs are the buffers records are encoded into before append
// takes the spool's mutex.
var recordBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// rotate makes the active chunk immutable and queues it, unless it is
// empty.
func (s *spool) rotate() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	old, err := s.rotateLocked()
	s.mu.Unlock()
	for _, o := range old {
		s.retire(o)
	}
	return err
}

// retiredChunk is a chunk that rotateLocked replaced: still open, and
// mapped when it was, its records filling used bytes.
type retiredChunk struct {
	f      *os.File
	mapped []byte
	used   int64
	seq    int64
}

// rotateLocked starts the next chunk and returns the active one, which the
// caller hands to retire once it has released s.mu (none when the active
// chunk is empty). Cutting a mapped chunk's file to its records took 4 to
// 6 ms under load (BENCHMARKS.md, issue 15, fifth round), which every
// Record waited for while it was done under s.mu.
func (s *spool) rotateLocked() ([]retiredChunk, error) {
	if s.records == 0 {
		return nil, nil
	}
	old := retiredChunk{f: s.active, mapped: s.mapped, used: s.activeBytes, seq: s.seq}
	// The next chunk exists before the old one is queued, so the highest
	// number on disk is never one the store may have committed.
	if err := s.startChunk(old.seq + 1); err != nil {
		return nil, err
	}
	s.ready = append(s.ready, old.seq)
	if s.retiring == nil {
		s.retiring = map[int64]bool{}
	}
	s.retiring[old.seq] = true
	return []retiredChunk{old}, nil
}

// retire unmaps old (its file cut to its records) and closes it, then
// lets the writer take it. s.mu is not held.
func (s *spool) retire(old retiredChunk) {
	if old.mapped != nil {
		_ = unmapChunk(old.f, old.mapped, old.used)
	}
	_ = old.f.Close()
	s.mu.Lock()
	delete(s.retiring, old.seq)
	s.mu.Unlock()
	select {
	case s.rotated <- struct{}{}:
	default:
	}
}

// next returns the oldest chunk waiting to be written.
func (s *spool) next() (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ready) == 0 || s.retiring[s.ready[0]] {
		return 0, false
	}
	return s.ready[0], true
}

// waiting returns the numbers of the n oldest chunks waiting to be
// written, or of all when fewer wait.
func (s *spool) waiting(n int) []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	n = min(n, len(s.ready))
	for i, seq := range s.ready[:n] {
		if s.retiring[seq] {
			n = i
			break
		}
	}
	return slices.Clone(s.ready[:n])
}

// read returns the clicks of chunk seq, the size of its file, and how many
// bytes at its end were dropped as a torn record.
func (s *spool) read(seq int64) (clicks []Click, size int64, torn int, err error) {
	var buf []byte
	return s.readInto(seq, &buf, nil)
}

// readInto is read with the chunk's bytes read into *buf, grown when too
// small, and its clicks appended to dst: the writer reuses both from batch
// to batch rather than allocating a chunk's size twice over for each.
func (s *spool) readInto(seq int64, buf *[]byte, dst []Click) (clicks []Click, size int64, torn int, err error) {
	f, err := os.Open(filepath.Join(s.dir, chunkName(seq)))
	if err != nil {
		return dst, 0, 0, fmt.Errorf("analytics: reading a click spool chunk: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return dst, 0, 0, fmt.Errorf("analytics: reading a click spool chunk: %w", err)
	}
	b := slices.Grow((*buf)[:0], int(info.Size()))[:info.Size()]
	*buf = b
	if _, err := io.ReadFull(f, b); err != nil {
		return dst, 0, 0, fmt.Errorf("analytics: reading a click spool chunk: %w", err)
	}
	clicks, torn, _ = decodeRecords(dst, b)
	return clicks, int64(len(b)), torn, nil
}

// remove deletes chunk seq, the oldest waiting, whose file had size bytes.
func (s *spool) remove(seq, size int64) error {
	if err := os.Remove(filepath.Join(s.dir, chunkName(seq))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("analytics: deleting a written click spool chunk: %w", err)
	}
	s.size.Add(-size)
	s.mu.Lock()
	s.ready = slices.DeleteFunc(s.ready, func(q int64) bool { return q == seq })
	s.mu.Unlock()
	return nil
}

// committed tells s that the store has committed every chunk up to mark:
// the chunks waiting with a number up to mark are deleted unread (an
// earlier process wrote them and died before deleting them), and the
// active chunk is renumbered past mark should it not be (its files were
// deleted by hand).
func (s *spool) committed(mark int64) error {
	for {
		seq, ok := s.next()
		if !ok || seq > mark {
			break
		}
		info, err := os.Stat(filepath.Join(s.dir, chunkName(seq)))
		var size int64
		if err == nil {
			size = info.Size()
		}
		if err := s.remove(seq, size); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seq > mark || s.closed {
		return nil
	}
	if err := os.Rename(filepath.Join(s.dir, chunkName(s.seq)), filepath.Join(s.dir, chunkName(mark+1))); err != nil {
		return fmt.Errorf("analytics: renumbering the active click spool chunk: %w", err)
	}
	s.seq = mark + 1
	return nil
}

// close closes the active chunk, which stays on disk, and unlocks the
// directory.
func (s *spool) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	s.closeActive()
	s.aheadMu.Lock()
	s.aheadClosed = true
	if s.ahead != nil {
		dropAhead(s.ahead)
		s.ahead = nil
		_ = os.Remove(filepath.Join(s.dir, aheadFile))
	}
	s.aheadMu.Unlock()
	s.making.Wait() // each sees aheadClosed
	_ = s.lock.Close()
}
