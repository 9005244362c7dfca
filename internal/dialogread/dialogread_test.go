package dialogread_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	_ "github.com/ssebench/sse-dialog-convert/internal/golden" // accepts -update
)

func seqsOf(ns []*dialogread.Node) [][]int64 {
	var out [][]int64
	for _, n := range ns {
		out = append(out, n.Seqs())
	}
	return out
}

// TestMergeAndNest reads the subagent fixture: seq 2 starts Agent, 3 its
// Grep (parent_tool_id), 4 a main Bash, 5 Grep's result, 6 Bash's result,
// 7 the subagent's message, 8 Agent's result.
func TestMergeAndNest(t *testing.T) {
	d := adaptertest.ReadDialog(t, "../../testdata/claude/subagent-agent.out.jsonl", nil)
	require.Equal(t, 11, d.Count)
	require.Equal(t, [][]int64{{0}, {1}, {2, 8}, {4, 6}, {9}, {10}}, seqsOf(d.Nodes))
	agent := d.Nodes[2]
	require.Equal(t, "Agent", agent.Entry.Name)
	require.Equal(t, [][]int64{{3, 5}, {7}}, seqsOf(agent.Children))
	require.Equal(t, 1, agent.Children[0].Depth)
	require.Equal(t, agent, agent.Children[1].Parent)
	require.Equal(t, 5300*time.Millisecond, agent.Duration())
	require.Equal(t, "success", agent.Status())

	s := d.Summary()
	require.Equal(t, "success", s.Status)
	require.EqualValues(t, 3, s.Turns)
	require.Equal(t, 8*time.Second, s.Duration)
	require.EqualValues(t, 70412, s.Tokens.In)
	require.EqualValues(t, 57000, s.Tokens.CacheRead)
	require.InDelta(t, 0.09, *s.CostUSD, 1e-9)
	require.Equal(t, 3, s.Tools)
	require.Zero(t, s.Errors)
}

// TestResultWithoutCall: a result whose call is missing is a block of its
// own; a call without a result stays running.
func TestResultWithoutCall(t *testing.T) {
	in := `{"seq":0,"ts":"2026-01-01T00:00:00Z","type":"init","data":{"task":"","cwd":"","model":"m","agent":"a"}}
{"seq":1,"ts":"2026-01-01T00:00:01Z","type":"tool","tool_id":"x","name":"Bash","status":"error","error":"boom"}
{"seq":2,"ts":"2026-01-01T00:00:02Z","type":"tool","tool_id":"y","name":"Read","status":"running","args":{"file_path":"/a"}}
not json
{"seq":3,"ts":"2026-01-01T00:00:03Z","type":"message","role":"assistant","content":["not","a","string"]}
`
	d, err := dialogread.Read(strings.NewReader(in), nil)
	require.NoError(t, err)
	require.Equal(t, 1, d.Skipped)
	require.Equal(t, [][]int64{{0}, {1}, {2}, {3}}, seqsOf(d.Nodes))
	require.Equal(t, "error", d.Nodes[1].Status())
	require.Nil(t, d.Nodes[2].Result)
	require.Equal(t, "running", d.Nodes[2].Status())
	require.Equal(t, `["not","a","string"]`, d.Nodes[3].Entry.Content, "shown as JSON")
	s := d.Summary()
	require.Equal(t, "running", s.Status, "no complete entry yet")
	require.Equal(t, 1, s.Errors)
	require.Equal(t, 3*time.Second, s.Duration)
}

func TestRedactor(t *testing.T) {
	red, err := dialogread.NewRedactor([]string{`sk-[a-z0-9]+`, `/home/\w+`})
	require.NoError(t, err)
	in := `{"seq":0,"ts":"2026-01-01T00:00:00Z","type":"init","data":{"task":"t","cwd":"/home/ada/app","model":"m","agent":"a"}}
{"seq":1,"ts":"2026-01-01T00:00:01Z","type":"tool","tool_id":"x","name":"Bash","status":"running","args":{"command":"curl -H 'Authorization: sk-abc123'","sk-key1":["/home/ada/x", 3]}}
{"seq":2,"ts":"2026-01-01T00:00:02Z","type":"tool","tool_id":"x","name":"Bash","status":"success","result":"token sk-zz9 ok"}
`
	d, err := dialogread.Read(strings.NewReader(in), red)
	require.NoError(t, err)
	require.Equal(t, "[REDACTED]/app", d.Init.Init.CWD)
	tool := d.Nodes[1]
	require.JSONEq(t, `{"command":"curl -H 'Authorization: [REDACTED]'","[REDACTED]":["[REDACTED]/x",3]}`, string(tool.Entry.Args))
	require.Equal(t, "token [REDACTED] ok", tool.Result.Result)

	_, err = dialogread.NewRedactor([]string{"("})
	require.Error(t, err)
	none, err := dialogread.NewRedactor(nil)
	require.NoError(t, err)
	require.Equal(t, "sk-1", none.String("sk-1"))
}

func TestIsDialog(t *testing.T) {
	for line, want := range map[string]bool{
		`{"seq":0,"ts":"x","type":"init","data":{}}`: true,
		"\ufeff{\"type\":\"init\",\"seq\":0}\r\n":    true,
		`{"seq":1,"type":"init"}`:                    false,
		`{"seq":0.0,"type":"init"}`:                  false,
		`{"type":"system","subtype":"init","seq":0}`: false,
		`{"type":"thread.started","thread_id":"t"}`:  false,
		`not json`: false,
		``:         false,
	} {
		require.Equal(t, want, dialogread.IsDialog([]byte(line)), line)
	}
}

func TestArgsSummary(t *testing.T) {
	for args, want := range map[string]string{
		`{"command":"go build\n./..."}`:                                          "go build ./...",
		`{"pattern":"TODO","path":"src"}`:                                        "TODO in src",
		`{"file_path":"/a.go","old_string":"x","new_string":"y"}`:                "/a.go",
		`{"changes":[{"path":"/a","kind":"add"},{"path":"/b","kind":"delete"}]}`: "add /a, delete /b",
		`{"command":["bash","-lc","ls"]}`:                                        "bash -lc ls",
		`{"b":2,"a":"x"}`:                                                        "a=x, b=2",
		``:                                                                       "",
	} {
		require.Equal(t, want, dialogread.ArgsSummary([]byte(args)), args)
	}
}

func TestFormat(t *testing.T) {
	require.Equal(t, "850ms", dialogread.FormatDuration(850*time.Millisecond))
	require.Equal(t, "12.3s", dialogread.FormatDuration(12300*time.Millisecond))
	require.Equal(t, "4m05s", dialogread.FormatDuration(245*time.Second))
	require.Equal(t, "1h02m", dialogread.FormatDuration(62*time.Minute))
	require.Equal(t, "950", dialogread.FormatCount(950))
	require.Equal(t, "12.3k", dialogread.FormatCount(12300))
	require.Equal(t, "4.56M", dialogread.FormatCount(4560000))
}
