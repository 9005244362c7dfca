package dialogcheck

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// isoUTCRe is the protocol's timestamp rule as a regexp: isISOUTC must
// agree with it on every string.
var isoUTCRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|\+00:00)$`)

func TestISOUTC(t *testing.T) {
	for _, s := range []string{
		"2026-01-02T03:04:05Z", "2026-01-02T03:04:05.1Z", "2026-01-02T03:04:05.123456789Z",
		"2026-01-02T03:04:05.1234567890Z", "2026-01-02T03:04:05.Z", "2026-01-02T03:04:05+00:00",
		"2026-01-02T03:04:05.5+00:00", "2026-01-02T03:04:05+01:00", "2026-01-02 03:04:05Z",
		"2026-01-02T03:04:05", "2026-01-02T03:04:05Zx", "2026-01-02T03:04:05Z\n", "x2026-01-02T03:04:05Z",
		"2026-1-02T03:04:05Z", "2026-01-02t03:04:05Z", "２026-01-02T03:04:05Z", "", "Z", "0000-00-00T00:00:00Z",
	} {
		require.Equal(t, isoUTCRe.MatchString(s), isISOUTC(s), "%q", s)
	}
}

func FuzzISOUTC(f *testing.F) {
	f.Add("2026-01-02T03:04:05.123Z")
	f.Add("2026-01-02T03:04:05+00:00")
	f.Fuzz(func(t *testing.T, s string) {
		if isoUTCRe.MatchString(s) != isISOUTC(s) {
			t.Fatalf("%q: regexp %v, isISOUTC %v", s, isoUTCRe.MatchString(s), isISOUTC(s))
		}
	})
}
