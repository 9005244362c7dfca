package testskip

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fakeT records what Missing does to a test, without ending this one.
type fakeT struct {
	testing.TB
	name            string
	skipped, failed string
}

func (f *fakeT) Helper()      {}
func (f *fakeT) Name() string { return f.name }
func (f *fakeT) Skip(args ...any) {
	f.skipped = fmt.Sprint(args...)
}
func (f *fakeT) Fatalf(format string, args ...any) { f.failed = fmt.Sprintf(format, args...) }

func forget() {
	skips.mu.Lock()
	skips.tests = nil
	skips.mu.Unlock()
}

// fresh sets CI to ci for the test, which starts and ends with no skip
// recorded.
func fresh(t *testing.T, ci string) {
	t.Setenv("CI", ci)
	forget()
	t.Cleanup(forget)
}

func TestCI(t *testing.T) {
	for value, want := range map[string]bool{"": false, "0": false, "false": false, "FALSE": false, " false ": false, "true": true, "1": true, "yes": true, "woodpecker": true} {
		t.Setenv("CI", value)
		assert.Equal(t, want, CI(), "CI=%q", value)
	}
}

func TestMissingSkipsAndCountsOutsideCI(t *testing.T) {
	fresh(t, "false")
	a := &fakeT{name: "TestA"}
	Missing(a, "no chromium at /usr/bin/chromium")
	b := &fakeT{name: "TestB"}
	Missing(b, "no chromium at /usr/bin/chromium")
	c := &fakeT{name: "TestC/sub"}
	Missing(c, "../shared/corpus is absent")
	assert.Equal(t, "no chromium at /usr/bin/chromium", a.skipped)
	assert.Empty(t, a.failed)
	assert.Equal(t, "--- internal/testskip: 3 tests skipped: ../shared/corpus is absent (TestC/sub); no chromium at /usr/bin/chromium (TestA, TestB)", Summary())
}

func TestMissingFailsInCI(t *testing.T) {
	fresh(t, "true")
	a := &fakeT{name: "TestA"}
	Missing(a, "no chromium at /usr/bin/chromium")
	assert.Equal(t, "no chromium at /usr/bin/chromium, and CI is set: CI must provide it", a.failed)
	assert.Empty(t, Summary(), "a failure is not a skip")
}

func TestSummaryOfOne(t *testing.T) {
	fresh(t, "")
	Missing(&fakeT{name: "TestA"}, "no X")
	assert.Equal(t, "--- internal/testskip: 1 test skipped: no X (TestA)", Summary())
}
