package testkit

import (
	"encoding/binary"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

// idSeq orders the ids IDAt makes: it starts at a random value, so that
// two test processes are unlikely to make one id.
var idSeq = func() *atomic.Uint64 {
	var n atomic.Uint64
	n.Store(rand.Uint64N(1 << 40))
	return &n
}()

// IDAt is a version 7 id that carries at's time (to the millisecond), as
// the ids the click recorder gives clicks do. A test on a fake clock needs
// it for a click the store must find by its id's time: on SQLite a
// candidate click whose id carries another time keeps a row of clicks,
// where the recorder's are in their segments alone. Ids of one instant
// grow in the order they are made, as the recorder's do.
func IDAt(at time.Time) uuid.UUID {
	var id uuid.UUID
	binary.BigEndian.PutUint64(id[0:8], uint64(at.UnixMilli())<<16|0x7000)
	binary.BigEndian.PutUint64(id[8:16], idSeq.Add(1))
	id[8] = id[8]&0x3f | 0x80 // the RFC 4122 variant
	return id
}
