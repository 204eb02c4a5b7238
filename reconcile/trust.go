package reconcile

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/actctl/actctl/materialize"
)

// trustNotes are the trust-gate notes (materialize.Target.TrustNote) of
// the agents this run created or updated a gated file for, each once, in
// op order (docs/formats.md "Trust gates").
func trustNotes(targets []*materialize.Target, ops []*Op) []string {
	byAgent := map[string]*materialize.Target{}
	for _, t := range targets {
		if t.TrustNote != "" {
			byAgent[t.Agent] = t
		}
	}
	var notes []string
	for _, op := range ops {
		if op.Action != ActCreate && op.Action != ActUpdate && op.Action != ActRestore {
			continue
		}
		for _, a := range op.Agents {
			t := byAgent[a]
			if t == nil || slices.Contains(notes, t.TrustNote) || !gated(t, op.Path) {
				continue
			}
			notes = append(notes, t.TrustNote)
		}
	}
	return notes
}

// gated reports whether the absolute path p lies under one of t's trust
// paths. p is the real path (symlinks resolved), so t.Dir is resolved too
// when p is not under it as written.
func gated(t *materialize.Target, p string) bool {
	rel, err := filepath.Rel(t.Dir, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		real, rerr := filepath.EvalSymlinks(t.Dir)
		if rerr != nil {
			return false
		}
		if rel, err = filepath.Rel(real, p); err != nil || strings.HasPrefix(rel, "..") {
			return false
		}
	}
	rel = filepath.ToSlash(rel)
	for _, g := range t.TrustPaths {
		if strings.HasPrefix(rel, g) || rel == strings.TrimSuffix(g, "/") {
			return true
		}
	}
	return false
}
