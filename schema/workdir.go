package schema

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// workDirPath returns the absolute directory a workDir names: a leading
// "~/" (or "~" alone) is the user's home directory, an absolute path is
// taken as is, anything else is relative to the workspace root.
func (c *Config) workDirPath(wd string) string {
	if wd == "~" || strings.HasPrefix(wd, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(wd[1:], "/"))
		}
	}
	if filepath.IsAbs(wd) {
		return filepath.Clean(wd)
	}
	return filepath.Join(c.Root, wd)
}

// reservedDirs are directories no agent may be materialized into, at any
// depth: git's own and actctl's state.
var reservedDirs = []string{".git", ".actant"}

// CheckWorkDir explains why dir (absolute) cannot be an agent's workspace
// directory, or returns "": the file system root, the user's home
// directory itself, a .git or .actant directory or anything inside one.
// home is actctl's home ($ACTANT_HOME), which actctl manages itself.
func CheckWorkDir(dir, home string) string {
	dir = filepath.Clean(dir)
	if filepath.Dir(dir) == dir {
		return fmt.Sprintf("workDir %s is the root of the file system; choose a project directory", dir)
	}
	if userHome, err := os.UserHomeDir(); err == nil && sameDir(dir, userHome) {
		return fmt.Sprintf("workDir %s is your home directory itself, where the agent's files would become your user-wide settings; choose a project directory", dir)
	}
	if home != "" && Within(home, dir) {
		return fmt.Sprintf("workDir %s is inside the actctl home %s, which actctl manages itself; choose a directory outside it", dir, home)
	}
	for _, part := range strings.Split(filepath.ToSlash(dir), "/") {
		if slices.Contains(reservedDirs, part) {
			return fmt.Sprintf("workDir %s is inside a %s directory, which is not a place for an agent's files; choose a project directory", dir, part)
		}
	}
	return ""
}

// sameDir reports whether a and b name the same directory, also through
// symlinks.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// Within reports whether path is dir or inside it, lexically (both clean
// and absolute, or both relative to the same directory).
func Within(dir, path string) bool {
	_, ok := RelWithin(dir, path)
	return ok
}

// climbsOut explains why a relative workDir that leaves the workspace root
// ("../x") is refused, or returns "": one that means a directory outside
// the root says so with an absolute path (README, the list of checks).
func climbsOut(wd string) string {
	if wd == "" || wd == "~" || strings.HasPrefix(wd, "~/") || filepath.IsAbs(wd) {
		return ""
	}
	clean := filepath.Clean(wd)
	if clean != ".." && !strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return ""
	}
	return fmt.Sprintf("workDir %q climbs out of the workspace root; give an absolute path to mean a directory outside it", wd)
}

// missingWorkDir explains why dir, the directory a project agent's workDir
// wd names, cannot be used because it is not an existing directory, or
// returns "". actctl never creates a project agent's workDir: a typo would
// otherwise become a new directory full of agent files. The hint names a
// sibling directory with a close name when there is one.
func missingWorkDir(wd, dir string) string {
	if wd == "" {
		return ""
	}
	fi, err := os.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		return ""
	case err == nil:
		return fmt.Sprintf("workDir %s is not a directory", dir)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("workDir %s: %v", dir, err)
	}
	msg := fmt.Sprintf("workDir %s does not exist; actctl does not create it", dir)
	if s := nearDir(dir); s != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", filepath.Join(filepath.Dir(wd), s))
	}
	return msg + " (create it first, or correct the path)"
}

// nearDir returns the name of the directory next to dir whose name is
// closest to dir's, when one is close enough to be a typo of it.
func nearDir(dir string) string {
	entries, err := os.ReadDir(filepath.Dir(dir))
	if err != nil {
		return ""
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return suggest(filepath.Base(dir), names)
}
