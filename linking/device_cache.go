package linking

import "sync"

// DefaultDeviceCacheSize is the number of user agents a DeviceCache keeps.
const DefaultDeviceCacheSize = 10_000

// maxCachedUserAgent is the longest user agent a DeviceCache keeps; longer
// ones are classified every time, so that odd clients cannot fill memory.
const maxCachedUserAgent = 512

// DeviceCache remembers ClassifyDevice's answers by user agent. Visitors
// send few distinct user agents (one per browser build), so a small cache
// answers most redirects without parsing. It holds at most its size; when
// full it starts over, and the popular agents come back at once. It is safe
// for concurrent use.
type DeviceCache struct {
	mu   sync.RWMutex
	max  int
	seen map[string]Device
}

// NewDeviceCache returns a cache of at most size user agents
// (DefaultDeviceCacheSize when size is zero or less).
func NewDeviceCache(size int) *DeviceCache {
	if size <= 0 {
		size = DefaultDeviceCacheSize
	}
	return &DeviceCache{max: size, seen: make(map[string]Device, size)}
}

// Classify returns ClassifyDevice(userAgent), from the cache when it can.
func (c *DeviceCache) Classify(userAgent string) Device {
	c.mu.RLock()
	d, ok := c.seen[userAgent]
	c.mu.RUnlock()
	if ok {
		return d
	}
	d = ClassifyDevice(userAgent)
	if len(userAgent) > maxCachedUserAgent {
		return d
	}
	c.mu.Lock()
	if len(c.seen) >= c.max {
		clear(c.seen)
	}
	c.seen[userAgent] = d
	c.mu.Unlock()
	return d
}

// Len returns the number of user agents held.
func (c *DeviceCache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.seen)
}
