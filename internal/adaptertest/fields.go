package adaptertest

import (
	"encoding/json"
	"strings"
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
