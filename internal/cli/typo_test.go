package cli

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{
		{"run", "run", 0}, {"rnu", "run", 1}, {"valdiate", "validate", 1}, {"vaildate", "validate", 1},
		{"validat", "validate", 1}, {"", "run", 3}, {"transcript", "run", 8}, {"rm", "run", 2},
	} {
		assert.Equal(t, tt.d, editDistance(tt.a, tt.b), "%s %s", tt.a, tt.b)
	}
}

// TestVersionString: --version gives the module version and, when the go
// command stamped one, the commit the binary was built from.
func TestVersionString(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "5328ae68e9627b9bcdce773c51e67798fe1ae3e6"},
		{Key: "vcs.time", Value: "2026-11-30T17:39:21Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	tests := []struct {
		name, stamped string
		bi            *debug.BuildInfo
		want          string
	}{
		{"go install …@version: no checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"},
		{"built in a clone", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130173921-5328ae68e962+dirty"}, Settings: vcs},
			"v0.0.0-20261130173921-5328ae68e962+dirty (revision 5328ae68e9627b9bcdce773c51e67798fe1ae3e6, 2026-11-30T17:39:21Z, modified)"},
		{"no version known", "", &debug.BuildInfo{Settings: vcs[:2]}, "dev (revision 5328ae68e9627b9bcdce773c51e67798fe1ae3e6)"},
		{"go build -buildvcs=false", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"make release", "v0.1.0", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "v0.1.0"},
		{"make build", "v0.3.0-4-g5328ae6", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "v0.3.0-4-g5328ae6"},
		{"no build info", "", nil, "dev"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, VersionString(tt.stamped, tt.bi), tt.name)
	}
}
