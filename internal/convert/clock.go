package convert

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// EnvClock is the clock SOURCE_DATE_EPOCH pins (s, its value), else the
// wall clock. A value it cannot read is a failure (exit 1), not a usage
// error: the command line is right, its environment is not.
func EnvClock(s string) (dialog.Clock, error) {
	clock, err := ParseClock(s)
	if err != nil {
		return nil, fmt.Errorf("SOURCE_DATE_EPOCH=%q: %v; set it to Unix seconds (SOURCE_DATE_EPOCH=0), or unset it", s, err)
	}
	return clock, nil
}

// ParseClock reads a pinned time: Unix seconds (as SOURCE_DATE_EPOCH) or
// RFC 3339. Empty means the wall clock.
func ParseClock(s string) (dialog.Clock, error) {
	if s == "" {
		return dialog.SystemClock{}, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		t := time.Unix(n, 0).UTC()
		if t.Year() < 1970 || t.Year() > 9999 {
			return nil, errors.New("out of range (years 1970 to 9999)")
		}
		return dialog.FixedClock(t), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.Year() > 9999 {
		return nil, errors.New("want Unix seconds or an RFC 3339 time (2026-01-02T03:04:05Z)")
	}
	return dialog.FixedClock(t.UTC()), nil
}
