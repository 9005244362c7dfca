package dialog

import (
	"bytes"
	"encoding/base64"
	"strconv"
)

// Images. An image the source carries as base64 data (a screenshot in a
// tool's result, a picture in the user's turn) is written into the text of
// the entry it belongs to, after that text, on a paragraph of its own:
// either whole, as a Markdown image with a data: URL,
//
//	![image/png 48213 bytes](data:image/png;base64,iVBORw0KGgo…)
//
// or as a placeholder that says why it is not there,
//
//	[image image/png 48213 bytes: over the 1 MiB image cap (--max-image)]
//
// An image is never cut (a cut data: URL is a broken image) and never
// fetched: an image given by URL is the adapter's placeholder, not an
// Image. Only raster types a browser draws without running anything are
// carried (never SVG, which can hold script), and only data that is base64
// and nothing else, so that no character of it can end the URL or the
// Markdown around it. The data counts against the file budget: images
// together may take at most a quarter of it (imageShare).

// DefaultMaxImage is the default cap, in bytes of base64, on one image
// carried in a dialog; a larger one is a placeholder.
const DefaultMaxImage = 1 << 20

// imageShare is the part of the file budget images may take, together.
const imageShare = 4

// Image is an image the source holds as base64 data.
type Image struct {
	// Media is the media type as the source gives it (image/png).
	Media string
	// Data is the base64 text as it stands in the body of a JSON string
	// of the input (escapes kept: \/ is a slash), or plain base64. It is
	// copied during the call it is passed to.
	Data []byte
}

// ImageFromDataURL reads a data: URL as it stands in the body of a JSON
// string of the input (data:image/png;base64,…). It reports false for
// any other URL, which is the adapter's to show as a placeholder (never
// fetched).
func ImageFromDataURL(body []byte) (Image, bool) {
	rest, ok := bytes.CutPrefix(body, []byte("data:"))
	if !ok {
		return Image{}, false
	}
	head, data, ok := bytes.Cut(rest, []byte(","))
	if !ok {
		return Image{}, false
	}
	media, ok := bytes.CutSuffix(head, []byte(";base64"))
	if !ok {
		return Image{}, false
	}
	return Image{Media: string(bytes.ReplaceAll(media, []byte(`\/`), []byte("/"))), Data: data}, true
}

// shownMedia is the media types carried: rasters that run nothing, each
// with the bytes its data starts with.
var shownMedia = [...]struct {
	media string
	name  string
	magic func([]byte) bool
}{
	{"image/png", "PNG", func(b []byte) bool { return bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) }},
	{"image/jpeg", "JPEG", func(b []byte) bool { return bytes.HasPrefix(b, []byte("\xff\xd8\xff")) }},
	{"image/gif", "GIF", func(b []byte) bool {
		return bytes.HasPrefix(b, []byte("GIF87a")) || bytes.HasPrefix(b, []byte("GIF89a"))
	}},
	{"image/webp", "WebP", func(b []byte) bool {
		return len(b) >= 12 && bytes.HasPrefix(b, []byte("RIFF")) && string(b[8:12]) == "WEBP"
	}},
}

// base64Data checks that body (a JSON string body) is base64 and nothing
// else: the characters of the standard alphabet (a slash may be escaped
// as \/), then at most two '=' of padding, of a length that can be base64.
// It returns the number of data characters (padding aside) and the first
// bytes the data decodes to (up to 12).
func base64Data(body []byte) (chars int, head []byte, ok bool) {
	var first [16]byte
	pad := 0
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '=':
			pad++
			if pad > 2 {
				return 0, nil, false
			}
			continue
		case c == '\\' && i+1 < len(body) && body[i+1] == '/':
			c = '/'
			i++
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
		default:
			return 0, nil, false
		}
		if pad > 0 { // data after padding
			return 0, nil, false
		}
		if chars < len(first) {
			first[chars] = c
		}
		chars++
	}
	if chars == 0 || chars%4 == 1 || (pad > 0 && (chars+pad)%4 != 0) {
		return 0, nil, false
	}
	head = make([]byte, 12)
	m, err := base64.RawStdEncoding.Decode(head, first[:min(chars, len(first))])
	if err != nil {
		return 0, nil, false
	}
	return chars, head[:m], true
}

// appendImage appends img to the body of a JSON string: the Markdown image
// when it is within the cap and the budget, else the placeholder that says
// why. n is the length of the entry so far.
func (w *Writer) appendImage(dst []byte, img Image, n int) []byte {
	media := safeMedia(img.Media)
	chars, head, ok := base64Data(img.Data)
	size := int64(chars) * 6 / 8
	note := func(why string) []byte {
		dst = append(dst, "[image "...)
		dst = append(dst, media...)
		if ok {
			dst = append(dst, ' ')
			dst = strconv.AppendInt(dst, size, 10)
			dst = append(dst, " bytes"...)
		}
		dst = append(dst, ": "...)
		dst = append(dst, why...)
		return append(dst, ']')
	}
	if !ok {
		return note("data not base64, not shown")
	}
	kind := -1
	for i, s := range shownMedia {
		if media == s.media {
			kind = i
		}
	}
	switch {
	case kind < 0:
		return note("not shown, only PNG, JPEG, GIF and WebP images are")
	case !shownMedia[kind].magic(head):
		return note("data is not a " + shownMedia[kind].name + ", not shown")
	case w.opt.MaxImage < 0:
		return note("images not carried (--max-image 0)")
	case len(img.Data) > w.opt.MaxImage:
		return note("over the " + sizeText(int64(w.opt.MaxImage)) + " image cap (--max-image)")
	}
	// The Markdown, as written: ![alt](data:media;base64,data)
	alt := media + " " + strconv.FormatInt(size, 10) + " bytes"
	need := int64(len("![](data:;base64,)") + len(alt) + len(media) + len(img.Data))
	if b := &w.budget; b.max > 0 {
		pool := (b.max - completeReserve) / imageShare
		if need > pool-b.images || need > b.room(n) {
			b.imagesCut++
			return note("left out for the file budget")
		}
		b.images += need
	}
	dst = append(dst, "!["...)
	dst = append(dst, alt...)
	dst = append(dst, "](data:"...)
	dst = append(dst, media...)
	dst = append(dst, ";base64,"...)
	dst = append(dst, img.Data...) // checked: base64 and \/ only
	return append(dst, ')')
}

// safeMedia is a media type for a placeholder: the source's, lowercased,
// when it is a type/subtype of token characters, else "of unknown type".
func safeMedia(m string) string {
	if len(m) == 0 || len(m) > 100 {
		return "of unknown type"
	}
	slash := 0
	b := []byte(m)
	for i, c := range b {
		switch {
		case c >= 'A' && c <= 'Z':
			b[i] = c + 'a' - 'A'
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '.', c == '+', c == '-', c == '_':
		case c == '/' && i > 0 && i < len(b)-1:
			slash++
		default:
			return "of unknown type"
		}
	}
	if slash != 1 {
		return "of unknown type"
	}
	return string(b)
}

// appendContent appends text t and, after it, images, as one JSON string
// literal: the text cut by c as any text, each image whole or a placeholder,
// a paragraph each.
func (w *Writer) appendContent(dst []byte, c *cutter, t Text, images []Image) []byte {
	if len(images) == 0 {
		return c.appendText(dst, t)
	}
	if t.IsEmpty() {
		dst = append(dst, '"')
	} else {
		dst = c.appendText(dst, t)
		dst = append(dst[:len(dst)-1], `\n\n`...) // reopened: the closing quote comes after the images
	}
	for i, img := range images {
		if i > 0 {
			dst = append(dst, `\n\n`...)
		}
		dst = w.appendImage(dst, img, len(dst)-w.entry)
	}
	return append(dst, '"')
}

// imagesLen is the length of the data of images.
func imagesLen(images []Image) int {
	n := 0
	for _, img := range images {
		n += len(img.Data)
	}
	return n
}
