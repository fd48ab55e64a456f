package app

import (
	"bufio"
	"bytes"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// serveGCPercent is the garbage collector's target of a running server
// when GOGC is not set: the heap may grow to five times what is live
// before a cycle, rather than twice. A redirect allocates a few kilobytes
// and the click writer more; at the Go default a busy server ran several
// cycles a second, each stopping every goroutine twice and taking a
// quarter of the processors while it marked, which showed in the
// redirect's CPU and most of its tail latency (BENCHMARKS.md, issue 15).
// docs/operating.md tells operators how to override it.
const serveGCPercent = 400

// serveMemoryShare is the part of the machine's memory (or of its control
// group's limit) that a server whose GOMEMLIMIT is not set takes as its
// soft memory limit: past it the collector runs as often as it must,
// whatever serveGCPercent allows, so that a large live heap (a big
// attribution index) does not grow five times over.
const serveMemoryShare = 0.5

// gcSettings are the garbage collector settings tuneGC chose; zero values
// are left as the Go runtime has them.
type gcSettings struct {
	percent     int
	memoryLimit int64
}

// tuneGC sets the garbage collector's target and soft memory limit of a
// long-running server, each unless the operator's GOGC or GOMEMLIMIT
// sets it (docs/operating.md). getenv reads the environment; memory
// returns the bytes the process may use, 0 when unknown.
func tuneGC(getenv func(string) string, memory func() int64) gcSettings {
	var s gcSettings
	if getenv("GOGC") == "" {
		s.percent = serveGCPercent
		debug.SetGCPercent(s.percent)
	}
	if getenv("GOMEMLIMIT") == "" {
		if m := memory(); m > 0 {
			s.memoryLimit = int64(float64(m) * serveMemoryShare)
			debug.SetMemoryLimit(s.memoryLimit)
		}
	}
	return s
}

// machineMemory returns the bytes of memory the process may use: its
// control group's limit (cgroup v2) when it has one below the machine's
// memory, else the machine's (MemTotal); 0 where neither can be read.
func machineMemory() int64 {
	total := memTotal(readFile("/proc/meminfo"))
	if limit := cgroupLimit(readFile("/sys/fs/cgroup/memory.max")); limit > 0 && (total == 0 || limit < total) {
		return limit
	}
	return total
}

func readFile(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}

// memTotal returns the MemTotal of /proc/meminfo's text b, in bytes, or 0.
func memTotal(b []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb <= 0 || kb > 1<<43 {
			return 0
		}
		return kb << 10
	}
	return 0
}

// cgroupLimit returns the limit of a cgroup v2 memory.max file's text b,
// in bytes, or 0 when it has none ("max") or cannot be read.
func cgroupLimit(b []byte) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}
