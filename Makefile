# Every target is a thin alias for a go command; `go test ./...` alone works too.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
BIN := bin/sse-dialog-convert
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME ?= 30s

.PHONY: build test race lint golden fuzz bench pgo screenshots clean e2e e2e-latest docs man release

# A static binary: no libc dependency (one build runs in any container) and
# a faster start.
build:
	CGO_ENABLED=0 go build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/sse-dialog-convert

test:
	go test ./...

# docs: the CLI reference in docs/cli, one page per command, made from the
# cobra commands (TestCLIReference fails while the committed pages differ).
docs:
	go test ./cmd/sse-dialog-convert -count=1 -run '^TestCLIReference$$' -update

# man: the man pages, one per command, into MANDIR. Their date is the last
# commit's (SOURCE_DATE_EPOCH), so the same commit gives the same pages.
MANDIR ?= bin/man
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
man:
	rm -rf '$(MANDIR)'
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) go test ./cmd/sse-dialog-convert -count=1 -run '^TestManPages$$' -args -man '$(abspath $(MANDIR))' -man-version '$(VERSION)'

# release: make release VERSION=v0.1.0. Into DIST: one archive per platform
# (the static binary, README.md, LICENSE, CHANGELOG.md, man pages) and
# SHA256SUMS. Reproducible: the same commit gives the same bytes
# (scripts/release). PLATFORMS=linux/amd64 narrows it.
DIST ?= dist
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64
release:
	@case '$(origin VERSION)' in command*|environment*) ;; *) echo 'make release needs VERSION=vX.Y.Z'; exit 2;; esac
	@case '$(VERSION)' in v[0-9]*.[0-9]*.[0-9]*) ;; *) echo 'VERSION=$(VERSION) is not a tag such as v0.1.0'; exit 2;; esac
	$(MAKE) --no-print-directory man MANDIR='$(DIST)/.man'
	go run ./scripts/release -version '$(VERSION)' -dist '$(DIST)' -man '$(DIST)/.man' -epoch $(SOURCE_DATE_EPOCH) $(PLATFORMS)
	rm -rf '$(DIST)/.man'

race:
	go test -race ./...

lint:
	test -z "$$(gofmt -l .)" || { gofmt -l .; exit 1; }
	go vet ./...
	go run $(STATICCHECK) ./...

# golden: -update goes only to the test binaries that define it (those
# linking internal/golden); any other test binary exits on the unknown flag.
GOLDEN_PKG := github.com/ssebench/sse-dialog-convert/internal/golden
golden:
	go test $$(go list -test -f '{{.ImportPath}} {{join .Deps " "}}' ./... | \
		awk '$$1 ~ /\.test$$/ && / $(subst /,\/,$(GOLDEN_PKG))( |$$)/ { sub(/\.test$$/, "", $$1); print $$1 }') -update
	git status --short -- testdata '*/testdata'

# fuzz: every fuzz target for FUZZTIME each (-fuzz takes one target of one
# package at a time). Minimising is capped: uncapped, workers spend up to a
# minute on each new input and report 0 execs/sec meanwhile.
FUZZ_TARGETS := internal/dispatch:FuzzPipeline internal/dialogcheck:FuzzISOUTC internal/dialog:FuzzIDSet \
	internal/claude:FuzzClaude internal/codex:FuzzCodex internal/dialog:FuzzWriter \
	internal/jsonraw:FuzzChecker internal/jsonraw:FuzzUTF8Seq internal/jsonraw:FuzzMembers \
	internal/jsonraw:FuzzInvalid internal/jsonraw:FuzzAppendEscaped internal/jsonraw:FuzzLiteral \
	internal/jsonraw:FuzzLiteralOutLimit internal/jsonraw:FuzzDecodedLen \
	internal/claudesession:FuzzSessionScan \
	internal/jsonraw:FuzzIndex internal/jsonraw:FuzzIndexedWalk internal/frame:FuzzTrimLine internal/frame:FuzzWhole \
	internal/jsonraw:FuzzAppendStringShortcut internal/dialog:FuzzArgsKey internal/dialog:FuzzOpenCalls \
	internal/dialog:FuzzValidUTF8 internal/dialog:FuzzImageCannotBreakOut \
	internal/termmd:FuzzRender internal/dialogread:FuzzRedactor
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "go test -run '^$$' -fuzz '^$$name$$' -fuzztime $(FUZZTIME) ./$$pkg"; \
		go test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 3s ./$$pkg || exit 1; \
	done

# pgo: the profile go build optimises the command for (scripts/pgo.sh).
pgo:
	scripts/pgo.sh

# bench: Go benchmarks (adapters, pipeline, ValidBytes floor; BENCHTIME per
# benchmark), then the built binary against the yardsticks of
# ../shared/bench (CPU and wall ratios, and the load: Claude, then Codex), then its peak memory measured apart (compare.py's --huge
# figure is its own parent's peak: see scripts/peakmem.sh), then the time
# from a line written to a live pipe to its entry in the file (scripts/latency).
BENCHTIME ?= 1s
bench: build
	go test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./internal/...
	@if [ -f ../shared/bench/compare.py ]; then \
		echo python3 ../shared/bench/compare.py $(BIN) --size 100 --runs 5 --huge 64; \
		python3 ../shared/bench/compare.py $(BIN) --size 100 --runs 5 --huge 64; \
		echo python3 ../shared/bench/compare.py $(BIN) --codex --size 100 --runs 5; \
		python3 ../shared/bench/compare.py $(BIN) --codex --size 100 --runs 5; \
	else \
		echo "../shared/bench is missing: compare.py skipped"; \
	fi
	scripts/peakmem.sh $(BIN)
	go run ./scripts/latency $(BIN) testdata/claude/subagent-agent.in.jsonl
	go run ./scripts/latency $(BIN) testdata/codex/current-commands.in.jsonl

# screenshots: docs/screenshot.png, the page export --html makes of
# testdata/view/showcase.dialog.jsonl, drawn by headless Chromium.
screenshots:
	scripts/screenshot.sh

# e2e: the real agent CLIs pinned in testdata/e2e/versions.txt, installed
# with npm into E2E_CACHE (once per version), run every scenario of
# testdata/e2e/scenarios through `run` against the scripted model of
# internal/e2e/mockmodel; each dialog is validated and checked (docs/e2e.md).
# e2e-latest: the same with the registry's newest versions,
# reporting what differs. The summary is printed at the end either way;
# dialogs, transcripts, stderr and request logs stay in E2E_CACHE/out/MODE.
# E2E_ONLY=claude,codex and E2E_SCENARIOS=basic narrow a run;
# E2E_FLAGS=-update rewrites testdata/e2e/events.txt.
E2E_CACHE ?= $(HOME)/.cache/sse-dialog-convert-e2e
E2E_PARALLEL ?= 2
E2E_FLAGS ?=
e2e e2e-latest: MODE = $(if $(filter e2e-latest,$@),latest,pinned)
e2e e2e-latest:
	E2E_CACHE='$(E2E_CACHE)' scripts/e2e-install.sh $(MODE)
	rm -rf '$(E2E_CACHE)/out/$(MODE)'
	E2E_AGENTS='$(E2E_CACHE)/$(MODE).txt' E2E_MODE=$(MODE) E2E_OUT='$(E2E_CACHE)/out/$(MODE)' \
		go test -count=1 -v -timeout 30m -parallel $(E2E_PARALLEL) -run '^TestAgents$$' ./internal/e2e $(E2E_FLAGS); \
		rc=$$?; echo; cat '$(E2E_CACHE)/out/$(MODE)/summary.txt' 2>/dev/null; exit $$rc

clean:
	rm -rf bin dist
