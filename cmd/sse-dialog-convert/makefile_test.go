package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMakeFuzzRunsEveryFuzzTarget: `make fuzz` lists its targets by hand
// (-fuzz takes one target of one package at a time); a new fuzz target left
// off the list only ever runs with its seeds.
func TestMakeFuzzRunsEveryFuzzTarget(t *testing.T) {
	root := filepath.Join("..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(internal/[a-z0-9/]+):(Fuzz\w+)`).FindAllStringSubmatch(string(mk), -1) {
		listed[m[1]+":"+m[2]] = true
	}
	fuzzFunc := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	var missing []string
	err = filepath.WalkDir(filepath.Join(root, "internal"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pkg, _ := filepath.Rel(root, filepath.Dir(path))
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(src), -1) {
			if target := filepath.ToSlash(pkg) + ":" + m[1]; !listed[target] {
				missing = append(missing, target)
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, missing, "fuzz targets not in the Makefile's FUZZ_TARGETS")
}

// TestMakeReleaseIsReproducible: make release builds twice into two
// folders gives the same bytes; SHA256SUMS holds the archives' hashes in
// the form sha256sum -c reads; the archive holds the binary, README.md,
// LICENSE and a man page per command, owned by 0; the binary is static and
// says the version it was given. Only linux/amd64: the five platforms take
// minutes with an empty build cache, this one well under one.
func TestMakeReleaseIsReproducible(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make here")
	}
	if testing.Short() {
		t.Skip("builds the release twice")
	}
	const version = "v0.1.0"
	var dists [2]string
	for i := range dists {
		dists[i] = filepath.Join(t.TempDir(), "dist")
		out, err := exec.Command("make", "-C", "../..", "release", "VERSION="+version,
			"DIST="+dists[i], "PLATFORMS=linux/amd64").CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	archive := name + "_" + version + "_linux_amd64.tar.gz"
	var got [2]map[string][]byte
	for i, dist := range dists {
		got[i] = map[string][]byte{}
		entries, err := os.ReadDir(dist)
		require.NoError(t, err)
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(dist, e.Name()))
			require.NoError(t, err)
			got[i][e.Name()] = b
		}
	}
	require.Contains(t, got[0], archive)
	require.Len(t, got[0], 2, "the archive and SHA256SUMS, no leftovers")
	for f, b := range got[0] {
		assert.True(t, bytes.Equal(b, got[1][f]), "%s differs between two builds of one commit", f)
	}

	sum := sha256.Sum256(got[0][archive])
	assert.Equal(t, hex.EncodeToString(sum[:])+"  "+archive+"\n", string(got[0]["SHA256SUMS"]))

	files := untar(t, got[0][archive])
	dir := strings.TrimSuffix(archive, ".tar.gz") + "/"
	for _, f := range []string{"README.md", "LICENSE", "CHANGELOG.md", "man/man1/" + name + ".1", "man/man1/" + name + "-run.1"} {
		assert.Contains(t, files, dir+f)
	}
	bin := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(bin, files[dir+name], 0o755))
	f, err := elf.Open(bin)
	require.NoError(t, err)
	defer f.Close()
	for _, p := range f.Progs {
		assert.NotEqual(t, elf.PT_INTERP, p.Type, "the binary names a dynamic loader")
	}
	out, err := exec.Command(bin, "--version").Output()
	require.NoError(t, err)
	assert.Equal(t, name+" version "+version+"\n", string(out))
}

// untar returns the regular files of a .tar.gz by name, and checks that
// every entry is owned by 0:0.
func untar(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(b))
	require.NoError(t, err)
	tr := tar.NewReader(gz)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		require.NoError(t, err)
		assert.Equal(t, [2]int{0, 0}, [2]int{h.Uid, h.Gid}, "%s: owner", h.Name)
		if h.Typeflag == tar.TypeReg {
			data, err := io.ReadAll(tr)
			require.NoError(t, err)
			files[h.Name] = data
		}
	}
}
