package convert

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

func TestParseClock(t *testing.T) {
	c, err := ParseClock("")
	require.NoError(t, err)
	assert.Equal(t, dialog.SystemClock{}, c)
	c, err = ParseClock("86400")
	require.NoError(t, err)
	assert.Equal(t, dialog.FixedClock(time.Date(1970, 1, 2, 0, 0, 0, 0, time.UTC)), c)
	c, err = ParseClock("2026-01-02T03:04:05+01:00")
	require.NoError(t, err)
	assert.Equal(t, dialog.FixedClock(time.Date(2026, 1, 2, 2, 4, 5, 0, time.UTC)), c)
	for _, bad := range []string{"-1", "253402300800", "yesterday", "10000-01-01T00:00:00Z"} {
		_, err := ParseClock(bad)
		assert.Error(t, err, bad)
	}
	_, err = EnvClock("soon")
	assert.EqualError(t, err, `SOURCE_DATE_EPOCH="soon": want Unix seconds or an RFC 3339 time (2026-01-02T03:04:05Z); set it to Unix seconds (SOURCE_DATE_EPOCH=0), or unset it`)
}
