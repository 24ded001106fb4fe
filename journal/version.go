package journal

import (
	"runtime/debug"
	"sync"
)

// BuildVersion is the version of the binary that runs this code, from its
// build info: the module version a `go install …@vX` recorded ("vX"), else
// the source checkout's VCS revision (12 hex digits, "+dirty" when the tree
// had changes), else "dev". The server reports it in serverInfo, the CLI in
// `journal --version`, and every audit export in its head line.
var BuildVersion = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	return versionOf(bi)
})

// versionOf is BuildVersion for the build info bi.
func versionOf(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return rev
}
