package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/adaptertest"
	"github.com/ssebench/sse-dialog-convert/internal/cli"
)

// corpusDir holds real captures by other people (never copied into the repo).
const corpusDir = "../../../shared/corpus"

// batchRun runs the program with args; a batch prints nothing on stdout.
func batchRun(t *testing.T, args ...string) (int, string) {
	t.Helper()
	r := program{args: args}.run(t)
	assert.Empty(t, r.stdout, "nothing goes to stdout in batch mode")
	return r.code, r.stderr
}

// batchInputs gathers the real captures (when the corpus is there) and our
// fixtures, and adds collisions and gzip copies in dir.
func batchInputs(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	for _, sub := range []string{"claude", "codex"} {
		m, _ := filepath.Glob(filepath.Join(corpusDir, sub, "*.json*"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Logf("no real captures in %s: the batch covers only testdata fixtures", corpusDir)
	}
	fixtures, err := filepath.Glob("../../testdata/*/*.in.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, fixtures)
	files = append(files, fixtures...)
	for i, f := range files { // the program may run in another folder
		abs, err := filepath.Abs(f)
		require.NoError(t, err)
		files[i] = abs
	}
	// runs/*/transcript.jsonl, one of them compressed
	for i := range 3 {
		raw, err := os.ReadFile(fixtures[i%len(fixtures)])
		require.NoError(t, err)
		run := filepath.Join(dir, "runs", "run"+string(rune('a'+i)))
		require.NoError(t, os.MkdirAll(run, 0o755))
		p := filepath.Join(run, "transcript.jsonl")
		if i == 0 {
			raw, p = adaptertest.Gzip(t, raw), p+".gz"
		}
		require.NoError(t, os.WriteFile(p, raw, 0o644))
		files = append(files, p)
	}
	return files
}

// readDialogs returns every file of dir by name; each must be a valid dialog.
func readDialogs(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := make(map[string][]byte)
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		t.Run("valid/"+e.Name(), func(t *testing.T) { requireValid(t, b) })
		out[e.Name()] = b
	}
	return out
}

// TestBatchReproducible converts the same inputs twice with SOURCE_DATE_EPOCH,
// with one job in UTC and with two jobs in a zone far from it, in separate
// processes: every byte of every dialog, and the log, must be the same.
func TestBatchReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the program twice over the corpus")
	}
	tmp := t.TempDir()
	files := batchInputs(t, tmp)
	var outs [2]map[string][]byte
	var logs [2]string
	for i, env := range [][]string{
		{"TZ=UTC", "SOURCE_DATE_EPOCH=1767225600"},
		{"TZ=Asia/Kathmandu", "SOURCE_DATE_EPOCH=1767225600"}, // +05:45: no whole-hour slip hides
	} {
		dir := filepath.Join(tmp, "out"+string(rune('1'+i)))
		args := append([]string{"--out-dir", dir, "--jobs", string(rune('1' + i))}, files...)
		cmd := helperCmd(env, args...)
		cmd.Dir = tmp // the fallback cwd is the process's: pinned here, documented for users
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Run(), "stderr: %s", stderr.String())
		logs[i] = stderr.String()
		outs[i] = readDialogs(t, dir)
		assert.Len(t, outs[i], len(files), "one dialog per input")
	}
	require.Equal(t, slices.Sorted(maps.Keys(outs[0])), slices.Sorted(maps.Keys(outs[1])))
	for name, b := range outs[0] {
		assert.True(t, bytes.Equal(b, outs[1][name]), "%s differs between the runs", name)
	}
	assert.Equal(t, logs[0], logs[1], "the log does not depend on --jobs")
	for _, n := range []string{"runa_transcript.dialog.jsonl", "runb_transcript.dialog.jsonl", "runc_transcript.dialog.jsonl"} {
		_, ok := outs[0][n]
		assert.True(t, ok, "no %s", n)
	}
}

// TestBatchCWDPinned: with --cwd, where the converter runs no longer shows.
func TestBatchCWDPinned(t *testing.T) {
	in, err := filepath.Abs(textOnlyRun)
	require.NoError(t, err)
	codexRun := filepath.Join(t.TempDir(), "codex.jsonl") // current Codex says nothing of its cwd
	require.NoError(t, os.WriteFile(codexRun, []byte(`{"type":"thread.started","thread_id":"t1"}`+"\n"+`{"type":"turn.started"}`+"\n"+`{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}`+"\n"), 0o644))
	var got [2]map[string][]byte
	for i := range got {
		out := filepath.Join(t.TempDir(), "out")
		t.Chdir(t.TempDir()) // a different folder each time
		r := program{args: []string{"--out-dir", out, "--cwd", "/fixture", in, codexRun}, env: map[string]string{"SOURCE_DATE_EPOCH": "1767225600"}}.run(t)
		require.Equal(t, 0, r.code, r.stderr)
		got[i] = readDialogs(t, out)
	}
	assert.Equal(t, got[0], got[1])
	assert.Contains(t, string(got[0]["codex.dialog.jsonl"]), `"cwd":"/fixture"`)
}

func TestBatchGoesOnPastFailures(t *testing.T) {
	tmp := t.TempDir()
	good := textOnlyRun
	missing := filepath.Join(tmp, "missing.jsonl")
	raw := readFile(t, good)
	// A gzip file cut before its trailer: all of the data reads, then an error.
	badGz := filepath.Join(tmp, "broken.jsonl.gz")
	z := adaptertest.Gzip(t, raw)
	require.NoError(t, os.WriteFile(badGz, z[:len(z)-8], 0o644))
	// One cut inside its header gives nothing to convert.
	badHead := filepath.Join(tmp, "head.gz")
	require.NoError(t, os.WriteFile(badHead, z[:5], 0o644))
	blocked := filepath.Join(tmp, "in", "blocked.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(blocked), 0o755))
	require.NoError(t, os.WriteFile(blocked, raw, 0o644))
	out := filepath.Join(tmp, "out")
	// A folder where the dialog should go: that one output cannot be written.
	require.NoError(t, os.MkdirAll(filepath.Join(out, "blocked.dialog.jsonl"), 0o755))

	code, stderr := batchRun(t, "--out-dir", out, "--jobs", "2", "--clock", "1767225600", missing, good, badGz, badHead, blocked)
	assert.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	require.Len(t, lines, 5, stderr)
	// One block per file, in argument order, each naming its file.
	assert.Contains(t, lines[0], missing)
	assert.Contains(t, lines[0], "no such file")
	assert.Equal(t, "sse-dialog-convert: reading "+badGz+": unexpected EOF", lines[1])
	assert.Equal(t, "sse-dialog-convert: reading "+badHead+": unexpected EOF", lines[2])
	assert.Contains(t, lines[3], blocked+": writing the dialog to "+filepath.Join(out, "blocked.dialog.jsonl")+": ")
	assert.NotContains(t, lines[3], ".tmp", "the temporary file means nothing to the user")
	golden, err := os.ReadFile("../../testdata/claude/text-only.out.jsonl")
	require.NoError(t, err)
	entries := bytes.Count(golden, []byte("\n")) // the good file's: the cut copy's dialog is not kept
	assert.Equal(t, fmt.Sprintf("sse-dialog-convert: 5 files: 1 converted, 4 failed; %d entries, 0 input lines skipped", entries), lines[4])

	dialogs := readDialogs(t, out)
	assert.Contains(t, string(dialogs["text-only.in.dialog.jsonl"]), `"status":"success"`)
	// A file that failed leaves no dialog under its final name (issue 27),
	// the cut one neither, though it was read up to the cut.
	assert.Len(t, dialogs, 1, "no dialog for the files that failed")
	for name := range dialogs {
		assert.False(t, strings.HasPrefix(name, "."), "temporary file %s left behind", name)
	}
}

func TestBatchSkippedLinesAndStrict(t *testing.T) {
	tmp := t.TempDir()
	raw := readFile(t, textOnlyRun)
	noisy := filepath.Join(tmp, "noisy.jsonl")
	require.NoError(t, os.WriteFile(noisy, append([]byte("warning: not json\n"), raw...), 0o644))
	out := filepath.Join(tmp, "out")

	code, stderr := batchRun(t, "--out-dir", out, "--clock", "0", noisy)
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, noisy+":1: skipped: not valid JSON")
	assert.Contains(t, stderr, "1 file: 1 converted, 0 failed; ")
	assert.Contains(t, stderr, ", 1 input line skipped")

	code, stderr = batchRun(t, "--out-dir", out, "--clock", "0", "--strict", noisy)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, noisy+": --strict: 1 input line was skipped as broken")
	assert.Contains(t, stderr, "1 file: 0 converted, 1 failed; ")
	readDialogs(t, out) // still written, and valid
}

// A batch whose dialog would land on one of its inputs is refused whole,
// before anything is written: by path, and through a symlinked --out-dir.
func TestBatchRefusesToOverwriteAnInput(t *testing.T) {
	tmp := t.TempDir()
	raw := readFile(t, textOnlyRun)
	runs := filepath.Join(tmp, "runs")
	require.NoError(t, os.Mkdir(runs, 0o755))
	a := filepath.Join(runs, "a")
	b := filepath.Join(runs, "a.dialog.jsonl") // a's dialog would land on it
	require.NoError(t, os.WriteFile(a, raw, 0o644))
	require.NoError(t, os.WriteFile(b, raw, 0o644))
	link := filepath.Join(tmp, "dialogs")
	require.NoError(t, os.Symlink(runs, link))
	for _, outDir := range []string{runs, link} {
		code, stderr := batchRun(t, "--out-dir", outDir, a, b)
		assert.Equal(t, 2, code)
		assert.Equal(t, "sse-dialog-convert: refusing to write the dialog to "+filepath.Join(outDir, "a.dialog.jsonl")+": it is the same file as the input "+b+"\n", stderr)
		kept, err := os.ReadFile(b)
		require.NoError(t, err)
		assert.Equal(t, raw, kept)
		ents, err := os.ReadDir(runs)
		require.NoError(t, err)
		assert.Len(t, ents, 2, "nothing written")
	}
}

func TestGzipInputConvertsAsPlain(t *testing.T) {
	in := textOnlyRun
	raw := readFile(t, in)
	tmp := t.TempDir()
	compressed := adaptertest.Gzip(t, raw)
	for _, p := range []string{"t.jsonl.gz", "renamed.jsonl"} { // found by its bytes, not its name
		require.NoError(t, os.WriteFile(filepath.Join(tmp, p), compressed, 0o644))
	}
	// Two gzip members back to back, as `cat a.gz b.gz` makes: one stream.
	half := bytes.IndexByte(raw, '\n') + 1
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "multi.gz"), append(adaptertest.Gzip(t, raw[:half]), adaptertest.Gzip(t, raw[half:])...), 0o644))

	convert := func(file string) string {
		code, stdout, stderr := runCLI(t, "", "-o", "-", "--clock", "1767225600", file)
		require.Equal(t, 0, code, stderr)
		assert.Empty(t, stderr)
		requireValid(t, []byte(stdout))
		return stdout
	}
	want := convert(in)
	for _, p := range []string{"t.jsonl.gz", "renamed.jsonl", "multi.gz"} {
		assert.Equal(t, want, convert(filepath.Join(tmp, p)), p)
	}
}

// BenchmarkBatch converts 40 copies of the largest capture with one job and
// with two; compare ns/op (see the report for the ratio).
func BenchmarkBatch(b *testing.B) {
	captures, _ := filepath.Glob(filepath.Join(corpusDir, "claude", "*.jsonl"))
	if len(captures) == 0 {
		b.Skipf("no captures in %s", corpusDir)
	}
	var big string
	var size int64
	for _, c := range captures {
		if st, err := os.Stat(c); err == nil && st.Size() > size {
			big, size = c, st.Size()
		}
	}
	raw, err := os.ReadFile(big)
	require.NoError(b, err)
	dir := b.TempDir()
	files := copies(b, dir, raw, 40, func(i int) string {
		return filepath.Join("in", "run"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26)), "transcript.jsonl")
	})
	for _, jobs := range []string{"1", "2"} {
		b.Run("jobs="+jobs, func(b *testing.B) {
			benchBatch(b, filepath.Join(dir, "out"), jobs, size*int64(len(files)), files)
		})
	}
}

// copies writes n copies of data in dir, the i-th at name(i) there, and
// returns their paths.
func copies(tb testing.TB, dir string, data []byte, n int, name func(i int) string) []string {
	tb.Helper()
	files := make([]string, n)
	for i := range files {
		files[i] = filepath.Join(dir, name(i))
		adaptertest.Put(tb, files[i], data)
	}
	return files
}

// benchBatch converts files, size bytes in all, with --out-dir out and
// --jobs jobs, once per round; a round that fails ends the benchmark.
func benchBatch(b *testing.B, out, jobs string, size int64, files []string) {
	b.SetBytes(size)
	b.ReportAllocs()
	args := append([]string{"--out-dir", out, "--jobs", jobs, "--clock", "0"}, files...)
	for b.Loop() {
		var stderr bytes.Buffer
		if code := runProgram(context.Background(), args, cli.NewStreams(strings.NewReader(""), io.Discard, &stderr)); code != 0 {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
}

func TestDirectoryInputIsAnError(t *testing.T) {
	dir := t.TempDir()
	code, stderr := batchRun(t, "--out-dir", filepath.Join(dir, "out"), dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, dir+" is a folder with no session of a format it reads (claude-session, codex-rollout, gemini-session, atif) in it; to convert the transcripts it holds, name them ("+filepath.Join(dir, "*.jsonl")+")")
	ents, err := os.ReadDir(filepath.Join(dir, "out"))
	require.NoError(t, err)
	assert.Empty(t, ents, "no dialog for a folder")
}

// BenchmarkBatchSmall converts 1,000 small transcripts (a fixture of 8.6
// KB each) with one job: the per-file cost of a batch.
func BenchmarkBatchSmall(b *testing.B) {
	raw, err := os.ReadFile("../../testdata/claude/subagent-agent.in.jsonl")
	require.NoError(b, err)
	dir := b.TempDir()
	files := copies(b, dir, raw, 1000, func(i int) string { return filepath.Join("in", strconv.Itoa(i), "transcript.jsonl") })
	benchBatch(b, filepath.Join(dir, "out"), "1", int64(len(raw)*len(files)), files)
}

// TestBatchWorkerConvertsEachFileAsAlone: one job converts its files one
// after another on the same memory (dispatch.Scratch); each dialog, and
// each file's block of the log, must be what a batch of that file alone
// gives. The files differ in format, size (read buffers of other sizes,
// a line over the 1 MiB a worker keeps), compression and brokenness, in
// an order that takes the worker from one to another of each.
func TestBatchWorkerConvertsEachFileAsAlone(t *testing.T) {
	tmp := t.TempDir()
	fixtures, err := filepath.Glob("../../testdata/*/*.in.jsonl")
	require.NoError(t, err)
	var files []string
	add := func(raw []byte) {
		p := filepath.Join(tmp, "in", fmt.Sprintf("t%03d.jsonl", len(files)))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, raw, 0o644))
		files = append(files, p)
	}
	long := []byte(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("x", 1<<20+100) + `"}]}}` + "\n")
	for i, f := range fixtures {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		add(raw)
		switch i % 10 {
		case 3:
			add(bytes.Repeat(raw, 5)) // a read buffer of another size
		case 5:
			add(append(raw[:len(raw):len(raw)], []byte("\x1b[31mnot json\n{\"cut\":")...))
		case 7:
			p := filepath.Join(tmp, "in", fmt.Sprintf("t%03d.jsonl.gz", len(files)))
			require.NoError(t, os.WriteFile(p, adaptertest.Gzip(t, raw), 0o644))
			files = append(files, p)
		case 9:
			add(append(long, raw...))
		}
	}

	all := filepath.Join(tmp, "all")
	_, log := batchRun(t, append([]string{"--out-dir", all, "--jobs", "1", "--clock", "0"}, files...)...)
	got := readDialogs(t, all)
	var blocks strings.Builder
	for _, f := range files {
		one := filepath.Join(tmp, "one", filepath.Base(f))
		_, alone := batchRun(t, "--out-dir", one, "--jobs", "1", "--clock", "0", f)
		for name, want := range readDialogs(t, one) {
			assert.True(t, bytes.Equal(want, got[name]), "%s: the batch's dialog is not the one it makes alone", name)
		}
		blocks.WriteString(alone[:strings.LastIndex(strings.TrimSuffix(alone, "\n"), "\n")+1])
	}
	assert.Len(t, got, len(files))
	assert.Equal(t, blocks.String(), log[:strings.LastIndex(strings.TrimSuffix(log, "\n"), "\n")+1], "each file's block of the log")
}

// TestSourceJobs: a batch asks its FILEs --jobs at a time, but no more than
// there are CPUs (each asker holds a file and a 256 KiB buffer); one
// dialog asks them one by one.
func TestSourceJobs(t *testing.T) {
	cpus := runtime.NumCPU()
	for _, tt := range []struct {
		outDir string
		jobs   int
		want   int
	}{
		{"", 8, 1},
		{"d", 0, cpus},
		{"d", 1, 1},
		{"d", 10000, cpus},
		{"d", 2, min(2, cpus)},
	} {
		o := convertOptions{outDir: tt.outDir, jobs: tt.jobs}
		assert.Equal(t, tt.want, o.sourceJobs(), "--out-dir %q --jobs %d", tt.outDir, tt.jobs)
	}
}
