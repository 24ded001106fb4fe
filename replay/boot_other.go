//go:build !linux

package replay

import (
	"io/fs"
	"time"
)

// bootTime returns the zero time: where the boot time is not known, a file
// holding neither content of a logged batch is always taken for someone
// else's change (see tornByPowerLoss). A variable: tests set it.
var bootTime = func() time.Time { return time.Time{} }

// changeTime is not known here.
func changeTime(fs.FileInfo) (time.Time, bool) { return time.Time{}, false }
