package claudesession

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
	"github.com/ssebench/sse-dialog-convert/internal/sessionfile"
)

// Options configure how a session's files are read.
type Options struct {
	// MaxLine is the longest line held in memory, in both passes
	// (frame.Options.MaxLine: 0 the default, < 0 no limit): --max-line.
	MaxLine int64
}

// Inputs reads a path given as FILE:
//
//   - a session file: one dialog, its subagents' files found beside it
//     (agent-<id>.jsonl of the same session, Claude Code 2.0.x) or in
//     <session>/subagents/ (2.1.x, with agent-<id>.meta.json);
//   - a subagent's file alone (agent-<id>.jsonl): its own conversation;
//   - a session's folder (<session>/, holding subagents/): that session;
//   - any other folder (a project folder, ~/.claude/projects): one dialog
//     per session file in it, at any depth. An entry that cannot be read
//     (a dangling symlink, a FIFO, a file it may not read) is an input
//     whose opening fails: reported, the others convert.
//
// Files may be plain, .zst or .gz. A path holding no session file is not
// this format's (ok false).
func Inputs(path string) (inputs []adapter.Input, ok bool, err error) {
	return inputsOf(path, os.ReadDir)
}

// inputsOf is Inputs reading the sessions' folders with readDir (a test
// counts the reads).
func inputsOf(path string, readDir func(string) ([]os.DirEntry, error)) (inputs []adapter.Input, ok bool, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, false, err
	}
	claims := func(p string) (bool, error) { return sessionfile.Claims(p, Detect) }
	o := &opener{readDir: readDir, folders: make(map[string]*folder)}
	if !st.IsDir() {
		mine, err := claims(path)
		if err != nil || !mine {
			return nil, false, err
		}
		return []adapter.Input{o.file(path)}, true, nil
	}
	// A session's own folder: the session file is beside it.
	if sub, err := os.Stat(filepath.Join(path, "subagents")); err == nil && sub.IsDir() {
		for _, ext := range []string{".jsonl", ".jsonl.zst", ".jsonl.gz"} {
			f := filepath.Clean(path) + ext
			if mine, err := claims(f); err == nil && mine {
				return []adapter.Input{o.session(f)}, true, nil
			}
		}
	}
	entries, err := sessionfile.Find(path, func(dir string) bool { return dir == "subagents" }, func(p string) (bool, error) {
		if isAgentFile(p) {
			return false, nil
		}
		return claims(p)
	})
	if err != nil {
		return nil, false, err
	}
	return sessionfile.Inputs(entries, o.session)
}

// ClaimedInputs is Inputs for a session file (or a subagent's) whose
// first records the caller saw Detect claim: it is not read to ask again.
func ClaimedInputs(path string) ([]adapter.Input, error) {
	o := &opener{readDir: os.ReadDir, folders: make(map[string]*folder)}
	return []adapter.Input{o.file(path)}, nil
}

// file is the input of a file claimed: a session, or a subagent's file
// alone (its own conversation).
func (o *opener) file(path string) adapter.Input {
	if isAgentFile(path) {
		open := func(opt Options) (io.ReadCloser, error) { return openAgentAlone(path) }
		return o.input(path, open)
	}
	return o.session(path)
}

// openAgentAlone opens a subagent's file read alone: its own conversation.
func openAgentAlone(path string) (io.ReadCloser, error) { return sessionfile.Open(path) }

// isAgentFile reports whether a file is a subagent's (agent-<id>.jsonl).
func isAgentFile(path string) bool {
	return strings.HasPrefix(filepath.Base(path), "agent-")
}

// opener opens the sessions one Inputs found. Each folder is read once,
// when its first session is opened, for every session in it: reading it
// per session made a folder of n sessions cost n² (findAgents).
type opener struct {
	readDir func(string) ([]os.DirEntry, error)
	mu      sync.Mutex
	folders map[string]*folder
}

// folder is what findAgents needs of a sessions' folder. One that cannot
// be listed (its files can be opened, not listed) has no subagent files
// found in it, as before.
type folder struct {
	once     sync.Once
	agents   []string        // the subagent files beside the sessions (2.0.x), in lexical order
	sessions int             // the session files in it
	subdirs  map[string]bool // the names of its folders (a 2.1.x session's own)
}

func (o *opener) folder(dir string) *folder {
	o.mu.Lock()
	f, ok := o.folders[dir]
	if !ok {
		f = &folder{}
		o.folders[dir] = f
	}
	o.mu.Unlock()
	f.once.Do(func() {
		entries, _ := o.readDir(dir)
		f.subdirs = make(map[string]bool)
		for _, e := range entries {
			name := e.Name()
			switch {
			case e.IsDir() || e.Type()&fs.ModeSymlink != 0 && !sessionfile.IsJSONL(name):
				f.subdirs[name] = true
			case !sessionfile.IsJSONL(name):
			case isAgentFile(name):
				f.agents = append(f.agents, filepath.Join(dir, name))
			default:
				f.sessions++
			}
		}
	})
	return f
}

func (o *opener) session(path string) adapter.Input {
	return o.input(path, func(opt Options) (io.ReadCloser, error) { return o.open(path, opt) })
}

func (o *opener) input(path string, open func(Options) (io.ReadCloser, error)) adapter.Input {
	return adapter.Input{
		Name:        path,
		Open:        func() (io.ReadCloser, error) { return open(Options{}) },
		OpenLimited: func(maxLine int64) (io.ReadCloser, error) { return open(Options{MaxLine: maxLine}) },
	}
}

// agentFile is a subagent's file and what ties it to its call.
type agentFile struct {
	path      string
	agentID   string
	toolUseID string            // from its .meta.json, or the parent's tool result
	tasks     []string          // the Task/Agent calls it makes itself (nested subagents)
	agents    map[string]string // agentId -> tool_use id, from its own tool results
	sessionID string
	included  bool
	err       error // it could not be read: the session is converted without it
	folder    bool  // path is the subagents folder, which could not be listed

	// compaction: a compaction's own summary request (agent-acompact-…,
	// 2.1.x), tied to no call; entries are the lines of the conversation
	// its lines hang from.
	compaction bool
	entries    []uuidKey
}

// OpenSession returns the stream of one session: the conversation from its
// active leaf, merged with its subagents' files (see the package comment).
// It reads the files once to learn the conversation, then streams them.
func OpenSession(path string) (io.ReadCloser, error) {
	o := &opener{readDir: os.ReadDir, folders: make(map[string]*folder)}
	return o.open(path, Options{})
}

// OpenSessionWith is OpenSession with options.
func OpenSessionWith(path string, opt Options) (io.ReadCloser, error) {
	o := &opener{readDir: os.ReadDir, folders: make(map[string]*folder)}
	return o.open(path, opt)
}

func (o *opener) open(path string, opt Options) (io.ReadCloser, error) {
	fopt := frame.Options{MaxLine: opt.MaxLine}
	// One open for both passes: the second reads the file again from its
	// start.
	f, err := sessionfile.Open(path)
	if err != nil {
		return nil, err
	}
	sopt := fopt
	sopt.ReadSize = sessionfile.ReadSize(f)
	g, err := scan(f, sopt)
	if err != nil {
		f.Close()
		return nil, err
	}
	agents := o.findAgents(path, g.sessionID, fopt)
	inc := g.included()
	tie(g, inc, agents)

	// The second pass is the one converted: it counts, with the
	// subagents' files it merges (dialog.Options.Progress).
	count := new(sessionfile.Counter)
	if f, err = sessionfile.RewindCounted(f, count); err != nil {
		return nil, err
	}
	fopt.ReadSize = sessionfile.ReadSize(f)
	main := &source{
		closer: f, fr: frame.NewReader(io.LimitReader(f, g.bytes), fopt), isMain: true, path: path,
		index: g.index, inc: inc, emitted: newBits(len(g.kind)),
	}
	m := &merged{srcs: []*source{main}}
	for _, a := range agents {
		// A file tied to no call is read too, for its lines to be
		// counted (left out): none is lost without a reason.
		var af io.ReadCloser
		if a.err == nil {
			af, a.err = sessionfile.OpenCounted(a.path, count)
		}
		if a.err != nil {
			main.tail = unreadableFile(main.tail, a)
			continue
		}
		aopt := fopt
		aopt.ReadSize = sessionfile.ReadSize(af)
		m.srcs = append(m.srcs, &source{closer: af, fr: frame.NewReader(af, aopt), path: a.path, agentID: a.agentID, toolID: a.toolUseID, compaction: a.compaction, untied: !a.included, seen: make(map[uuidKey]struct{})})
	}
	if g.model != "" || g.cwd != "" {
		m.Out = header(g.model, g.cwd)
	}
	return sessionfile.Counted(m, count), nil
}

// findAgents lists the subagent files of a session: in <session>/subagents/,
// and beside the session file when they name the same session (or name
// none and the folder holds only this session). A file that cannot be
// read is listed with its error when it is surely this session's (in its
// own folder, or beside it alone); one beside several sessions may be any
// of theirs, and is left out.
func (o *opener) findAgents(path, sessionID string, opt frame.Options) []*agentFile {
	dir := filepath.Dir(path)
	fo := o.folder(dir)
	var nested []string
	if stem := sessionfile.Stem(path); fo.subdirs[stem] {
		sub := filepath.Join(dir, stem, "subagents")
		entries, err := o.readDir(sub)
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return []*agentFile{{path: sub, err: err, folder: true}}
		}
		for _, e := range entries {
			if isAgentFile(e.Name()) && sessionfile.IsJSONL(e.Name()) {
				nested = append(nested, filepath.Join(sub, e.Name()))
			}
		}
	}
	var found []*agentFile
	for i, list := range [][]string{nested, fo.agents} {
		for _, p := range list {
			a := scanAgent(p, opt)
			if a.err != nil {
				if i == 0 || fo.sessions <= 1 {
					found = append(found, a)
				}
				continue
			}
			if i == 1 && a.sessionID != sessionID && (a.sessionID != "" || fo.sessions > 1) {
				continue // another session's subagent
			}
			found = append(found, a)
		}
	}
	return found
}

// maxMeta bounds a .meta.json: a few hundred bytes are written.
const maxMeta = 1 << 20

// scanAgent reads what ties a subagent's file to its call: its id, the
// toolUseId of its .meta.json, and the calls it makes itself.
// A file it cannot read comes back with err set.
func scanAgent(path string, opt frame.Options) *agentFile {
	stem := sessionfile.Stem(path)
	a := &agentFile{path: path, agentID: strings.TrimPrefix(stem, "agent-"), agents: map[string]string{}}
	a.compaction = strings.HasPrefix(a.agentID, "acompact")
	own := make(map[uuidKey]bool)
	if meta, err := sessionfile.ReadSmall(filepath.Join(filepath.Dir(path), stem+".meta.json"), maxMeta); err == nil {
		var m struct {
			ToolUseID string `json:"toolUseId"`
		}
		if json.Unmarshal(meta, &m) == nil {
			a.toolUseID = m.ToolUseID
		}
	}
	f, err := sessionfile.Open(path)
	if err != nil {
		a.err = err
		return a
	}
	defer f.Close()
	opt.ReadSize = sessionfile.ReadSize(f)
	fr := frame.NewReader(f, opt)
	var chk jsonraw.Checker
	for {
		rec, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			a.err = err
			return a
		}
		if rec.Problem != "" {
			continue // the merge reports it, with its line
		}
		if !bytes.Contains(rec.Data, []byte(`"sessionId"`)) && !bytes.Contains(rec.Data, []byte(`"tool_use`)) {
			continue // nothing this scan reads
		}
		v, verdict := chk.Value(rec.Data, 10000)
		if verdict > jsonraw.Dirty || !v.IsObject() {
			continue
		}
		if a.sessionID == "" {
			a.sessionID = v.Get("sessionId").Str()
		}
		if id := v.Get("agentId").Str(); id != "" {
			a.agentID = id
		}
		if a.compaction {
			if k, ok := keyOf(v.Get("uuid")); ok {
				own[k] = true
			}
			if k, ok := keyOf(v.Get("parentUuid")); ok {
				a.entries = append(a.entries, k)
			}
		}
		agent := v.Get("toolUseResult").Get("agentId").Str()
		for e := v.Get("message").Get("content").Elements(); e.Next(); {
			b := e.Value
			switch string(b.Get("type").Body()) {
			case "tool_use":
				if n := b.Get("name"); n.Is("Task") || n.Is("Agent") {
					a.tasks = append(a.tasks, b.Get("id").Str())
				}
			case "tool_result":
				if agent != "" {
					a.agents[agent] = b.Get("tool_use_id").Str()
				}
			}
		}
	}
	a.entries = slices.DeleteFunc(a.entries, func(k uuidKey) bool { return own[k] })
	return a
}

// tie decides which subagent files belong to the conversation: those whose
// call is on it (a call of the session file's included lines, or of a
// subagent file already tied: nested subagents). A file tied to no call
// (Claude Code 2.0's warm-up agents, a rewound branch's) is left out of
// the dialog, its lines counted (leftNoCall). A
// compaction's file is tied to the conversation when one of the lines it
// hangs from is in it.
func tie(g *graph, inc bits, agents []*agentFile) {
	for _, a := range agents {
		for _, k := range a.entries {
			if i, ok := g.index[k]; ok && inc.has(i) {
				a.included = true
				break
			}
		}
	}
	calls := make(map[string]bool)
	for id, line := range g.tasks {
		if inc.has(line) {
			calls[id] = true
		}
	}
	byAgent := make(map[string]string, len(g.agents))
	for k, v := range g.agents {
		byAgent[k] = v
	}
	for _, a := range agents {
		for k, v := range a.agents {
			byAgent[k] = v
		}
	}
	for changed := true; changed; {
		changed = false
		for _, a := range agents {
			if a.included {
				continue
			}
			id := a.toolUseID
			if id == "" {
				id = byAgent[a.agentID]
			}
			if id == "" || !calls[id] {
				continue
			}
			a.toolUseID, a.included, changed = id, true, true
			for _, t := range a.tasks {
				calls[t] = true
			}
		}
	}
}
