// Package testbin builds the journal binary once for the test packages that
// drive it as a separate process (mcp/e2e, mcp/reliability).
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Repo returns the repository root.
func Repo() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// Build compiles ./cmd/journal into a new temporary directory and returns the
// binary's path and a function that removes the directory.
func Build(prefix string) (binary string, cleanup func(), err error) {
	tmp, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	binary = filepath.Join(tmp, "journal")
	build := exec.Command("go", "build", "-o", binary, "./cmd/journal")
	build.Dir = Repo()
	if out, err := build.CombinedOutput(); err != nil {
		os.RemoveAll(tmp)
		return "", nil, fmt.Errorf("go build ./cmd/journal: %v\n%s", err, out)
	}
	return binary, func() { os.RemoveAll(tmp) }, nil
}
