#!/bin/sh
# pgo.sh: writes cmd/sse-dialog-convert/default.pgo, the CPU profile that
# `go build` of the command reads for profile-guided optimisation (Go's
# -pgo=auto: a default.pgo beside the main package; nothing else to pass).
# The profile is of BenchmarkPipeline converting Claude Code and Codex
# sessions to a file, the work the command spends its time on. Run it again
# after a change to the hot path: a stale profile still builds, and only
# optimises less.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -run '^$' -bench 'BenchmarkPipeline/(claude-16MiB|codex-16MiB|codex-real-lines-16MiB)/file$' \
	-benchtime 30x -o "$tmp/dispatch.test" -cpuprofile "$tmp/cpu.pprof" ./internal/dispatch/
cp "$tmp/cpu.pprof" cmd/sse-dialog-convert/default.pgo
echo "wrote cmd/sse-dialog-convert/default.pgo"
