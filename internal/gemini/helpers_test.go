package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/dialog"
	"github.com/ssebench/sse-dialog-convert/internal/dialogcheck"
	"github.com/ssebench/sse-dialog-convert/internal/dispatch"
	_ "github.com/ssebench/sse-dialog-convert/internal/golden" // registers -update
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// entry is one decoded dialog entry.
type entry struct {
	Type    string          `json:"type"`
	Content string          `json:"content"`
	ToolID  string          `json:"tool_id"`
	Name    string          `json:"name"`
	Status  string          `json:"status"`
	Result  *string         `json:"result"`
	Error   *string         `json:"error"`
	Args    json.RawMessage `json:"args"`
	Data    struct {
		Model string `json:"model"`
		Agent string `json:"agent"`
	} `json:"data"`
	Turns       int    `json:"turns"`
	DurationMS  int64  `json:"duration_ms"`
	TotalTokens tokens `json:"total_tokens"`
	Message     string `json:"message"`
	Warnings    int    `json:"warnings"`
}

// tokens is complete.total_tokens.
type tokens struct {
	In        int64 `json:"in"`
	Out       int64 `json:"out"`
	CacheRead int64 `json:"cache_read"`
	Reasoning int64 `json:"reasoning"`
}

// convert runs input through the pipeline with this format, checks the
// dialog against the contract and decodes it; stderr is what the pipeline
// reported.
func convert(t *testing.T, input string) (entries []entry, stderr string) {
	t.Helper()
	var out, diag bytes.Buffer
	c := dispatch.New(&out, dialog.Options{Clock: dialog.FixedClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)), DefaultCWD: "/w", MaxText: -1},
		dispatch.Options{Formats: []adapter.Format{Format()}, Forced: true, Stderr: &diag})
	require.NoError(t, c.Feed(strings.NewReader(input), "input"))
	require.NoError(t, c.Close(nil))
	var findings []string
	_, err := dialogcheck.Validate(bytes.NewReader(out.Bytes()), func(f dialogcheck.Finding) { findings = append(findings, f.String()) })
	require.NoError(t, err)
	require.Empty(t, findings, "the dialog breaks the contract:\n%s", out.String())
	dec := json.NewDecoder(&out)
	for {
		var e entry
		if err := dec.Decode(&e); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		entries = append(entries, e)
	}
	return entries, diag.String()
}

func ofType(es []entry, typ string) []entry {
	var out []entry
	for _, e := range es {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// eventOf is line as the pipeline hands it to the adapter.
func eventOf(t testing.TB, line string) adapter.Event {
	t.Helper()
	v, ok := jsonraw.Parse([]byte(line))
	require.True(t, ok, "not JSON: %s", line)
	return adapter.Event{Value: v}
}
