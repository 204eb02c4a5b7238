package inputs

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync"
)

// Identity names this actctl build: the main module's version, its VCS
// revision and modified flag when the build recorded them, and the
// executable's own path, size, modification time and inode. The VCS data
// alone is not enough: a build from a modified tree keeps the revision
// of its last commit, and `go build` or `go run` of a work tree may
// record none; the executable's stat data changes with every build that
// replaces it. "" when the executable cannot be found: then nothing is
// recorded.
var Identity = sync.OnceValue(func() string {
	bi, _ := debug.ReadBuildInfo()
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return identity(bi, exe)
})

// identity is Identity for the build info bi and the executable at exe.
func identity(bi *debug.BuildInfo, exe string) string {
	st, err := statOf(exe, false, false)
	if err != nil || st.Missing {
		return ""
	}
	id := "devel"
	if bi != nil {
		id = bi.Main.Path + "@" + bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				id += " " + s.Key + "=" + s.Value
			}
		}
	}
	return fmt.Sprintf("%s exe=%s size=%d mtime=%d ctime=%d ino=%d dev=%d", id, exe, st.Size, st.Mtime, st.Ctime, st.Ino, st.Dev)
}
