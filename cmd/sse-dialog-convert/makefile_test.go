package main

import (
	"os"
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
