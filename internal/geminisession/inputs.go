package geminisession

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ssebench/sse-dialog-convert/internal/adapter"
	"github.com/ssebench/sse-dialog-convert/internal/frame"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
	"github.com/ssebench/sse-dialog-convert/internal/sessionfile"
)

// Inputs reads a path given as FILE: a chat file (a subagent's alone is
// its own conversation), or a folder holding chat files at any depth (a
// chats/ folder, a project's folder, ~/.gemini/tmp): one dialog per
// session, its subagents' chats read with it. Files may be plain, .zst or
// .gz. A path holding no chat file is not this format's (ok false).
func Inputs(path string) (inputs []adapter.Input, ok bool, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, false, err
	}
	if !st.IsDir() {
		_, mine, err := claims(path)
		if err != nil || !mine {
			return nil, false, err
		}
		return []adapter.Input{input(path)}, true, nil
	}
	// A bad entry (a dangling symlink, an unreadable file) is one failed
	// input: the other chats still convert.
	entries, err := sessionfile.FindNamed(path, nil, chatName, func(p string) (bool, error) {
		main, mine, err := claims(p)
		return mine && main, err
	})
	if err != nil {
		return nil, false, err
	}
	return sessionfile.Inputs(entries, func(f string) adapter.Input {
		return input(f)
	})
}

// chatName reports whether a file's name may be a chat file's.
func chatName(name string) bool {
	if sessionfile.IsJSONL(name) {
		return true
	}
	for _, ext := range []string{".json", ".json.gz", ".json.zst"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// claims reports whether a file is a chat file (mine), and whether it is a
// session's own rather than a subagent's (kind "subagent" in its header).
// A JSON document too long for its first records to be read whole is
// recognised by its first members (isDocument).
func claims(path string) (main, mine bool, err error) {
	main = true
	mine, err = sessionfile.Claims(path, func(ev adapter.Event) adapter.Claim {
		c := Detect(ev)
		if c == adapter.Yes && ev.Get("projectHash").Exists() && ev.Get("kind").Is("subagent") {
			main = false
		}
		return c
	})
	if err != nil || mine {
		return main, mine, err
	}
	mine, err = isDocument(path)
	return main, mine, err
}

// docSniffBytes bounds how much of a file isDocument reads: the members
// before "messages" are a few short strings.
const docSniffBytes = 64 << 10

// isDocument reports whether a file is a chat of the JSON-document form:
// an object whose members before a "messages" array include a sessionId
// and a projectHash (as Detect asks of a header).
func isDocument(path string) (bool, error) {
	r, err := sessionfile.Open(path)
	if err != nil {
		return false, err
	}
	defer r.Close()
	d := &docLines{src: io.LimitReader(r, docSniffBytes)}
	d.decide()
	if d.rest != nil {
		return false, nil
	}
	h, ok := jsonraw.Parse(append(append([]byte{'{'}, d.header...), '}'))
	return ok && h.Get("sessionId").IsString() && h.Get("projectHash").Exists(), nil
}

// OpenSession returns the stream of one chat file, in the JSON Lines form
// (a chat of the JSON-document form is read message by message, see
// lines), with its subagents' chats spliced in: a model message whose tool call names an agentId
// (invoke_agent) is preceded by the start of that call and by the records
// of <folder>/<session id>/<agent id>.jsonl, each in an envelope naming
// the call. The files are read once, in one pass, each as it comes.
func OpenSession(path string) (io.ReadCloser, error) {
	return OpenSessionLimited(path, 0)
}

// OpenSessionLimited is OpenSession with its lines held to maxLine bytes
// (--max-line: 0 the default, < 0 no bound): a longer line is reported
// as a bad record, not held. A message of the JSON-document form is
// decoded whole before it is a line: memory follows the largest message.
func OpenSessionLimited(path string, maxLine int64) (io.ReadCloser, error) {
	count := new(sessionfile.Counter)
	f, err := sessionfile.OpenCounted(path, count)
	if err != nil {
		return nil, err
	}
	fopt := frame.Options{MaxLine: maxLine}
	s := &spliced{dir: filepath.Dir(path), fopt: fopt, srcs: []*source{{rc: f, fr: frame.NewReader(lines(f), fopt)}}, done: map[string]bool{}, count: count}
	return sessionfile.Counted(s, count), nil
}

// input is the dialog of the chat file at path.
func input(path string) adapter.Input {
	return adapter.Input{Name: path,
		Open:        func() (io.ReadCloser, error) { return OpenSession(path) },
		OpenLimited: func(maxLine int64) (io.ReadCloser, error) { return OpenSessionLimited(path, maxLine) },
	}
}

// source is one file being read: the session's, or a subagent's.
type source struct {
	rc        io.ReadCloser
	fr        *frame.Reader
	chk       jsonraw.Checker
	sessionID string
	callID    string // the call whose subagent this is ("" for the session)

	pending []byte     // a record held while its subagents are read first
	agents  []subagent // those subagents, not read yet
}

// subagent is a subagent's chat file and the call that ran it.
type subagent struct {
	path  string
	start []byte // the envelope that starts its call
}

// spliced is the stream: the sources' records, subagents' in envelopes.
type spliced struct {
	dir  string
	fopt frame.Options // the framing of every file, --max-line
	srcs []*source     // a stack: the session, then the subagent being read
	done map[string]bool
	sessionfile.Records

	// count counts the files read (dialog.Options.Progress): a session's
	// subagents' files from when its header names their folder.
	count *sessionfile.Counter
}

func (s *spliced) Read(p []byte) (int, error) { return s.Records.Read(p, s.next) }

// next puts the next record into Out.
func (s *spliced) next() error {
	if len(s.srcs) == 0 {
		return io.EOF
	}
	src := s.srcs[len(s.srcs)-1]
	if len(src.agents) > 0 {
		ag := src.agents[0]
		src.agents = src.agents[1:]
		f, err := sessionfile.OpenCounted(ag.path, s.count)
		if err != nil {
			return err
		}
		s.Out = append(s.Out, ag.start...)
		s.srcs = append(s.srcs, &source{rc: f, fr: frame.NewReader(f, s.fopt), callID: callIDOf(ag.start)})
		return nil
	}
	if src.pending != nil {
		s.emit(src, src.pending)
		src.pending = nil
		return nil
	}
	rec, err := src.fr.Next()
	if err == io.EOF {
		s.srcs = s.srcs[:len(s.srcs)-1]
		return src.rc.Close()
	}
	if err != nil {
		return err
	}
	if rec.Meta || len(rec.Data) == 0 {
		return nil
	}
	if src.sessionID == "" && bytes.Contains(rec.Data, []byte(`"projectHash"`)) {
		if v, verdict := src.chk.Value(rec.Data, 10000); verdict <= jsonraw.Dirty {
			src.sessionID = v.Get("sessionId").Str()
			s.expect(src.sessionID)
		}
	}
	if bytes.Contains(rec.Data, []byte(`"agentId"`)) && src.sessionID != "" {
		if ags := s.subagents(src, rec.Data); len(ags) > 0 {
			src.pending = append([]byte(nil), rec.Data...)
			src.agents = ags
			return nil
		}
	}
	s.emit(src, rec.Data)
	return nil
}

// emit writes a record, in an envelope when it is a subagent's (a broken
// one as it is, for the converter to report).
func (s *spliced) emit(src *source, data []byte) {
	if src.callID == "" {
		s.Out = append(append(s.Out, data...), '\n')
		return
	}
	if v, verdict := src.chk.Value(data, 10000); verdict > jsonraw.Dirty || !v.IsObject() {
		s.Out = append(append(s.Out, data...), '\n')
		return
	}
	s.Out = append(s.Out, `{"type":"`+typeSubagent+`","callId":`...)
	s.Out = jsonraw.AppendQuoted(s.Out, src.callID)
	s.Out = append(s.Out, `,"line":`...)
	s.Out = append(append(s.Out, data...), '}', '\n')
}

// subagents lists the subagent chats a message record's tool calls ran
// that are on disk and not read yet: <folder>/<session id>/<agentId>.jsonl.
func (s *spliced) subagents(src *source, data []byte) []subagent {
	v, verdict := src.chk.Value(data, 10000)
	if verdict > jsonraw.Dirty || !v.IsObject() {
		return nil
	}
	var ags []subagent
	for e := v.Get("toolCalls").Elements(); e.Next(); {
		c := e.Value
		agent := c.Get("agentId").Str()
		id := c.Get("id").Str()
		if agent == "" || id == "" || s.done[agent] || filepath.Base(agent) != agent {
			continue
		}
		path := filepath.Join(s.dir, src.sessionID, agent+".jsonl")
		if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
			continue
		}
		s.done[agent] = true
		b := []byte(`{"type":"` + typeSubagent + `","callId":`)
		b = jsonraw.AppendQuoted(b, id)
		b = append(b, `,"name":`...)
		b = jsonraw.AppendQuoted(b, c.Get("name").Str())
		if args := c.Get("args"); args.Exists() {
			b = append(b, `,"args":`...)
			b = append(b, args.Bytes()...)
		}
		if model := v.Get("model"); model.IsString() && src.callID == "" {
			// The model of the session's message that ran it: init may
			// have to be written before that message is read.
			b = append(b, `,"model":`...)
			b = append(b, model.Bytes()...)
		}
		b = append(b, '}', '\n')
		ags = append(ags, subagent{path: path, start: b})
	}
	return ags
}

// expect counts the sizes of the subagents' chats a session may splice
// in, <folder>/<session id>/*.jsonl, before any of them is read.
func (s *spliced) expect(sessionID string) {
	if sessionID == "" || sessionID == "." || sessionID == ".." || filepath.Base(sessionID) != sessionID {
		return
	}
	dir := filepath.Join(s.dir, sessionID)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".jsonl") {
			s.count.Expect(filepath.Join(dir, e.Name()))
		}
	}
}

// callIDOf reads the call id back from a start envelope.
func callIDOf(start []byte) string {
	v, _ := jsonraw.Parse(bytes.TrimSpace(start))
	return v.Get("callId").Str()
}

func (s *spliced) Close() error {
	var first error
	for _, src := range s.srcs {
		if err := src.rc.Close(); err != nil && first == nil {
			first = err
		}
	}
	s.srcs = nil
	return first
}
