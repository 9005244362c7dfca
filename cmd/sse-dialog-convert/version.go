package main

import (
	"runtime/debug"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
)

// version is set by the Makefile: -ldflags "-X main.version=…" (the tag,
// for make release; git describe, for make build).
var version string

// buildVersion is what --version prints (cli.VersionString).
func buildVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return cli.VersionString(version, bi)
}
