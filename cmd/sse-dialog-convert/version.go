package main

import "runtime/debug"

// version is set by the Makefile: -ldflags "-X main.version=…".
var version string

// buildVersion returns the version stamped at link time, else the module
// version from the build info (go install …@vX), else "(devel)".
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
