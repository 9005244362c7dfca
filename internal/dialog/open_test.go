package dialog

import (
	"fmt"
	"slices"
	"testing"
)

// openModel is what openCalls must do, written plainly: every open call
// in the order it started.
type openModel struct {
	srcs []string
	ts   []openTool
}

func (m *openModel) push(src string, t openTool) {
	m.srcs, m.ts = append(m.srcs, src), append(m.ts, t)
}

func (m *openModel) find(src string) (openTool, int) {
	for i := len(m.srcs) - 1; i >= 0; i-- {
		if m.srcs[i] == src {
			return m.ts[i], i
		}
	}
	return openTool{}, -1
}

func (m *openModel) take(src string) (openTool, bool) {
	t, i := m.find(src)
	if i < 0 {
		return t, false
	}
	m.srcs, m.ts = slices.Delete(m.srcs, i, i+1), slices.Delete(m.ts, i, i+1)
	return t, true
}

// openCalls keeps the newest call out of its map: whatever the order of
// starts and ends, with ids reused while open, it answers as the plain
// model does.
func FuzzOpenCalls(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0x80, 0x81, 0x82})
	f.Add([]byte{0, 0, 0, 1, 0x80, 0x40, 0x80, 0x80, 0xc0, 0x81})
	f.Fuzz(func(t *testing.T, script []byte) { checkOpenCalls(t, script) })
}

func TestOpenCallsAsTheModel(t *testing.T) {
	for seed := range 2000 {
		script, _ := randomScript(seed, 1, 40)
		checkOpenCalls(t, script)
	}
}

// checkOpenCalls runs script on an openCalls and the model: each byte is
// an operation (its top two bits: push, take, find, take all) on one of
// four source ids (its low bits).
func checkOpenCalls(t *testing.T, script []byte) {
	t.Helper()
	var o openCalls
	var m openModel
	for i, op := range script {
		src := fmt.Sprint("item_", op&3)
		switch op >> 6 {
		case 0:
			tool := openTool{id: src, order: i}
			o.push(src, tool)
			m.push(src, tool)
		case 1:
			got, ok := o.take(src)
			want, wantOK := m.take(src)
			if got != want || ok != wantOK {
				t.Fatalf("%x: take %s at %d: got %v %v, want %v %v", script, src, i, got, ok, want, wantOK)
			}
		case 2:
			got, ok := o.find(src)
			want, at := m.find(src)
			if got != want || ok != (at >= 0) {
				t.Fatalf("%x: find %s at %d: got %v %v, want %v", script, src, i, got, ok, want)
			}
		case 3:
			if op&4 == 0 {
				continue // take all only now and then
			}
			got, want := o.takeAll(), slices.Clone(m.ts)
			m = openModel{}
			if !slices.Equal(got, want) {
				t.Fatalf("%x: take all at %d: got %v, want %v", script, i, got, want)
			}
		}
		if o.n != len(m.ts) {
			t.Fatalf("%x: %d open at %d, want %d", script, o.n, i, len(m.ts))
		}
	}
}
