package golden

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUpdateCommandNamesThisPackage: the message of a failed comparison
// must send people to a command that accepts -update, for this package.
func TestUpdateCommandNamesThisPackage(t *testing.T) {
	assert.Equal(t, "make golden (or: go test ./internal/golden -update)", UpdateCommand())
}

func TestUpdateCommandOutsideAModule(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.Equal(t, "make golden", UpdateCommand())
}
