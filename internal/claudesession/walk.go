package claudesession

import (
	"hash/maphash"
	"io"

	"github.com/ssebench/sse-dialog-convert/internal/frame"
	"github.com/ssebench/sse-dialog-convert/internal/jsonraw"
)

// The first pass over a session file: the parentUuid graph, compactly
// (per line with a uuid: its parent, what kind of line it is, its
// message.id's hash), and what ties subagents to their calls. Nothing else
// of the file is kept.

// Kinds of lines in the graph.
const (
	kindMessage    = 1 << iota // user or assistant
	kindAssistant              // assistant (msg holds its message.id's hash)
	kindToolResult             // a user line holding only tool results
	kindSidechain              // isSidechain
	kindCompaction             // a compaction's root: its parent is its logicalParentUuid
)

type graph struct {
	seed    maphash.Seed
	index   map[uuidKey]int32
	parentK []uuidKey
	parent  []int32 // resolved after the scan; -1: a root
	kind    []uint8
	msg     []uint64

	leaf    uuidKey // the last last-prompt's leafUuid
	leafAt  int32   // lines with a uuid before that last-prompt
	hasLeaf bool

	model, cwd, sessionID string

	tasks  map[string]int32  // Task/Agent tool_use id -> the line that calls it
	agents map[string]string // agentId -> the tool_use id its result names
	bytes  int64             // how much of the file the scan read

	// holed: some line could not be read (cut short by a crash, too
	// long); firstHole is how many lines with a uuid came before the first.
	holed     bool
	firstHole int32
}

// Parent indexes that are no line: a root, and one not looked up yet.
const (
	noParent   = -1
	unresolved = -2
)

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// scan reads a session file's lines into a graph. A line it cannot read
// (not JSON, longer than opt.MaxLine) is a hole in the graph: see resolve.
func scan(r io.Reader, opt frame.Options) (*graph, error) {
	g := &graph{
		seed:   maphash.MakeSeed(),
		index:  make(map[uuidKey]int32),
		tasks:  make(map[string]int32),
		agents: make(map[string]string),
	}
	c := &counter{r: r}
	fr := frame.NewReader(c, opt)
	var chk checker
	for {
		rec, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if rec.Meta || rec.Problem == "" && len(rec.Data) == 0 {
			continue
		}
		if rec.Problem != "" {
			g.hole()
			continue
		}
		v, reason := chk.line(rec.Data)
		if reason == "" {
			g.add(v)
			continue
		}
		g.hole()
		if reason != reasonInvalid {
			continue
		}
		if tail := chk.gluedTail(rec.Data); tail != nil {
			v, _ = chk.line(tail)
			g.add(v)
		}
	}
	g.bytes = c.n
	g.resolve()
	return g, nil
}

// hole notes a line that could not be read.
func (g *graph) hole() {
	if !g.holed {
		g.holed, g.firstHole = true, int32(len(g.kind))
	}
}

func (g *graph) add(v jsonraw.Value) {
	var typ, uuid, parent, logical, sidechain, message, leaf, cwd, session, tur jsonraw.Value
	v.Pick([]string{"type", "uuid", "parentUuid", "logicalParentUuid", "isSidechain", "message", "leafUuid", "cwd", "sessionId", "toolUseResult"},
		&typ, &uuid, &parent, &logical, &sidechain, &message, &leaf, &cwd, &session, &tur)
	if g.cwd == "" {
		g.cwd = cwd.Str()
	}
	if g.sessionID == "" {
		g.sessionID = session.Str()
	}
	if typ.Is("last-prompt") {
		if k, ok := keyOf(leaf); ok {
			g.leaf, g.hasLeaf, g.leafAt = k, true, int32(len(g.kind))
		}
		return
	}
	k, ok := keyOf(uuid)
	if !ok {
		return
	}
	if _, dup := g.index[k]; dup {
		return
	}
	i := int32(len(g.kind))
	g.index[k] = i
	pk, hasParent := keyOf(parent)
	compaction := false
	if !hasParent {
		// A compaction starts a new root that names the line before it.
		pk, hasParent = keyOf(logical)
		compaction = hasParent
	}
	g.parentK = append(g.parentK, pk)
	var kind uint8
	var msg uint64
	if sidechain.IsTrue() {
		kind |= kindSidechain
	}
	if compaction {
		kind |= kindCompaction
	}
	switch string(typ.Body()) {
	case "assistant":
		kind |= kindMessage | kindAssistant
		id := message.Get("id")
		if len(id.Body()) > 0 {
			msg = maphash.Bytes(g.seed, id.Body())
		}
		if g.model == "" && kind&kindSidechain == 0 {
			if m := message.Get("model"); !m.Is("<synthetic>") {
				g.model = m.Str()
			}
		}
		for e := message.Get("content").Elements(); e.Next(); {
			b := e.Value
			if b.Get("type").Is("tool_use") {
				if n := b.Get("name"); n.Is("Task") || n.Is("Agent") {
					g.tasks[b.Get("id").Str()] = i
				}
			}
		}
	case "user":
		kind |= kindMessage
		results, others := 0, 0
		agent := tur.Get("agentId").Str()
		for e := message.Get("content").Elements(); e.Next(); {
			if e.Value.Get("type").Is("tool_result") {
				results++
				if agent != "" {
					g.agents[agent] = e.Value.Get("tool_use_id").Str()
				}
			} else {
				others++
			}
		}
		if results > 0 && others == 0 {
			kind |= kindToolResult
		}
	}
	g.kind = append(g.kind, kind)
	g.msg = append(g.msg, msg)
	if hasParent {
		g.parent = append(g.parent, unresolved)
	} else {
		g.parent = append(g.parent, noParent)
	}
}

// resolve turns parent keys into line indexes. A parent never seen makes
// a root, unless a line before it could not be read: that line is most
// likely the parent (a crash cut it short, and the resumed session wrote
// on), and a root there would drop the whole conversation before it. The
// line takes the line before it of its own thread as its parent: the
// latest sidechain line for a sidechain's, else the main chain's latest.
// A compaction's root whose logicalParentUuid is no line of the file
// (Claude Code 2.1.39 writes such) is linked the same way: what the file
// holds before it is the conversation it compacted, and a root there would
// drop it. So is any main-thread line whose parent is no line of the file
// while main-thread lines came before it: the file lost that parent (an
// export or a fixture reducer that dropped attachment or hook lines); a
// new conversation starts with a null parent, not an unknown one. A first
// line's unknown parent (a session resumed from another file) stays a
// root.
func (g *graph) resolve() {
	lastMain, lastSide := int32(noParent), int32(noParent)
	for i := range int32(len(g.parent)) {
		side := g.kind[i]&kindSidechain != 0
		if g.parent[i] != noParent {
			p, ok := g.index[g.parentK[i]]
			linked := g.holed && i >= g.firstHole || g.kind[i]&kindCompaction != 0
			switch {
			case ok:
			case linked && side:
				p = lastSide
			case linked, !side:
				p = lastMain // noParent when no main line came before
			default:
				p = noParent
			}
			g.parent[i] = p
		}
		if side {
			lastSide = i
		} else {
			lastMain = i
		}
	}
	g.parentK = nil // done with
}

// activeLeaf is where the conversation ends: the last last-prompt's leaf
// when the file has one (it marks the branch a rewind left active), else
// the latest main-thread message; then the latest line written after it
// that descends from it (a turn's closing lines, or turns after the last
// marker if Claude Code stopped before writing another). -1: no line.
func (g *graph) activeLeaf() int32 {
	n := int32(len(g.kind))
	base, from := int32(noParent), int32(0)
	if g.hasLeaf {
		if i, ok := g.index[g.leaf]; ok {
			base, from = i, g.leafAt
		}
	}
	if base < 0 {
		for i := n - 1; i >= 0; i-- {
			if g.kind[i]&kindMessage != 0 && g.kind[i]&kindSidechain == 0 {
				base = i
				break
			}
		}
	}
	if base < 0 {
		return noParent
	}
	desc := newBits(int(n))
	desc.set(base)
	leaf := base
	for i := base + 1; i < n; i++ {
		if p := g.parent[i]; p >= 0 && p < i && desc.has(p) {
			desc.set(i)
			if i >= from && g.kind[i]&kindSidechain == 0 {
				leaf = i
			}
		}
	}
	return leaf
}

// included marks the lines the conversation holds: the chain from the
// active leaf back to the first root (through compactions), the other
// lines of each assistant message on it (a message with several tool
// calls is one line per call, and only one of them is on the chain), the
// tool results answering included lines, and every sidechain line (tied
// to its call by the adapter). With no conversation found, every line.
func (g *graph) included() bits {
	n := int32(len(g.kind))
	inc := newBits(int(n))
	leaf := g.activeLeaf()
	if leaf < 0 {
		for i := range n {
			inc.set(i)
		}
		return inc
	}
	chain := newBits(int(n))
	for i := leaf; i >= 0 && !chain.has(i); i = g.parent[i] {
		chain.set(i)
	}
	msgs := make(map[uint64]bool)
	for i := range n {
		if chain.has(i) && g.kind[i]&kindAssistant != 0 && g.msg[i] != 0 {
			msgs[g.msg[i]] = true
		}
	}
	for i := range n {
		k := g.kind[i]
		p := g.parent[i]
		switch {
		case chain.has(i), k&kindSidechain != 0:
		case k&kindAssistant != 0 && g.msg[i] != 0 && msgs[g.msg[i]]:
		case k&kindToolResult != 0 && p >= 0 && p < i && inc.has(p):
		default:
			continue
		}
		inc.set(i)
	}
	return inc
}
