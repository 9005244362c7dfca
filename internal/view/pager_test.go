package view

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPagerIsRunByTheShell: once the output fills a screen, the pager gets
// all of it on its stdin, what came before and what comes after; output
// shorter than a screen is written as it is.
func TestPagerIsRunByTheShell(t *testing.T) {
	var out, errOut bytes.Buffer
	p := NewPager(&out, &errOut, 2, "tr a-z A-Z")
	for _, s := range []string{"abc\n", "def\n", "ghi\n"} {
		_, err := p.Write([]byte(s))
		require.NoError(t, err)
	}
	require.NoError(t, p.Close())
	assert.Equal(t, "ABC\nDEF\nGHI\n", out.String())

	out.Reset()
	p = NewPager(&out, &errOut, 3, "tr a-z A-Z")
	_, err := p.Write([]byte("abc\ndef\n"))
	require.NoError(t, err)
	require.NoError(t, p.Close())
	assert.Equal(t, "abc\ndef\n", out.String(), "shorter than a screen: no pager")
}

// TestPagerQuitEarly: a pager quit before the end stops the drawing, and
// is no failure.
func TestPagerQuitEarly(t *testing.T) {
	var out, errOut bytes.Buffer
	p := NewPager(&out, &errOut, 1, "head -c 1 >/dev/null")
	line := []byte(strings.Repeat("x", 1<<10) + "\n")
	var err error
	for i := 0; i < 1<<12 && err == nil; i++ { // 4 MiB: more than a pipe holds
		_, err = p.Write(line)
	}
	assert.ErrorIs(t, err, ErrPagerQuit)
	assert.NoError(t, p.Close())
}

// TestPagerNotes: the conversion's warnings go to stderr until a pager
// owns the terminal, are kept while it runs (not drawn into its screen),
// and come out once it is quit.
func TestPagerNotes(t *testing.T) {
	var stderr bytes.Buffer
	n := PagerNotes{w: &stderr}
	fmt.Fprintln(&n, "before")
	n.page()
	fmt.Fprintln(&n, "while")
	assert.Equal(t, "before\n", stderr.String(), "nothing reaches the terminal while the pager runs")
	n.flush()
	assert.Equal(t, "before\nwhile\n", stderr.String())
	n.page()
	n.Write(make([]byte, maxPagerNotes+1))
	n.flush()
	assert.Contains(t, stderr.String(), fmt.Sprintf("%d more bytes of warnings left out while the pager ran", maxPagerNotes+1))
}
