package version

import (
	"runtime/debug"
	"strings"
	"sync"
)

// Info is what the running binary knows about its own build.
type Info struct {
	// Version is the main module's version: a tag such as "v1.2.0", a
	// pseudo-version, or "(devel)" for a build from a checkout.
	Version string `json:"version"`
	// Revision is the VCS revision the binary was built from; empty when
	// the build recorded none (go test, or -buildvcs=false).
	Revision string `json:"revision,omitempty"`
	// Modified is true when the checkout had uncommitted changes.
	Modified bool `json:"modified,omitempty"`
}

// String is the version with the first 12 characters of the revision, and
// "+dirty" for a modified checkout: "(devel) 1a2b3c4d5e6f+dirty".
func (i Info) String() string {
	s := i.Version
	if i.Revision != "" {
		rev := i.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		s += " " + rev
		if i.Modified {
			s += "+dirty"
		}
	}
	return s
}

var (
	once sync.Once
	info Info
)

// Get returns the build information of the running binary, read once.
// Without build information (never the case for a binary built by the Go
// toolchain) its Version is "(unknown)".
func Get() Info {
	once.Do(func() {
		bi, ok := debug.ReadBuildInfo()
		info = FromBuildInfo(bi, ok)
	})
	return info
}

// FromBuildInfo turns build information (ok false when there is none) into
// an Info. Get uses it on the running binary's.
func FromBuildInfo(bi *debug.BuildInfo, ok bool) Info {
	if !ok || bi == nil {
		return Info{Version: "(unknown)"}
	}
	i := Info{Version: strings.TrimSpace(bi.Main.Version)}
	if i.Version == "" {
		i.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Revision = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	return i
}
