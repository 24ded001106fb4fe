//go:build !linux

package replay

import "os"

// spares is empty where there is no O_TMPFILE: temps are created by name.
type spares struct{ on bool }

func (s *spares) take(Path) *os.File               { return nil }
func (s *spares) fill([]Path)                      {}
func (s *spares) link(*os.File, Path, string) bool { return false }
func (s *spares) close()                           {}
