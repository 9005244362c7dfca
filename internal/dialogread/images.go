package dialogread

import "strings"

// dataImage is where a Markdown image with a data: URL starts its URL.
const dataImage = "](data:"

// HideImages replaces each Markdown image whose URL is a data: URL (an
// image the dialog carries, see dialog.Image) with [image ALT], for what draws no picture (a terminal, a
// table's prompt column): base64 is nobody's text.
func HideImages(s string) string {
	if !strings.Contains(s, dataImage) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, dataImage)
		if i < 0 {
			break
		}
		start := strings.LastIndex(s[:i], "![")
		end := strings.IndexByte(s[i:], ')')
		if start < 0 || end < 0 || strings.ContainsAny(s[start+2:i], "]\n") || strings.ContainsAny(s[i:i+end], " \t\n") {
			b.WriteString(s[:i+len(dataImage)]) // not an image: kept as it is
			s = s[i+len(dataImage):]
			continue
		}
		alt := s[start+2 : i]
		if alt == "" {
			alt = "data"
		}
		b.WriteString(s[:start])
		b.WriteString("[image " + alt + "]")
		s = s[i+end+1:]
	}
	b.WriteString(s)
	return b.String()
}
