package claude

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// The user's turn of a slash command is what was typed: the name tag and
// the args tag's text, whatever the tags' order and spacing (1.0.x writes
// the message tag first, 2.x the name tag first, indented).
func TestSlashCommand(t *testing.T) {
	for _, tt := range []struct{ text, typed string }{
		{"<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>", "/init"},
		{"<command-message>orchestrator is running…</command-message>\n<command-name>/orchestrator</command-name>\n<command-args>@CLAUDE.md update it</command-args>", "/orchestrator @CLAUDE.md update it"},
		{"<command-name>/clear</command-name>\n            <command-message>clear</command-message>\n            <command-args></command-args>", "/clear"},
		{"<command-message>bmad:bmm:workflows:create-tech-spec</command-message>\n<command-name>/bmad:bmm:workflows:create-tech-spec</command-name>", "/bmad:bmm:workflows:create-tech-spec"},
		{"<command-name>/echo-probe</command-name><command-args>hello <there> & co</command-args>", "/echo-probe hello <there> & co"},
		{"<command-name>review</command-name><command-args>  PR 12\n</command-args>", "/review PR 12"},
	} {
		typed, ok := SlashCommand(tt.text)
		assert.True(t, ok, tt.text)
		assert.Equal(t, tt.typed, typed)
	}
	for _, text := range []string{
		"<command-message>init is analyzing your codebase…</command-message>", // no name
		"<command-name></command-name>",
		"<command-name>/init", // not closed
		"please run /init",
	} {
		_, ok := SlashCommand(text)
		assert.False(t, ok, text)
	}
}

func TestIsLocalCommandOutput(t *testing.T) {
	assert.True(t, IsLocalCommandOutput("<local-command-stdout></local-command-stdout>"))
	assert.True(t, IsLocalCommandOutput("\n <local-command-stderr>Shell command permission check failed</local-command-stderr>"))
	assert.False(t, IsLocalCommandOutput("<local-command-caveat>Caveat: …</local-command-caveat>"))
	assert.False(t, IsLocalCommandOutput("the <local-command-stdout> tag"))
}

// UserText is what both Claude formats read to tell what a user message
// is: a string content, else the first text block's text (an image or a
// tool result before it aside), else the content as it is.
func TestUserText(t *testing.T) {
	for _, tt := range []struct{ content, want string }{
		{`"<command-name>/init</command-name>"`, `"<command-name>/init</command-name>"`},
		{`[{"type":"image","source":{}},{"type":"text","text":"first"},{"type":"text","text":"second"}]`, `"first"`},
		{`[{"type":"tool_result","tool_use_id":"t","content":"x"}]`, `[{"type":"tool_result","tool_use_id":"t","content":"x"}]`},
		{`[]`, `[]`},
		{`{"a":1}`, `{"a":1}`},
	} {
		v, ok := jsonraw.Parse([]byte(tt.content))
		require.True(t, ok)
		assert.Equal(t, tt.want, string(UserText(v).Bytes()), tt.content)
	}
}
