// Package testskip is for tests that need something the repository does
// not hold: a tool (Chromium) or the shared corpus of real captures. Where
// it is missing the test skips, and the package's TestMain says so in one
// line that go test shows without -v; in CI, where everything is
// installed, a missing need fails the test instead.
package testskip

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// CI reports whether the tests run in CI: $CI is set to anything but
// "", "0" or "false" (CI services set CI=true).
func CI() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv("CI"))) {
	case "", "0", "false":
		return false
	}
	return true
}

// skips are the needs found missing while the tests run, for Main's line.
// A package variable because it is what links a test to its package's
// TestMain; guarded because tests run in parallel.
var skips struct {
	mu    sync.Mutex
	tests map[string][]string // what is missing → the tests that skipped for it
}

// Missing ends t for lack of what (a phrase that says what is missing and
// how to get it): it skips, and is counted in Main's summary line; in CI
// it fails, since CI installs every need.
func Missing(t testing.TB, what string) {
	t.Helper()
	if CI() {
		t.Fatalf("%s, and CI is set: CI must provide it", what)
		return
	}
	skips.mu.Lock()
	if skips.tests == nil {
		skips.tests = map[string][]string{}
	}
	skips.tests[what] = append(skips.tests[what], t.Name())
	skips.mu.Unlock()
	t.Skip(what)
}

// Missingf is Missing with the phrase formatted.
func Missingf(t testing.TB, format string, args ...any) {
	t.Helper()
	Missing(t, fmt.Sprintf(format, args...))
}

// Main runs the tests and returns their exit code, after one line telling
// what was skipped for what: on stderr (shown with -v, or when the package
// fails) and, without -v, on the terminal, since go test drops a passing
// package's output.
func Main(m *testing.M) int {
	code := m.Run()
	line := Summary()
	if line == "" {
		return code
	}
	fmt.Fprintln(os.Stderr, line)
	if !testing.Verbose() {
		if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
			_, _ = io.WriteString(tty, line+"\n")
			tty.Close()
		}
	}
	return code
}

// Summary is the line Main prints: the package, how many tests skipped,
// and each missing need with the tests it kept from running; "" when none
// skipped.
func Summary() string {
	skips.mu.Lock()
	defer skips.mu.Unlock()
	if len(skips.tests) == 0 {
		return ""
	}
	whats := make([]string, 0, len(skips.tests))
	n := 0
	for what, tests := range skips.tests {
		whats = append(whats, what)
		n += len(tests)
	}
	slices.Sort(whats)
	parts := make([]string, len(whats))
	for i, what := range whats {
		parts[i] = what + " (" + strings.Join(skips.tests[what], ", ") + ")"
	}
	word := "tests"
	if n == 1 {
		word = "test"
	}
	return fmt.Sprintf("--- %s: %d %s skipped: %s", packageDir(), n, word, strings.Join(parts, "; "))
}

// packageDir names the package under test by its folder below go.mod (go
// test runs a package's tests in its folder).
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	for dir := wd; filepath.Dir(dir) != dir; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if rel, err := filepath.Rel(dir, wd); err == nil {
				return filepath.ToSlash(rel)
			}
		}
	}
	return wd
}
