// An external test: the kit's Value, which the package's own tests cannot
// import (the kit imports adapter).
package adapter_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

func TestTime(t *testing.T) {
	tests := []struct {
		in   string
		want string // RFC 3339 in UTC, "" when not a time
	}{
		{`"2026-01-02T03:04:05.678Z"`, "2026-01-02T03:04:05.678Z"},
		{`"2026-01-02T03:04:05Z"`, "2026-01-02T03:04:05Z"},
		{`"2026-01-02T03:04:05.123456789Z"`, "2026-01-02T03:04:05.123456789Z"},
		{`"2026-01-02T05:04:05.5+02:00"`, "2026-01-02T03:04:05.5Z"},
		{`"2026-02-30T03:04:05Z"`, ""},
		{`"2026-01-02 03:04:05Z"`, ""},
		{`"2026-01-02T03:04:05.Z"`, ""},
		{`"yesterday"`, ""},
		{`1767323045678`, "2026-01-02T03:04:05.678Z"},
		{`253402300800000`, ""}, // year 10000
		{`-1`, ""},
		{`1.5`, ""},
		{`null`, ""},
	}
	for _, tt := range tests {
		got, ok := adapter.Time(adaptertest.Value(t, tt.in))
		if tt.want == "" {
			assert.False(t, ok, tt.in)
			continue
		}
		if assert.True(t, ok, tt.in) {
			assert.Equal(t, tt.want, got.UTC().Format(time.RFC3339Nano), tt.in)
		}
	}
}

func TestTimeAllocatesNothing(t *testing.T) {
	v := adaptertest.Value(t, `"2026-01-02T03:04:05.678Z"`)
	assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = adapter.Time(v) }))
}

// A flag of another JSON type is an error, and the note says so, with the
// value as the input wrote it; a boolean or null needs no note.
func TestFlagNote(t *testing.T) {
	for _, raw := range []string{`true`, `false`, `null`} {
		assert.Empty(t, adapter.FlagNote(adaptertest.Value(t, raw), "is_error"), raw)
	}
	assert.Empty(t, adapter.FlagNote(jsonraw.Value{}, "is_error"), "absent")
	assert.Equal(t, `is_error is "false", not a JSON boolean: read as an error`, adapter.FlagNote(adaptertest.Value(t, `"false"`), "is_error"))
	assert.Equal(t, `is_error is 0, not a JSON boolean: read as an error`, adapter.FlagNote(adaptertest.Value(t, `0`), "is_error"))
	long := adapter.FlagNote(adaptertest.Value(t, `"`+strings.Repeat("x", 100)+`"`), "is_error")
	assert.Contains(t, long, `"xxxx`)
	assert.Less(t, len(long), 100, "the value is cut")
}
