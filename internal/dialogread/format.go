package dialogread

import (
	"fmt"
	"strconv"
	"time"
)

// Unknown is what viewers show for a time or a duration the dialog does
// not know.
const Unknown = "—"

// FormatSummaryDuration is a summary's duration, or Unknown.
func FormatSummaryDuration(s Summary) string {
	if s.DurationUnknown {
		return Unknown
	}
	return FormatDuration(s.Duration)
}

// FormatDuration says a duration the way people read it: 850ms, 12.3s,
// 4m05s, 1h02m.
func FormatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	case d < time.Hour:
		s := int(d.Seconds())
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	m := int(d.Minutes())
	return fmt.Sprintf("%dh%02dm", m/60, m%60)
}

// FormatCount says a token count briefly: 950, 12.3k, 4.56M.
func FormatCount(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 2, 64) + "M"
}

// FormatSize says a byte count in B, KiB, MiB or GiB, with one decimal
// where it is not whole.
func FormatSize(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	if u == 0 || v == float64(int64(v)) {
		return strconv.FormatFloat(v, 'f', 0, 64) + " " + units[u]
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + units[u]
}
