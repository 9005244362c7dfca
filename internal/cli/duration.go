package cli

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseSeconds reads a duration given as plain seconds ("1800", "0.5"), as
// $TIMEOUT and most shell tools give it, or as a Go duration ("30m").
func ParseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.Abs(f) >= 1e9 {
			return 0, errors.New("out of range")
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errors.New("want seconds (1800) or a duration (30m, 1h30m)")
	}
	return d, nil
}

// DurationValue is a duration flag that takes plain seconds too.
type DurationValue time.Duration

func (d *DurationValue) Set(s string) error {
	v, err := ParseSeconds(s)
	if err != nil {
		return err
	}
	*d = DurationValue(v)
	return nil
}

func (d *DurationValue) String() string {
	if *d == 0 {
		return "0" // pflag shows no "(default …)" for it
	}
	return time.Duration(*d).String()
}

func (d *DurationValue) Type() string { return "duration" }
