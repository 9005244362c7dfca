// Command release builds the release archives of sse-dialog-convert (make
// release): for each GOOS/GOARCH given, a static binary (CGO_ENABLED=0,
// -trimpath, no VCS stamp, an empty build id, the version stamped into
// main.version) packed with README.md, LICENSE, CHANGELOG.md and the man
// pages into NAME_VERSION_OS_ARCH.tar.gz (.zip for windows), then
// SHA256SUMS over the archives, in the form sha256sum -c reads.
//
// Usage: release -version vX.Y.Z -dist DIR -man DIR -epoch SECONDS OS/ARCH ...
//
// The same commit gives the same bytes: nothing depends on the time, the
// machine, the user or the folder the build runs in. Every archive entry
// has the time -epoch (make passes the commit's time), owner 0 and a fixed
// mode, and entries are in sorted order; gzip headers carry no name or
// time.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

const name = "sse-dialog-convert"

// file is one entry of an archive: its path inside the archive and its
// contents.
type file struct {
	path string
	data []byte
	exec bool
}

func main() {
	version := flag.String("version", "", "the version to stamp, a tag such as v0.1.0")
	dist := flag.String("dist", "dist", "the `folder` the archives and SHA256SUMS go to")
	manDir := flag.String("man", "", "the `folder` of man pages to pack (make man)")
	epoch := flag.Int64("epoch", -1, "the time of every archive entry, in Unix `seconds` (the commit's)")
	flag.Parse()
	if err := run(*version, *dist, *manDir, *epoch, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

var semver = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

func run(version, dist, manDir string, epoch int64, platforms []string) error {
	switch {
	case !semver.MatchString(version):
		return fmt.Errorf("-version %q is not a tag such as v0.1.0", version)
	case epoch < 0:
		return fmt.Errorf("-epoch is needed: the time of the archives' entries")
	case manDir == "":
		return fmt.Errorf("-man is needed: the man pages to pack")
	case len(platforms) == 0:
		return fmt.Errorf("no OS/ARCH given")
	}
	mtime := time.Unix(epoch, 0).UTC()
	docs, err := readDocs(manDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dist, 0o755); err != nil {
		return err
	}
	var archives []string
	for _, p := range platforms {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok {
			return fmt.Errorf("%q is not OS/ARCH", p)
		}
		bin, err := build(version, goos, goarch)
		if err != nil {
			return err
		}
		base := fmt.Sprintf("%s_%s_%s_%s", name, version, goos, goarch)
		exe := name
		if goos == "windows" {
			exe += ".exe"
		}
		files := append([]file{{path: exe, data: bin, exec: true}}, docs...)
		for i := range files {
			files[i].path = base + "/" + files[i].path
		}
		var archive []byte
		if goos == "windows" {
			base += ".zip"
			archive, err = zipArchive(files, mtime)
		} else {
			base += ".tar.gz"
			archive, err = tarGz(files, mtime)
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dist, base), archive, 0o644); err != nil {
			return err
		}
		fmt.Println(filepath.Join(dist, base))
		archives = append(archives, base)
	}
	return writeSums(dist, archives)
}

// readDocs returns the files every archive holds beside the binary.
func readDocs(manDir string) ([]file, error) {
	var docs []file
	for _, p := range []string{"README.md", "LICENSE", "CHANGELOG.md"} {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		docs = append(docs, file{path: p, data: b})
	}
	pages, err := filepath.Glob(filepath.Join(manDir, "*.1"))
	if err != nil {
		return nil, err
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("no man pages in %s (make man)", manDir)
	}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		docs = append(docs, file{path: "man/man1/" + filepath.Base(p), data: b})
	}
	return docs, nil
}

// build returns the static binary of the command for goos/goarch. The
// version is stamped; the VCS stamp is left out (-buildvcs=false), so a
// release prints its tag alone and a build of an unpacked source archive
// gives the same bytes as one of the clone.
func build(version, goos, goarch string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "release-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, name)
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -buildid= -X main.version="+version,
		"-o", out, "./cmd/sse-dialog-convert")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOFLAGS=")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	fmt.Fprintf(os.Stderr, "GOOS=%s GOARCH=%s %s\n", goos, goarch, strings.Join(cmd.Args, " "))
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go build for %s/%s: %w", goos, goarch, err)
	}
	return os.ReadFile(out)
}

// dirs returns the folders the files' paths need, each once, sorted.
func dirs(files []file) []string {
	seen := map[string]bool{}
	for _, f := range files {
		for d := path.Dir(f.path); d != "."; d = path.Dir(d) {
			seen[d+"/"] = true
		}
	}
	var out []string
	for d := range seen {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

func sorted(files []file) []file {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.path, b.path) })
	return files
}

func mode(f file) fs.FileMode {
	if f.exec {
		return 0o755
	}
	return 0o644
}

// tarGz packs files, folders first, in sorted order, owned by 0:0.
func tarGz(files []file, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(gz)
	for _, d := range dirs(files) {
		h := &tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755, ModTime: mtime, Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
	}
	for _, f := range sorted(files) {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: f.path, Mode: int64(mode(f)), Size: int64(len(f.data)),
			ModTime: mtime, Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// zipArchive packs files as tarGz does, for windows.
func zipArchive(files []file, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	for _, d := range dirs(files) {
		h := &zip.FileHeader{Name: d, Modified: mtime}
		h.SetMode(fs.ModeDir | 0o755)
		if _, err := zw.CreateHeader(h); err != nil {
			return nil, err
		}
	}
	for _, f := range sorted(files) {
		h := &zip.FileHeader{Name: f.path, Method: zip.Deflate, Modified: mtime}
		h.SetMode(mode(f))
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeSums writes DIST/SHA256SUMS: "HASH  NAME" per archive, sorted by
// name, as sha256sum prints and checks (sha256sum -c SHA256SUMS).
func writeSums(dist string, archives []string) error {
	slices.Sort(archives)
	var b strings.Builder
	for _, a := range archives {
		data, err := os.ReadFile(filepath.Join(dist, a))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), a)
	}
	fmt.Println(filepath.Join(dist, "SHA256SUMS"))
	return os.WriteFile(filepath.Join(dist, "SHA256SUMS"), []byte(b.String()), 0o644)
}
