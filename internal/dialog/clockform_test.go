package dialog

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// clockForm agrees with its definition, written with time's own methods:
// UTC, truncated to the millisecond, held within minTime and maxTime.
func TestClockFormIsUTCMillisecondsInRange(t *testing.T) {
	byDefinition := func(t time.Time) time.Time {
		t = t.UTC().Truncate(time.Millisecond)
		switch {
		case t.Before(minTime):
			return minTime
		case t.After(maxTime):
			return maxTime
		}
		return t
	}
	east := time.FixedZone("east", 5*3600+1800)
	times := []time.Time{
		time.Now(), // with a monotonic reading
		time.Date(2026, 1, 2, 3, 4, 5, 999_999_999, east),
		time.Date(1969, 12, 31, 23, 59, 59, 999_500_000, time.UTC), // before 1970: rounds down, not to zero
		time.Date(-1, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		minTime, minTime.Add(-time.Nanosecond), minTime.Add(time.Nanosecond),
		maxTime, maxTime.Add(time.Millisecond - time.Nanosecond), maxTime.Add(time.Millisecond),
		time.Date(10000, 1, 1, 0, 0, 0, 0, east),                               // 9999-12-31 in UTC
		time.Unix(math.MaxInt64/1000+1, 0), time.Unix(math.MinInt64/1000-1, 0), // past int64 milliseconds
		{},
	}
	for i := range 1000 {
		times = append(times, time.Unix(int64(i)*7919*86400-1<<35, int64(i)*1_000_003))
	}
	for _, tm := range times {
		want, got := byDefinition(tm), clockForm(tm)
		assert.True(t, want.Equal(got), "%v: %v, want %v", tm, got, want)
		assert.Equal(t, want.Format(time.RFC3339Nano), got.Format(time.RFC3339Nano), "%v", tm)
		assert.Equal(t, time.UTC, got.Location(), "%v", tm)
	}
}
