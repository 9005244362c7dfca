package command

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEnvTimeout(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{in: "", want: 0},
		{in: "0", want: 0},
		{in: "1800", want: 30 * time.Minute},
		{in: " 2.5 ", want: 2500 * time.Millisecond},
		{in: "30m", want: 30 * time.Minute},
		{in: "-5", bad: true},
		{in: "soon", bad: true},
		{in: "1e300", bad: true},
	}
	for _, tt := range tests {
		got, err := EnvTimeout(tt.in)
		if tt.bad {
			assert.Error(t, err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}
