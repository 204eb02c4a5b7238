package model

import (
	"fmt"
	"path/filepath"
	"strings"
)

// SessionCwd refuses dir as the client's project of an agent of the
// workspace at root, the session cwd it works in (docs/run.md, "What
// happens"; the MCP tool run_agent's cwd): a directory inside git's own
// directory (a .git component anywhere), or inside a directory of the
// workspace no agent may write (ProtectedDir: .git/, .actant/, cue.mod/
// at any depth, a root actant.* name). The client confines an agent's
// writes relative to its roots, and the session cwd is one: a root there
// would open what the protected set keeps. Symlinks are resolved first;
// a directory that cannot be resolved is left to the caller's own check.
func SessionCwd(root, dir string) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil
	}
	why := ""
	for _, part := range strings.Split(filepath.ToSlash(real), "/") {
		if lowerIs(part, ".git") {
			why = "it is inside .git/, git's own directory"
		}
	}
	if realRoot, err := filepath.EvalSymlinks(root); why == "" && err == nil {
		if rel, ok := RelWithin(realRoot, real); ok && rel != "." {
			why = ProtectedDir(rel)
		}
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("%s cannot be an agent's session cwd: %s, which no agent may write; give a project directory", dir, why)
}

// RelWithin returns path relative to dir when path is dir or inside it.
func RelWithin(dir, path string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}
