package main

import (
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/cli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "-1": -1, "16384": 16384, "16k": 16 << 10, "16K": 16 << 10, "16KiB": 16 << 10, "16kb": 16 << 10,
		"2M": 2 << 20, "2MiB": 2 << 20, "1G": 1 << 30, " 3m ": 3 << 20} {
		got, err := cli.ParseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "k", "abc", "1.5M", "16x", "M16", "9223372036854775808", "8589934592G"} {
		_, err := cli.ParseSize(in)
		assert.Error(t, err, in)
	}
	var small int
	assert.Error(t, cli.SizeValue[int]{P: &small}.Set("16k\x00"), "not a size")
}
