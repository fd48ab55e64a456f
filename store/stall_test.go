package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// stallBound is how long a key read may take on a stalled database, or
// once it answers again: well under the driver's own read timeout (ten
// seconds), which a read held by a connection would wait for, and far
// over the deadline of the stalled reads.
const stallBound = 5 * time.Second

// TestKeyReadsKeepTheirDeadlineWhenPostgresStalls stalls PostgreSQL behind
// a proxy that holds every byte, after several connections have served
// key reads: a read with a 300 ms deadline fails within the bound, a
// second one too, and once the database answers again every read answers
// at once, with its own key's clicks. Read from the database (the matcher
// before the candidate index is built) and through the index, whose read
// of new rows runs before every match.
func TestKeyReadsKeepTheirDeadlineWhenPostgresStalls(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		read func(s *store.Store, ctx context.Context, q attribution.KeyQuery) (attribution.KeyRead, error)
	}{
		{"database", (*store.Store).KeyClicksFromDatabase},
		{"index", (*store.Store).KeyClicks},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, proxy, _ := openBehindProxy(t)
			w := newCandidateWorld(t, s)
			w.insert(t, 400, 6*time.Hour)
			read := func(ctx context.Context, q attribution.KeyQuery) (attribution.KeyRead, error) {
				return tc.read(s, ctx, q)
			}

			ctx := t.Context()
			qs := []attribution.KeyQuery{w.query(w.keys[0], w.apps[0]), w.query(w.keys[1], w.apps[1])}
			var wants []attribution.KeyRead
			for _, q := range qs {
				want, err := read(ctx, q)
				require.NoError(t, err)
				wants = append(wants, normalRead(want))
			}
			require.NotEqual(t, wants[0], wants[1])
			if tc.name == "index" {
				require.True(t, s.CandidateIndexReady(ctx, qs[0]), "the index answers")
			}
			// Several connections serve reads before the stall.
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					for range 20 {
						_, err := read(ctx, qs[0])
						assert.NoError(t, err)
					}
				})
			}
			wg.Wait()

			proxy.Stall()
			for i := range 2 {
				within(t, proxy, "a read on the stalled database", func() {
					ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
					defer cancel()
					_, err := read(ctx, qs[i])
					assert.Error(t, err, "stalled read %d", i)
				})
			}
			proxy.Resume()
			for i := range 6 {
				within(t, proxy, "a read once the database answers", func() {
					ctx, cancel := context.WithTimeout(ctx, stallBound)
					defer cancel()
					got, err := read(ctx, qs[i%2])
					if assert.NoError(t, err, "read %d", i) {
						assert.Equal(t, wants[i%2], normalRead(got), "read %d answers for its own key", i)
					}
				})
			}
		})
	}
}

// within runs fn and logs how long it took. When that is over stallBound
// it resumes proxy, so that fn ends soon, waits for it and ends the test.
func within(t *testing.T, proxy *storetest.TCPProxy, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	began := time.Now()
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
		t.Logf("%s: %v", what, time.Since(began).Round(time.Millisecond))
	case <-time.After(stallBound):
		proxy.Resume()
		<-done
		t.Fatalf("%s took over %v (%v in all, the database answering again after %v)",
			what, stallBound, time.Since(began).Round(time.Millisecond), stallBound)
	}
}
