package version_test

import (
	"fmt"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/version"
)

func TestFromBuildInfo(t *testing.T) {
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want version.Info
		str  string
	}{
		{"no build information is unknown", nil, false, version.Info{Version: "(unknown)"}, "(unknown)"},
		{"a tagged module without VCS data", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, true,
			version.Info{Version: "v1.2.0"}, "v1.2.0"},
		{"an empty version is a development build", &debug.BuildInfo{}, true, version.Info{Version: "(devel)"}, "(devel)"},
		{"the revision is shortened and a modified checkout marked", &debug.BuildInfo{
			Main:     debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}},
		}, true, version.Info{Version: "(devel)", Revision: "0123456789abcdef0123", Modified: true}, "(devel) 0123456789ab+dirty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := version.FromBuildInfo(tt.bi, tt.ok)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.str, got.String())
		})
	}
}

func TestGetIsStable(t *testing.T) {
	assert.Equal(t, version.Get(), version.Get())
	assert.NotEmpty(t, version.Get().Version)
}

func ExampleInfo_String() {
	fmt.Println(version.Info{Version: "v1.4.0", Revision: "5f0c2a9e1b7d44aa"}.String())
	// Output: v1.4.0 5f0c2a9e1b7d
}
