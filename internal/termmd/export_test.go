package termmd

// RenderMeasured is Render, also returning how many bytes cutting words
// into lines measured.
func (r *Renderer) RenderMeasured(src string, width int) ([]string, int) { return r.render(src, width) }
