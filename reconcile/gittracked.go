package reconcile

import (
	"path/filepath"
	"strings"
	"sync"

	"github.com/actctl/actctl/schema"
	"github.com/go-git/go-git/v5"
)

// gitTracked returns the renderer's IsTracked: whether git tracks a path
// relative to a project agent's workspace. The git index is read once,
// lazily (only when a .gitignore block is rendered); without a repository
// nothing is tracked. The renderer's callback does not say which agent
// asks, so a path counts as tracked when it is tracked below any project
// agent's directory: it errs on the side of not ignoring.
func gitTracked(cfg *schema.Config) func(rel string) bool {
	var once sync.Once
	var tracked map[string]bool
	var dirs []string
	var wtRoot string
	load := func() {
		if !dotGitUsable(cfg.Root) {
			return
		}
		repo, err := git.PlainOpenWithOptions(cfg.Root, &git.PlainOpenOptions{DetectDotGit: true})
		if err != nil {
			return
		}
		wt, err := repo.Worktree()
		if err != nil {
			return
		}
		idx, err := repo.Storer.Index()
		if err != nil {
			return
		}
		wtRoot = wt.Filesystem.Root()
		if r, err := filepath.EvalSymlinks(wtRoot); err == nil {
			wtRoot = r
		}
		tracked = make(map[string]bool, len(idx.Entries)*2)
		for _, e := range idx.Entries {
			p := e.Name
			tracked[p] = true
			for i := strings.LastIndexByte(p, '/'); i > 0; i = strings.LastIndexByte(p[:i], '/') {
				if tracked[p[:i]] {
					break
				}
				tracked[p[:i]] = true
			}
		}
		seen := map[string]bool{}
		for name := range cfg.Agents {
			r, err := cfg.Resolve(name)
			if err != nil || r.Archetype.Workspace != schema.WorkspaceProject {
				continue
			}
			d := r.Dir
			if rd, err := filepath.EvalSymlinks(d); err == nil {
				d = rd
			}
			if !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	return func(rel string) bool {
		once.Do(load)
		if tracked == nil {
			return false
		}
		for _, d := range dirs {
			r, err := filepath.Rel(wtRoot, filepath.Join(d, filepath.FromSlash(rel)))
			if err != nil || strings.HasPrefix(r, "..") {
				continue
			}
			if tracked[filepath.ToSlash(r)] {
				return true
			}
		}
		return false
	}
}
