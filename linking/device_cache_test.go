package linking_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/linking"
)

func TestDeviceCacheAnswersAsClassifyDevice(t *testing.T) {
	c := linking.NewDeviceCache(0)
	agents := []string{
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
		"Twitterbot/1.0",
		"",
	}
	for _, ua := range agents {
		assert.Equal(t, linking.ClassifyDevice(ua), c.Classify(ua), ua)
		assert.Equal(t, linking.ClassifyDevice(ua), c.Classify(ua), "again, from the cache: %s", ua)
	}
	assert.Equal(t, len(agents), c.Len())
}

func TestDeviceCacheStaysBounded(t *testing.T) {
	c := linking.NewDeviceCache(8)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				c.Classify(fmt.Sprintf("agent %d/%d", g, i))
				assert.LessOrEqual(t, c.Len(), 8)
			}
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, c.Len(), 8)
}

func TestDeviceCacheSkipsLongAgents(t *testing.T) {
	c := linking.NewDeviceCache(8)
	long := "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) " + strings.Repeat("x", 600)
	assert.Equal(t, linking.ClassifyDevice(long), c.Classify(long))
	assert.Zero(t, c.Len())
}

func BenchmarkDeviceCacheHit(b *testing.B) {
	c := linking.NewDeviceCache(0)
	ua := "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1"
	c.Classify(ua)
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Classify(ua)
	}
}
