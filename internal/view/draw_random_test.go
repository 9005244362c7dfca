package view_test

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ssebench/sse-dialog-convert/internal/dialogread"
	"github.com/ssebench/sse-dialog-convert/internal/view"
)

// Random dialogs with unique ids, every child before its parent's result:
// the Drawer with the default hold should draw them as Render does.
func TestDrawerRandomAsRender(t *testing.T) {
	for seed := range 3000 {
		rng := rand.New(rand.NewSource(int64(seed)))
		d := newDialog()
		type call struct {
			id     string
			parent string
			open   int // open children
		}
		var open []*call
		next := 0
		steps := 5 + rng.Intn(40)
		for i := 0; i < steps; i++ {
			switch r := rng.Intn(10); {
			case r < 3: // a new call, maybe under an open call
				parent := ""
				var pc *call
				if len(open) > 0 && rng.Intn(2) == 0 {
					pc = open[rng.Intn(len(open))]
					parent = pc.id
				}
				c := &call{id: fmt.Sprintf("c%d", next), parent: parent}
				next++
				d.call(c.id, parent)
				if pc != nil {
					pc.open++
				}
				open = append(open, c)
			case r < 6: // a result for an open call with no open children
				for j, c := range open {
					if c.open == 0 {
						if rng.Intn(4) == 0 {
							d.add(`"type":"tool","tool_id":%q,"name":"Bash","status":"error","error":"bad","parent_tool_id":%q`, c.id, c.parent)
						} else {
							d.result(c.id, "ok "+c.id)
						}
						for _, p := range open {
							if p.id == c.parent {
								p.open--
							}
						}
						open = append(open[:j], open[j+1:]...)
						break
					}
				}
			default: // a message, maybe under an open call
				if len(open) > 0 && rng.Intn(2) == 0 {
					c := open[rng.Intn(len(open))]
					d.add(`"type":"message","role":"assistant","content":"m%d","parent_tool_id":%q`, i, c.id)
				} else {
					d.message(fmt.Sprintf("m%d", i))
				}
			}
		}
		if rng.Intn(2) == 0 {
			d.add(`"type":"complete","status":"success","turns":3`)
		}
		whole, err := dialogread.Read(strings.NewReader(d.b.String()), nil)
		require.NoError(t, err)
		var r, out bytes.Buffer
		require.NoError(t, view.Render(&r, whole, view.Options{Width: 80}))
		require.NoError(t, view.DrawFrom(&out, strings.NewReader(d.b.String()), nil, 0, view.Options{Width: 80}, view.DefaultHold()))
		for _, h := range []int{1, 2, 3, 5} {
			var small bytes.Buffer
			require.NoError(t, view.DrawFrom(&small, strings.NewReader(d.b.String()), nil, 0, view.Options{Width: 80}, view.Hold{Bytes: 1 << 20, Entries: h}))
			rl := strings.Split(strings.TrimSpace(r.String()), "\n")
			sl := strings.Split(strings.TrimSpace(small.String()), "\n")
			if rl[len(rl)-1] != sl[len(sl)-1] {
				t.Fatalf("seed %d hold %d closing: %q vs %q\n%s", seed, h, rl[len(rl)-1], sl[len(sl)-1], d.b.String())
			}
			for _, line := range strings.Split(r.String(), "\n") {
				w := strings.TrimSpace(strings.TrimLeft(line, "│ "))
				if (strings.HasPrefix(w, "m") || strings.HasPrefix(w, "⎿ ok")) && strings.Count(small.String(), w+"\n") != strings.Count(r.String(), w+"\n") {
					t.Fatalf("seed %d hold %d: %q drawn %d times, Render %d\n%s\n---\n%s", seed, h, w, strings.Count(small.String(), w+"\n"), strings.Count(r.String(), w+"\n"), d.b.String(), small.String())
				}
			}
		}
		if r.String() != out.String() {
			t.Fatalf("seed %d:\n%s\n--- render:\n%s\n--- drawer:\n%s", seed, d.b.String(), r.String(), out.String())
		}
	}
}
