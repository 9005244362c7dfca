package view

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
)

// TestDrawerEndItemsCountInHold: results of calls drawn early wait in the queue behind a held call,
// uncounted by the hold: what the Drawer holds grows with them.
func TestDrawerEndItemsCountInHold(t *testing.T) {
	var b strings.Builder
	seq := 0
	add := func(format string, a ...any) {
		fmt.Fprintf(&b, `{"seq":%d,"ts":"2026-05-12T09:00:00Z",`+format+"}\n", append([]any{seq}, a...)...)
		seq++
	}
	add(`"type":"init","data":{"task":"t","cwd":"/w","model":"m","agent":"a"}`)
	for i := range 30 {
		add(`"type":"tool","tool_id":"c%d","name":"Bash","status":"running","args":{"command":"x"}`, i)
	}
	big := strings.Repeat("x", 100<<10)
	hold := Hold{Bytes: 1 << 20, Entries: 4}
	d := NewDrawer(io.Discard, Options{Width: 80}, hold)
	maxQueued := int64(0)
	require.NoError(t, dialogread.EachLine(strings.NewReader(b.String()), func(line []byte) error {
		e, err := dialogread.ParseLine(line, nil)
		require.NoError(t, err)
		return d.Add(e, len(line))
	}))
	for i := range 20 { // the results of c0..c19, drawn early as running
		e, err := dialogread.ParseLine([]byte(fmt.Sprintf(`{"seq":%d,"type":"tool","tool_id":"c%d","name":"Bash","status":"success","result":%q}`, 100+i, i, big)), nil)
		require.NoError(t, err)
		require.NoError(t, d.Add(e, len(big)+100))
		var queued int64
		for _, it := range d.queue {
			if it.n.Result != nil {
				queued += int64(len(it.n.Result.Result))
			}
		}
		maxQueued = max(maxQueued, queued)
	}
	assert.LessOrEqual(t, maxQueued, hold.Bytes, "result text waiting in the queue")
}
