package codex

import (
	"math"
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Values of the wrong JSON type never become a success: an exit code is a
// success only as the integer 0, a status only as "completed" (or none),
// an error flag only as false (or none), a success flag only as true (or
// none).
func TestWrongTypes(t *testing.T) {
	command := func(exit, status string) string {
		return `{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"out","exit_code":` + exit + `,"status":` + status + `}`
	}
	for _, tt := range []struct {
		name, item   string
		status, text string
	}{
		{"exit 0", command("0", `"completed"`), "success", "out"},
		{"exit -0", command("-0", `"completed"`), "success", "out"},
		{"exit 0, status null", command("0", `null`), "success", "out"},
		{"fractional exit code", command("0.5", `"completed"`), "error", "[exit code 0.5]\nout"},
		{"exit 0.0 is no integer", command("0.0", `"completed"`), "error", "[exit code 0.0]\nout"},
		{"exit 0e0 is no integer", command("0e0", `"completed"`), "error", "[exit code 0e0]\nout"},
		{"exit code a string", command(`"0"`, `"completed"`), "error", "[exit code \"0\"]\nout"},
		{"exit code false", command(`false`, `"completed"`), "error", "[exit code false]\nout"},
		{"exit code past int64", command(`99999999999999999999`, `"completed"`), "error", "[exit code 99999999999999999999]\nout"},
		{"exit 0, status a number", command("0", `5`), "error", "[status 5]\nout"},
		{"exit 0, status unknown", command("0", `"weird"`), "error", "[status weird]\nout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := adaptertest.Lines(t, Format(), thread(), turn(), itemLine("completed", tt.item), completed(`{}`))
			require.Len(t, d.Results(), 1)
			assert.Equal(t, tt.status, d.Results()[0].Str("status"))
			assert.Equal(t, tt.text, d.Results()[0].Text())
		})
	}

	// The same rule in the legacy events.
	legacyExit := func(exit string) adaptertest.Dialog {
		return adaptertest.Lines(t, Format(), `{"id":"0","msg":{"type":"exec_command_begin","call_id":"c","command":["ls"],"cwd":"/w"}}`,
			`{"id":"0","msg":{"type":"exec_command_end","call_id":"c","stdout":"o","stderr":"","exit_code":`+exit+`}}`)
	}
	assert.Equal(t, "success", legacyExit("0").Results()[0].Str("status"))
	assert.Equal(t, "[exit code 0.25]\no", legacyExit("0.25").Results()[0].Text())

	mcp := func(isError string) string {
		return itemLine("completed", `{"id":"item_0","type":"mcp_tool_call","server":"s","tool":"t","arguments":{},"result":{"content":[{"type":"text","text":"x"}],"isError":`+isError+`},"error":null,"status":"completed"}`)
	}
	for flag, status := range map[string]string{`"true"`: "error", `"false"`: "error", `1`: "error", `true`: "error", `false`: "success", `null`: "success"} {
		assert.Equal(t, status, adaptertest.Lines(t, Format(), mcp(flag)).Results()[0].Str("status"), "isError %s", flag)
	}
	patch := func(success string) string {
		return adaptertest.Lines(t, Format(),
			`{"id":"1","msg":{"type":"patch_apply_begin","call_id":"p","changes":{"/a":{"add":{"content":"x"}}}}}`,
			`{"id":"1","msg":{"type":"patch_apply_end","call_id":"p","stdout":"","stderr":"","success":`+success+`}}`).Results()[0].Str(

			"status")

	}
	for flag, status := range map[string]string{`"true"`: "error", `1`: "error", `false`: "error", `true`: "success", `null`: "success"} {
		assert.Equal(t, status, patch(flag), "success %s", flag)
	}
	fileChange := func(status string) string {
		return adaptertest.Lines(t, Format(), itemLine("completed", `{"id":"item_0","type":"file_change","changes":[{"path":"/a","kind":"add"}],"status":`+status+`}`)).Results()[0].Str("status")
	}
	assert.Equal(t, "success", fileChange(`"completed"`))
	assert.Equal(t, "error", fileChange(`7`), "a status of the wrong type")
}

// Usage totals saturate at the largest int64, within and across processes.
func TestUsageSaturates(t *testing.T) {
	const big = `5000000000000000000`
	usage := `{"input_tokens":` + big + `,"cached_input_tokens":` + big + `,"output_tokens":` + big + `}`
	d := adaptertest.Lines(t, Format(), thread(), turn(), completed(usage), thread(), turn(), completed(usage))
	top := float64(math.MaxInt64) // as JSON decodes it: a wrapped sum would be negative
	assert.Equal(t, map[string]any{"in": top, "out": top, "cache_read": top}, d.Complete["total_tokens"])
}
