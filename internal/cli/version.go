package cli

import (
	"runtime/debug"
	"strings"
)

// VersionString is what --version prints: the version stamped at link time,
// else the module version from the build info (go install …@vX), else
// "dev" (a build that knows no version: the go command says "(devel)");
// then the VCS revision the go command stamps into a build made in a git
// checkout (go build, go install ./cmd/…), when there is one. A release
// build is made with -buildvcs=false, so it prints its tag alone.
func VersionString(stamped string, bi *debug.BuildInfo) string {
	v := stamped
	if v == "" && bi != nil && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	if v == "" {
		v = "dev"
	}
	if bi == nil {
		return v
	}
	var rev, at string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return v // not built in a checkout (go install …@vX), or without -buildvcs
	}
	extra := []string{"revision " + rev}
	if at != "" {
		extra = append(extra, at)
	}
	if modified {
		extra = append(extra, "modified")
	}
	return v + " (" + strings.Join(extra, ", ") + ")"
}
