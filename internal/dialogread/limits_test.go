package dialogread_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
)

// bigDialog is init, n messages of size bytes each, a call whose result
// comes last, and complete.
func bigDialog(n, size int) string {
	var b strings.Builder
	b.WriteString(`{"seq":0,"ts":"2026-01-01T00:00:00Z","type":"init","data":{"task":"t","cwd":"/","model":"m","agent":"a"}}` + "\n")
	b.WriteString(`{"seq":1,"ts":"2026-01-01T00:00:00Z","type":"tool","tool_id":"a","name":"Bash","status":"running","args":{"command":"ls"}}` + "\n")
	for i := range n {
		fmt.Fprintf(&b, `{"seq":%d,"ts":"2026-01-01T00:00:01Z","type":"message","role":"assistant","content":"%s"}`+"\n", i+2, strings.Repeat("x", size))
	}
	fmt.Fprintf(&b, `{"seq":%d,"ts":"2026-01-01T00:00:02Z","type":"tool","tool_id":"a","name":"Bash","status":"error","error":"%s"}`+"\n", n+2, strings.Repeat("e", 10_000))
	fmt.Fprintf(&b, `{"seq":%d,"ts":"2026-01-01T00:00:03Z","type":"complete","status":"error","turns":1,"duration_ms":3,"total_tokens":{"in":1,"out":1}}`+"\n", n+3)
	return b.String()
}

// Past MaxBytes the dialog shown is a prefix; what is left out is counted;
// the ending and a kept call's result (cut) are still there, so that the
// summary and the call's status are true.
func TestReadLimitedKeepsAPrefix(t *testing.T) {
	in := bigDialog(100, 1000)
	d, err := dialogread.ReadLimited(strings.NewReader(in), nil, dialogread.Limits{MaxBytes: 20_000})
	require.NoError(t, err)
	kept := len(d.Nodes) - 3 // init, the call and complete aside
	require.Less(t, kept, 20)
	require.Greater(t, kept, 10)
	assert.Equal(t, 100-kept, d.LeftOut.Entries)
	assert.Equal(t, kept+3, d.LeftOut.FirstLine, "lines: init, the call, the messages kept, then the first left out")
	assert.Equal(t, 1, d.LeftOut.CutResults)
	assert.Equal(t, 0, d.LeftOut.LongLines)
	call := d.Nodes[1]
	assert.Equal(t, "error", call.Status(), "the call's result was merged")
	assert.Less(t, len(call.Result.Error), 3000)
	assert.Contains(t, call.Result.Error, "[cut: 10000 bytes in all")
	require.NotNil(t, d.Complete)
	s := d.Summary()
	assert.Equal(t, "error", s.Status)
	assert.Equal(t, 1, s.Errors)
	assert.Equal(t, 104, s.Entries, "every entry read is counted")

	whole, err := dialogread.ReadLimited(strings.NewReader(in), nil, dialogread.Limits{MaxBytes: int64(len(in))})
	require.NoError(t, err)
	assert.False(t, whole.LeftOut.Any(), "a dialog within the cap is whole")
	assert.Len(t, whole.Nodes, 103)
}

// A line over MaxLine is read without being kept, and counted.
func TestReadLimitedSkipsLongLines(t *testing.T) {
	in := bigDialog(3, 200_000) // longer than the 64 KiB read buffer
	d, err := dialogread.ReadLimited(strings.NewReader(in), nil, dialogread.Limits{MaxLine: 100_000})
	require.NoError(t, err)
	assert.Equal(t, 3, d.LeftOut.LongLines)
	assert.Greater(t, d.LeftOut.LongBytes, int64(600_000))
	assert.Len(t, d.Nodes, 3, "init, the call, complete")
	assert.Equal(t, "error", d.Nodes[1].Status())

	all, err := dialogread.Read(strings.NewReader(in), nil)
	require.NoError(t, err)
	assert.Len(t, all.Nodes, 6)
	assert.Len(t, all.Nodes[2].Entry.Content, 200_000)
}

func TestBanner(t *testing.T) {
	l := dialogread.LeftOut{Entries: 5, Bytes: 3 << 20, FirstLine: 90, LongLines: 1, LongBytes: 1 << 30, CutResults: 2,
		Limits: dialogread.Limits{MaxBytes: 32 << 20, MaxLine: 32 << 20}}
	assert.Equal(t, "incomplete view: 5 entries (3 MiB) from line 90 on are left out, past the cap of 32 MiB; "+
		"text cut to 2 KiB: 2 tool results after the cap, merged into their calls; not read: 1 line over 32 MiB (1 GiB in all)", l.Banner())
	assert.Equal(t, "", dialogread.LeftOut{}.Banner())
	assert.Equal(t, "1.5 KiB", dialogread.FormatSize(1536))
	assert.Equal(t, "100 B", dialogread.FormatSize(100))
}
