package dialog

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pixelPNG is a 1×1 red PNG (73 bytes), encoded by image/png.
const pixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAAEElEQVR4nGL6z8AACAAA//8DCQECWLbVUAAAAABJRU5ErkJggg=="

// imageText is the text one entry gets for img, under opt, after text.
func imageEntry(t *testing.T, opt Options, text string, imgs ...Image) string {
	t.Helper()
	var out bytes.Buffer
	opt.Clock = pinned
	w := NewWriter(&out, opt)
	w.ToolStart(ToolCall{ID: "a", Name: "Read"})
	w.ToolEnd(ToolResult{ID: "a", Output: Plain(text), Images: imgs})
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es := entries(t, out.Bytes())
	require.Equal(t, "init tool:running tool:success complete", types(es))
	return es[2]["result"].(string)
}

// pageImage is what the HTML page (internal/htmlexport assets/page.js)
// draws as an image: a Markdown image whose URL is a data: URL of one of
// the raster types, base64 to its end.
var pageImage = regexp.MustCompile(`^!\[([^\]\n]*)\]\((data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*)\)$`)

func TestImageFitsIsAMarkdownDataURL(t *testing.T) {
	got := imageEntry(t, Options{}, "the screenshot:", Image{Media: "image/png", Data: []byte(pixelPNG)})
	text, img, ok := strings.Cut(got, "\n\n")
	require.True(t, ok, got)
	assert.Equal(t, "the screenshot:", text)
	m := pageImage.FindStringSubmatch(img)
	require.NotNil(t, m, img)
	assert.Equal(t, "image/png 73 bytes", m[1])
	// The URL holds the very image: it decodes to the PNG it was.
	data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(m[2], "data:image/png;base64,"))
	require.NoError(t, err)
	assert.Len(t, data, 73)
	assert.True(t, bytes.HasPrefix(data, []byte("\x89PNG")))
}

func TestImageAloneAndSeveral(t *testing.T) {
	png := Image{Media: "image/png", Data: []byte(pixelPNG)}
	got := imageEntry(t, Options{}, "", png, Image{Media: "image/svg+xml", Data: []byte("PHN2Zy8+")})
	parts := strings.Split(got, "\n\n")
	require.Len(t, parts, 2, got)
	assert.Regexp(t, pageImage, parts[0])
	assert.Equal(t, "[image image/svg+xml 6 bytes: not shown, only PNG, JPEG, GIF and WebP images are]", parts[1])
}

func TestImageTooLargeSaysTheCap(t *testing.T) {
	got := imageEntry(t, Options{MaxImage: 64}, "x", Image{Media: "image/png", Data: []byte(pixelPNG)})
	assert.Equal(t, "x\n\n[image image/png 73 bytes: over the 64 bytes image cap (--max-image)]", got)
	big := base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 3<<18)...)) // 1 MiB and 12 bytes of base64
	got = imageEntry(t, Options{}, "x", Image{Media: "image/png", Data: []byte(big)})
	assert.Contains(t, got, "over the 1 MiB image cap (--max-image)]")
	got = imageEntry(t, Options{MaxImage: -1}, "", Image{Media: "image/png", Data: []byte(pixelPNG)})
	assert.Equal(t, "[image image/png 73 bytes: images not carried (--max-image 0)]", got)
}

func TestImageNeverCutByMaxText(t *testing.T) {
	// The text is cut to its cap; the image after it is whole.
	got := imageEntry(t, Options{MaxText: 10}, strings.Repeat("t", 40), Image{Media: "image/png", Data: []byte(pixelPNG)})
	text, img, _ := strings.Cut(got, "\n\n")
	assert.Equal(t, strings.Repeat("t", 10)+marker(30), text)
	assert.Regexp(t, pageImage, img)
}

func TestImageBudgetSpent(t *testing.T) {
	// A budget whose image quarter is smaller than the image.
	big := base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 200<<10)...))
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned, MaxBytes: 512 << 10})
	for _, id := range []string{"a", "b"} {
		w.ToolStart(ToolCall{ID: id, Name: "shot"})
		w.ToolEnd(ToolResult{ID: id, Images: []Image{{Media: "image/png", Data: []byte(big)}}})
	}
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es := entries(t, out.Bytes())
	require.Equal(t, "init tool:running tool:success tool:running tool:success message complete", types(es))
	assert.Equal(t, "[image image/png 204808 bytes: left out for the file budget]", es[2]["result"], "a quarter of 512 KiB is less than 273 KiB of base64")
	assert.Contains(t, es[5]["content"], "2 images as placeholders")
	assert.LessOrEqual(t, out.Len(), 512<<10)

	// Under a budget with room, the first image is carried and counted:
	// the second no longer fits the images' quarter.
	out.Reset()
	w = NewWriter(&out, Options{Clock: pinned, MaxBytes: 1200 << 10})
	for _, id := range []string{"a", "b"} {
		w.ToolStart(ToolCall{ID: id, Name: "shot"})
		w.ToolEnd(ToolResult{ID: id, Images: []Image{{Media: "image/png", Data: []byte(big)}}})
	}
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es = entries(t, out.Bytes())
	assert.Regexp(t, pageImage, es[2]["result"])
	assert.Equal(t, "[image image/png 204808 bytes: left out for the file budget]", es[4]["result"])
}

func TestImageBadBase64(t *testing.T) {
	for _, data := range []string{
		"iVBORw0K) [x](javascript:alert(1)",     // would end the URL
		"iVBORw0K Ggo=",                         // a space
		`iVBORw0K\"Ggo=`,                        // an escape other than \/
		"iVBORw0KGgo=A",                         // data after padding
		"iVBORw0KGgo===",                        // three pads
		"iVBORw0KG",                             // a length base64 cannot have
		"",                                      // nothing
		"iVBORw0KGgoAAAANSUhEUgAA-_",            // base64url
		"iVBORw0KGgoAAAANSUhEUgAA<img src=x>==", // HTML
	} {
		got := imageEntry(t, Options{}, "", Image{Media: "image/png", Data: []byte(data)})
		assert.Equal(t, "[image image/png: data not base64, not shown]", got, data)
	}
}

func TestImageEscapedSlashIsBase64(t *testing.T) {
	// A JSON encoder may write / as \/: the data is the same base64.
	data := strings.ReplaceAll(pixelPNG, "/", `\/`)
	got := imageEntry(t, Options{}, "", Image{Media: "image/png", Data: []byte(data)})
	assert.Regexp(t, pageImage, got)
	assert.Contains(t, got, pixelPNG)
}

func TestImageSVGAndOtherTypesRefused(t *testing.T) {
	svg := base64.StdEncoding.EncodeToString([]byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`))
	for media, want := range map[string]string{
		"image/svg+xml":            "[image image/svg+xml 71 bytes: not shown, only PNG, JPEG, GIF and WebP images are]",
		"text/html":                "[image text/html 71 bytes: not shown, only PNG, JPEG, GIF and WebP images are]",
		"image/png](javascript:x)": "[image of unknown type 71 bytes: not shown, only PNG, JPEG, GIF and WebP images are]",
		"":                         "[image of unknown type 71 bytes: not shown, only PNG, JPEG, GIF and WebP images are]",
		"image/png":                "[image image/png 71 bytes: data is not a PNG, not shown]",
		"image/jpeg":               "[image image/jpeg 71 bytes: data is not a JPEG, not shown]",
	} {
		assert.Equal(t, want, imageEntry(t, Options{}, "", Image{Media: media, Data: []byte(svg)}), media)
	}
}

func TestImageMediaCaseAndTypes(t *testing.T) {
	got := imageEntry(t, Options{}, "", Image{Media: "IMAGE/PNG", Data: []byte(pixelPNG)})
	assert.Regexp(t, pageImage, got)
	assert.True(t, strings.HasPrefix(got, "![image/png 73 bytes](data:image/png;base64,"), got)
	gif := base64.StdEncoding.EncodeToString([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
	assert.Regexp(t, pageImage, imageEntry(t, Options{}, "", Image{Media: "image/gif", Data: []byte(gif)}))
	webp := base64.StdEncoding.EncodeToString([]byte("RIFF\x1a\x00\x00\x00WEBPVP8L"))
	assert.Regexp(t, pageImage, imageEntry(t, Options{}, "", Image{Media: "image/webp", Data: []byte(webp)}))
}

func TestImageFromDataURL(t *testing.T) {
	img, ok := ImageFromDataURL([]byte(`data:image\/png;base64,` + pixelPNG))
	require.True(t, ok)
	assert.Equal(t, "image/png", img.Media)
	assert.Equal(t, pixelPNG, string(img.Data))
	for _, u := range []string{"https://example.com/a.png", "data:image/png,abc", "data:image/png;base64"} {
		_, ok := ImageFromDataURL([]byte(u))
		assert.False(t, ok, u)
	}
}

func TestImageInMessageAndPrompt(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Clock: pinned})
	png := []Image{{Media: "image/png", Data: []byte(pixelPNG)}}
	w.UserPrompt(Plain("what is this?"), png...)
	w.UserPrompt(Plain("")) // nothing: no entry
	w.Message(Message{Images: png})
	require.NoError(t, w.Close(Summary{Status: StatusSuccess}, nil))
	es := entries(t, out.Bytes())
	require.Equal(t, "init prompt message complete", types(es))
	text, img, _ := strings.Cut(es[1]["content"].(string), "\n\n")
	assert.Equal(t, "what is this?", text)
	assert.Regexp(t, pageImage, img)
	assert.Regexp(t, pageImage, es[2]["content"])
}

// No data, whatever its bytes, gets out of the image: the entry has one
// Markdown image or one placeholder, and the dialog is valid.
func FuzzImageCannotBreakOut(f *testing.F) {
	f.Add("image/png", pixelPNG)
	f.Add("image/png", "iVBORw0KGgo)](x)")
	f.Add("image/svg+xml", "PHN2Zy8+")
	f.Fuzz(func(t *testing.T, media, data string) {
		got := imageEntry(t, Options{}, "", Image{Media: media, Data: []byte(data)})
		if pageImage.MatchString(got) {
			return
		}
		if !strings.HasPrefix(got, "[image ") || !strings.HasSuffix(got, "]") || strings.ContainsAny(got, "()\n") {
			t.Fatalf("neither an image nor a placeholder: %q", got)
		}
	})
}
