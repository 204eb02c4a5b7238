package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DirInside is the directory dir names inside the workspace root, with
// symlinks resolved, or an error saying why it is refused: a ".."
// component, a path that is not an existing directory, or one whose
// resolved path lies outside the root (a link out of it included). A
// relative dir is taken from the root. The check is made on the resolved
// path, which is the one returned, so a link changed afterwards does not
// move the result. It is the rule for a directory an agent names for
// another agent's session (actctl mcp's run_agent cwd, docs/run.md).
func DirInside(root, dir string) (string, error) {
	if slices.Contains(strings.Split(filepath.ToSlash(dir), "/"), "..") {
		return "", fmt.Errorf("cwd %s: a \"..\" component is not allowed; give a directory inside the workspace root %s", dir, root)
	}
	p := dir
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("workspace root %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("cwd %s: %w", dir, err)
	}
	if !Within(realRoot, real) {
		where := ""
		if real != filepath.Clean(p) {
			where = " (it resolves to " + real + ")"
		}
		return "", fmt.Errorf("cwd %s is outside the workspace root %s%s: an agent may name only a directory inside it", dir, root, where)
	}
	if fi, err := os.Stat(real); err != nil {
		return "", fmt.Errorf("cwd %s: %w", dir, err)
	} else if !fi.IsDir() {
		return "", fmt.Errorf("cwd %s is not a directory", dir)
	}
	return real, nil
}
