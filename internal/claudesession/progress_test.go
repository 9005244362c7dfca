package claudesession_test

import (
	"bytes"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/stretchr/testify/assert"
)

// TestAgentProgressOnce: a 2.1.x session file copies every message of its
// subagent into progress lines (agent_progress). Read alone, the file's
// dialog holds the subagent's entries from them (the golden); with the
// subagent's own file in <session>/subagents/, the dialog is the same,
// each entry once, whether the file's uuids are those of the copies or
// not, and whether the file is tied to its call by its .meta.json or by
// the Task result's agentId.
func TestAgentProgressOnce(t *testing.T) {
	session := read(t, testdata("agent-progress-only.in.jsonl"))
	agent := read(t, testdata("agent-progress-only.agent.jsonl"))
	want := string(read(t, testdata("agent-progress-only.out.jsonl")))
	// The subagent's uuids start c0de; the same lines under other uuids.
	otherUUIDs := bytes.ReplaceAll(agent, []byte(`"uuid":"c0de`), []byte(`"uuid":"f0de`))
	otherUUIDs = bytes.ReplaceAll(otherUUIDs, []byte(`"parentUuid":"c0de`), []byte(`"parentUuid":"f0de`))
	assert.NotEqual(t, agent, otherUUIDs)
	// The same lines written after their copies (every time at .999 of
	// its second): the copies come first in the merged stream.
	later := regexp.MustCompile(`("timestamp":"[^"]*\.)\d{3}Z"`).ReplaceAll(otherUUIDs, []byte(`${1}999Z"`))
	assert.NotEqual(t, otherUUIDs, later)
	meta := []byte(`{"agentType":"reviewer","description":"Review PR 7","toolUseId":"toolu_01TaskRev"}`)

	const stem = "4d8e2f60-1c3b-4a7e-9f05-b6d7c8e9f0a1"
	for _, c := range []struct {
		name  string
		agent []byte // nil: no subagents folder
		meta  []byte
	}{
		{"no subagents folder", nil, nil},
		{"own file, same uuids, meta.json", agent, meta},
		{"own file, other uuids, meta.json", otherUUIDs, meta},
		{"own file, tied by agentId", agent, nil},
		{"own file, other uuids, written after the copies", later, meta},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, stem+".jsonl")
			adaptertest.Put(t, path, session)
			if c.agent != nil {
				adaptertest.Put(t, filepath.Join(dir, stem, "subagents", "agent-a7f3c21.jsonl"), c.agent)
			}
			if c.meta != nil {
				adaptertest.Put(t, filepath.Join(dir, stem, "subagents", "agent-a7f3c21.meta.json"), c.meta)
			}
			got := convert(t, only(t, path))
			if bytes.Equal(c.agent, later) {
				// Its entries take the file's times: compare all but times.
				stamps := regexp.MustCompile(`"ts":"[^"]*",`)
				assert.Equal(t, stamps.ReplaceAllString(want, ""), string(stamps.ReplaceAll(got, nil)))
				return
			}
			assert.Equal(t, want, string(got))
		})
	}
}
