package sessiongen

import (
	"math"
	"math/rand/v2"
	"strconv"
	"unicode/utf8"
)

// kind is the shape of a generated text. Each mimics what fills real
// sessions, so that the converter meets the escapes and multi-byte
// characters it meets there: the real Claude captures of the shared corpus
// hold a backslash in about 2% of their bytes and a non-ASCII byte in about
// 8% (line-number arrows, box drawing, accents, emoji).
type kind uint8

const (
	kindProse kind = iota // assistant text, thinking, subagent reports
	kindCode              // source code (Read shows it with numbered lines)
	kindLog               // command output: test runs, builds, ANSI colours, CR
	kindPaths             // grep and glob output
)

// textGen writes generated texts as JSON string literals, escaped as the
// agents escape them (JSON.stringify, serde_json): quote, backslash and
// control characters only; other characters stay raw UTF-8.
type textGen struct {
	r    *rand.Rand
	line []byte // the current line, before escaping (reused)
	n    int    // lines written for the current text (numbers code lines)
}

func newTextGen(seed uint64) *textGen {
	return &textGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// logSize draws a size between lo and hi, uniform on a log scale: most
// outputs are short, a few are long, as in real sessions.
func (g *textGen) logSize(lo, hi int) int {
	return int(float64(lo) * math.Pow(float64(hi)/float64(lo), g.r.Float64()))
}

// outputSize draws the size of a command's output: of 20 draws, those
// below short are short (least to 2,000 bytes), those below 18 medium (to
// 20,000), the rest long (to 100,000).
func (g *textGen) outputSize(least, short int) int {
	switch u := g.r.IntN(20); {
	case u < short:
		return g.logSize(least, 2000)
	case u < 18:
		return g.logSize(2000, 20000)
	default:
		return g.logSize(20000, 100000)
	}
}

// literal appends a JSON string literal of about n bytes (quotes and
// escapes included) of kind k. With numbered set, code lines carry Read's
// line numbers ("     1→"); plain, if not nil, receives the same text
// without them as a second literal (Read's tool_use_result repeats the file
// that way, Bash's repeats stdout as it is).
func (g *textGen) literal(dst []byte, k kind, n int, numbered bool, plain *[]byte) []byte {
	start := len(dst)
	dst = append(dst, '"')
	if plain != nil {
		*plain = append((*plain)[:0], '"')
	}
	g.n = 0
	for len(dst)-start < n-1 {
		g.line = g.line[:0]
		g.n++
		switch k {
		case kindProse:
			g.prose()
		case kindCode:
			g.code()
		case kindLog:
			g.log()
		case kindPaths:
			g.paths()
		}
		if numbered {
			dst = appendNumber(dst, g.n)
		}
		// The last line is cut to the budget, on a character boundary,
		// so that huge texts come out at the size asked for.
		line, cut := g.line, false
		if room := n - 1 - (len(dst) - start); escapedLen(line) > room {
			line, cut = cutEscaped(line, max(room, 0)), true
		}
		dst = appendEscaped(dst, line)
		if plain != nil {
			*plain = appendEscaped(*plain, line)
		}
		if cut {
			break
		}
	}
	if plain != nil {
		*plain = append(*plain, '"')
	}
	return append(dst, '"')
}

// appendNumber appends Read's line prefix: the number right-aligned in six
// columns, then an arrow.
func appendNumber(dst []byte, n int) []byte {
	var b [20]byte
	num := strconv.AppendInt(b[:0], int64(n), 10)
	for i := len(num); i < 6; i++ {
		dst = append(dst, ' ')
	}
	dst = append(dst, num...)
	return append(dst, "→"...)
}

// cutEscaped returns the longest prefix of b that takes at most n bytes
// escaped and does not split a UTF-8 sequence.
func cutEscaped(b []byte, n int) []byte {
	i := 0
	for ; i < len(b); i++ {
		if n -= escapedLen(b[i : i+1]); n < 0 {
			break
		}
	}
	for i > 0 && i < len(b) && !utf8.RuneStart(b[i]) {
		i--
	}
	return b[:i]
}

// escapedLen returns the length of s escaped by appendEscaped.
func escapedLen(s []byte) int {
	n := len(s)
	for _, c := range s {
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

// appendEscaped appends s escaped for a JSON string, as JSON.stringify does.
func appendEscaped(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func (g *textGen) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *textGen) add(s ...string) {
	for _, x := range s {
		g.line = append(g.line, x...)
	}
}

func (g *textGen) num(n int) { g.line = strconv.AppendInt(g.line, int64(g.r.IntN(n)), 10) }

var (
	words = []string{
		"the", "test", "fails", "because", "parser", "config", "returns", "nil", "when",
		"file", "is", "empty", "so", "we", "should", "check", "error", "before", "using",
		"value", "handler", "request", "timeout", "retry", "cache", "index", "build",
		"module", "function", "call", "loop", "buffer", "line", "stream", "output",
		"input", "field", "struct", "interface", "method", "package", "import", "path",
		"naïve", "café", "Größe", "déjà", "façade", "résumé", "coördinate",
	}
	marks   = []string{".", ".", ".", ",", ";", ":", " —", "…", "?", "!"}
	quotes  = []string{"`parseConfig`", "\"main.go\"", "“the cache”", "‘nil’", "`go test ./...`", "`err != nil`", `C:\Users\dev\app`, "`\\d+`", "→", "✓", "✗", "🚀", "日本語", "🙂"}
	idents  = []string{"cfg", "err", "buf", "req", "resp", "ctx", "item", "line", "n", "i", "ok", "out", "src", "dst"}
	types   = []string{"int", "string", "[]byte", "error", "*Config", "map[string]int", "io.Reader", "bool"}
	codeFmt = []string{
		"func %I(%I %T, %I %T) (%T, error) {",
		"  if (%I == null || %I.isEmpty) return const %W();",
		"    final %I = %I.%W(%I, %W: %I);",
		"    return %I.copyWith(%W: %I.%W, %W: %I.%W ?? %I.%W);",
		"  /// Returns the %W %W for the given %W, or null when the %W is not %W.",
		"import 'package:%W/src/%W/%W_%W.dart';",
		"export 'src/%W/%W.dart';",
		"\tif err != nil {",
		"\t\treturn nil, fmt.Errorf(\"open %s: %w\", %I, err)",
		"\t}",
		"  }",
		"",
		"  // ── %W %W ──────────",
		"    pattern = re.compile(r\"^(\\d+)\\s+(\\w+)$\")",
		"    def %I(self, %I: %T) -> %T:  # %W %W",
		"        return {\"%W\": %I, \"%W\": True}",
		"  const %I = await %I.%W({ %W: %I, %W: '%W' });",
		"  @override",
		"  Widget build(BuildContext context) {",
		"    %I.%W = %I.%W + %I.%W * %N;",
		"    // %W %W %W — naïve %W, see the %W %W.",
		"type %I struct {\n\t%I %T `json:\"%W\"`\n}",
	}
	logFmt = []string{
		"=== RUN   Test%W%N",
		"--- PASS: Test%W%N (0.%Ns)",
		"--- FAIL: Test%W (0.%Ns)",
		"    %W_test.go:%N: got \"%W\", want \"%W\"",
		"ok  \tgithub.com/dev/app/internal/%W\t0.%Ns",
		"  %W %W %W %W: %W %W (%N ms)",
		"[INFO] %W %W %W %W — %N %W in %N ms",
		"  ✓ %W %W %W (%Nms)",
		"\x1b[32m✓\x1b[0m %W %W (%Nms)",
		"\x1b[31m✗\x1b[0m %W %W (%Nms)",
		"warning: unused variable `%I` at src/%W.rs:%N:%N",
		"npm WARN deprecated %W@%N.%N.%N: use %W instead",
		"[%N/%N] Compiling %W v0.%N.%N\r",
		"src/%W/%W.ts(%N,%N): error TS2345: Argument of type '%W' is not assignable.",
		"%W/%W.go:%N:%N: %W %W %W",
		"-rw-r--r--  1 dev dev %N Jan %N 12:%N %W.go",
		"Traceback (most recent call last):\n  File \"/app/%W.py\", line %N, in %I\n    raise ValueError(\"%W\")",
		"+ %W %W --flag=%N",
	}
	pathFmt = []string{
		"internal/%W/%W.go:%N:\t%I := %W(%I)",
		"internal/%W/%W_test.go:%N:\t// TODO(%W): %W %W",
		"cmd/%W/main.go",
		"docs/%W — %W.md:%N: “%W”",
		"src/%W/%W.ts:%N:  const %I = \"%W\";",
	}
)

// fill expands a format: %W a word, %I an identifier, %T a type, %N a number.
func (g *textGen) fill(f string) {
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' || i+1 == len(f) {
			g.line = append(g.line, c)
			continue
		}
		i++
		switch f[i] {
		case 'W':
			g.add(g.pick(words))
		case 'I':
			g.add(g.pick(idents))
		case 'T':
			g.add(g.pick(types))
		case 'N':
			g.num(1000)
		case '%':
			g.line = append(g.line, '%')
		default:
			g.line = append(g.line, '%', f[i])
		}
	}
	g.line = append(g.line, '\n')
}

func (g *textGen) prose() {
	if g.r.IntN(5) == 0 {
		g.add("- ")
	}
	for s := 1 + g.r.IntN(3); s > 0; s-- {
		for w := 4 + g.r.IntN(12); w > 0; w-- {
			if g.r.IntN(8) == 0 {
				g.add(g.pick(quotes))
			} else {
				g.add(g.pick(words))
			}
			if w > 1 {
				g.add(" ")
			}
		}
		g.add(g.pick(marks), " ")
	}
	g.add("\n")
	if g.r.IntN(4) == 0 {
		g.add("\n")
	}
}

func (g *textGen) code()  { g.fill(g.pick(codeFmt)) }
func (g *textGen) log()   { g.fill(g.pick(logFmt)) }
func (g *textGen) paths() { g.fill(g.pick(pathFmt)) }
