// Package gitignored tells which files a workspace's apply wrote are
// ignored by the .gitignore files of an enclosing git repository above the
// workspace: git status does not list them, which a user looking for what
// apply wrote should be told (README, "Quick start").
package gitignored

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Above returns those of rels (slash-separated paths relative to root)
// that the .gitignore files of the git repository enclosing root ignore,
// counting only the .gitignore files in the directories above root (the
// repository's root down to root's parent; the workspace's own .gitignore,
// which apply may write, is not counted), and the first such file. With no
// enclosing repository, or root at its top, it returns nothing.
func Above(root string, rels []string) (ignored []string, file string) {
	repo, under := enclosingRepo(root)
	if repo == "" || len(under) == 0 {
		return nil, ""
	}
	var ps []gitignore.Pattern
	dir := repo
	for i := 0; i < len(under); i++ {
		p := filepath.Join(dir, ".gitignore")
		if read := patterns(p, under[:i]); len(read) > 0 {
			ps = append(ps, read...)
			if file == "" {
				file = p
			}
		}
		dir = filepath.Join(dir, under[i])
	}
	if len(ps) == 0 {
		return nil, ""
	}
	m := gitignore.NewMatcher(ps)
	for _, rel := range rels {
		parts := append(append([]string{}, under...), strings.Split(rel, "/")...)
		if ignoredPath(m, parts) {
			ignored = append(ignored, rel)
		}
	}
	if len(ignored) == 0 {
		file = ""
	}
	return ignored, file
}

// ignoredPath reports whether m ignores parts or one of its directories,
// as git does: nothing under an ignored directory is listed.
func ignoredPath(m gitignore.Matcher, parts []string) bool {
	for i := 1; i < len(parts); i++ {
		if m.Match(parts[:i], true) {
			return true
		}
	}
	return m.Match(parts, false)
}

// enclosingRepo returns the top of the git work tree holding root (the
// nearest directory with a .git) and root's path below it, in parts.
func enclosingRepo(root string) (repo string, under []string) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", nil
	}
	for dir := abs; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			rel, err := filepath.Rel(dir, abs)
			if err != nil || rel == "." {
				return dir, nil
			}
			return dir, strings.Split(filepath.ToSlash(rel), "/")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// patterns reads the .gitignore at p, its patterns applying below domain.
func patterns(p string, domain []string) []gitignore.Pattern {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}
