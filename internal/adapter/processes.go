package adapter

import "github.com/ssebench/sse-dialog-convert/internal/dialog"

// Processes follows the CLI processes whose events one stream holds one
// after another (stream-json of several runs, as Cursor's and Gemini
// CLI's are captured): an init event begins each, a result event ends it.
// The zero Processes has seen none.
type Processes struct {
	started int  // processes begun
	active  bool // the current process has given no result yet
}

// Start begins the events of a new process and reports whether one came
// before it. Calls the previous one left open never end; its failure (an
// error status in sum), or its missing result, stays visible as a warning
// counted in sum, and its status and message stop being the dialog's.
func (p *Processes) Start(w *dialog.Writer, sum *dialog.Summary) (after bool) {
	after = p.started > 0
	if after {
		w.EndOpenTools(dialog.Plain("the run ended before the tool call finished"))
		switch {
		case sum.Status == dialog.StatusError:
			notice(w, sum, "run failed: "+sum.Message)
		case p.active:
			notice(w, sum, "run ended without a result (interrupted or killed)")
		}
		sum.Status, sum.Message = "", ""
	}
	p.started++
	p.active = true
	return after
}

// Ended records the current process's result.
func (p *Processes) Ended() { p.active = false }

// notice writes a warning the converter words itself.
func notice(w *dialog.Writer, sum *dialog.Summary, text string) {
	sum.Warnings++
	w.Message(dialog.Message{Content: dialog.Plain(dialog.WarningPrefix + text)})
}
