package cli

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// SizeWanted is what a size flag says of a value it cannot read.
const SizeWanted = "want a size in bytes, such as 16384, 16k or 2M"

// sizeUnit splits a size into its number and the bytes its suffix stands
// for: k, M, G are KiB, MiB, GiB, as the defaults (16 KiB, 30 MiB,
// 256 MiB) are; case and a trailing B or iB do not matter.
func sizeUnit(s string) (num string, unit int64) {
	lower := strings.ToLower(s)
	lower = strings.TrimSuffix(strings.TrimSuffix(lower, "b"), "i")
	if len(lower) == 0 {
		return s, 1
	}
	shift, ok := map[byte]int{'k': 10, 'm': 20, 'g': 30}[lower[len(lower)-1]]
	if !ok {
		return s, 1
	}
	return strings.TrimSpace(s[:len(lower)-1]), 1 << shift
}

// ParseSize reads a size: a whole number of bytes, or one followed by k,
// M or G. Negative numbers pass (-1 means no cap where a flag says so).
func ParseSize(s string) (int64, error) {
	num, unit := sizeUnit(strings.TrimSpace(s))
	n, err := strconv.ParseInt(num, 10, 64)
	var ne *strconv.NumError
	switch {
	case errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange), n > math.MaxInt64/unit, n < math.MinInt64/unit:
		return 0, errors.New("out of range")
	case err != nil:
		return 0, errors.New(SizeWanted)
	}
	return n * unit, nil
}

// SizeValue is a size flag (ParseSize) of an int or int64 option.
type SizeValue[T ~int | ~int64] struct{ P *T }

func (v SizeValue[T]) Set(s string) error {
	n, err := ParseSize(s)
	if err != nil {
		return err
	}
	if int64(T(n)) != n {
		return errors.New("out of range")
	}
	*v.P = T(n)
	return nil
}

func (v SizeValue[T]) String() string {
	if v.P == nil {
		return "0"
	}
	return strconv.FormatInt(int64(*v.P), 10)
}

func (v SizeValue[T]) Type() string { return "size" }
