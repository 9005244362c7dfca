# Every target is a thin alias for a go command; `go test ./...` alone works too.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
BIN := bin/sse-dialog-convert
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME ?= 30s

.PHONY: build test race lint golden fuzz bench clean

build:
	go build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/sse-dialog-convert

test:
	go test ./...

race:
	go test -race ./...

lint:
	test -z "$$(gofmt -l .)" || { gofmt -l .; exit 1; }
	go vet ./...
	go run $(STATICCHECK) ./...

golden:
	go test ./... -update
	git status --short -- testdata '*/testdata'

fuzz:
	go test -run '^$$' -fuzz '^FuzzClaude$$' -fuzztime $(FUZZTIME) ./internal/claude
	go test -run '^$$' -fuzz '^FuzzCodex$$' -fuzztime $(FUZZTIME) ./internal/codex
	go test -run '^$$' -fuzz '^FuzzPipeline$$' -fuzztime $(FUZZTIME) ./internal/convert

# bench: Go benchmarks (adapters, pipeline, ValidBytes floor; BENCHTIME per
# benchmark), then the built binary against the yardsticks of
# ../shared/bench, then its peak memory measured apart (compare.py's --huge
# figure is its own parent's peak: see scripts/peakmem.sh).
BENCHTIME ?= 1s
bench: build
	go test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./internal/...
	@if [ -f ../shared/bench/compare.py ]; then \
		echo python3 ../shared/bench/compare.py $(BIN) --size 100 --runs 5 --huge 64; \
		python3 ../shared/bench/compare.py $(BIN) --size 100 --runs 5 --huge 64; \
	else \
		echo "../shared/bench is missing: compare.py skipped"; \
	fi
	scripts/peakmem.sh $(BIN)

clean:
	rm -rf bin
