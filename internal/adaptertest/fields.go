package adaptertest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fields are the fields of a dialog entry that tests read, decoded into
// one struct (Decode[Fields]); a field the entry lacks is its zero value,
// a pointer nil where "absent" and "empty" differ.
type Fields struct {
	TS      string          `json:"ts"`
	Type    string          `json:"type"`
	Content string          `json:"content"`
	ToolID  string          `json:"tool_id"`
	Parent  string          `json:"parent_tool_id"`
	Name    string          `json:"name"`
	Status  string          `json:"status"`
	Result  *string         `json:"result"`
	Error   *string         `json:"error"`
	Args    json.RawMessage `json:"args"`
	Data    struct {
		Model string `json:"model"`
		Agent string `json:"agent"`
		Clock string `json:"clock"`
		CWD   string `json:"cwd"`
	} `json:"data"`
	Turns       int      `json:"turns"`
	DurationMS  int64    `json:"duration_ms"`
	TotalTokens Tokens   `json:"total_tokens"` // Tokens, as in tokens.go
	Message     string   `json:"message"`
	Reason      string   `json:"reason"`
	Warnings    int      `json:"warnings"`
	CostUSD     *float64 `json:"cost_usd"`
	Reward      *float64 `json:"reward"`
}

// OfType returns the entries of one type.
func OfType(es []Fields, typ string) []Fields {
	var out []Fields
	for _, e := range es {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// TypesOf lists the entries' types, space-separated.
func TypesOf(es []Fields) string {
	ts := make([]string, len(es))
	for i, e := range es {
		ts[i] = e.Type
	}
	return strings.Join(ts, " ")
}

// CheckInit checks that the dialog starts with an init entry of the agent
// and model given.
func CheckInit(t testing.TB, es []Fields, agent, model string) {
	t.Helper()
	require.NotEmpty(t, es)
	assert.Equal(t, model, es[0].Data.Model, "init's model")
	assert.Equal(t, agent, es[0].Data.Agent, "init's agent")
}

// CheckPrompt checks that the entry after init is the prompt given.
func CheckPrompt(t testing.TB, es []Fields, prompt string) {
	t.Helper()
	require.Greater(t, len(es), 1)
	assert.Equal(t, "prompt", es[1].Type)
	assert.Equal(t, prompt, es[1].Content)
}

// Ending is what an independent reading of a source says the dialog's
// complete entry holds.
type Ending struct {
	Status, Message string
	Turns           int
	DurationMS      int64
	Tokens          Tokens
}

// CheckComplete requires the last entry to be the complete entry, checks it
// against want, and returns it for a format's further checks.
func CheckComplete(t testing.TB, want Ending, es []Fields) Fields {
	t.Helper()
	require.NotEmpty(t, es)
	c := es[len(es)-1]
	require.Equal(t, "complete", c.Type)
	assert.Equal(t, want.Status, c.Status, "status")
	assert.Equal(t, want.Message, c.Message, "message")
	assert.Equal(t, want.Turns, c.Turns, "turns")
	assert.Equal(t, want.DurationMS, c.DurationMS, "duration_ms")
	assert.Equal(t, want.Tokens, c.TotalTokens, "total_tokens")
	return c
}
