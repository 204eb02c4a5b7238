package materialize

import (
	"maps"
	"path/filepath"
	"slices"

	"github.com/actctl/actctl/schema"
)

// ShadowInputs are the absolute paths of the files Options.UserText is
// asked about when cfg renders: the instruction files, and the files they
// shadow, of every agent whose backend declares shadows. What apply writes
// depends on them, so its fast path (package inputs) watches them as
// inputs: a user's AGENTS.md created after an apply is a change. Each
// path comes once, in the order of the agents' names; a set keeps that
// linear in the number of agents (docs/benchmarks.md, "Apply at scale").
func ShadowInputs(cfg *schema.Config) []string {
	var out []string
	seen := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents)) {
		r, err := cfg.Resolve(name)
		if err != nil || r.Backend.Files.Shadows == nil {
			continue
		}
		f := r.Backend.Files
		for _, p := range append(slices.Clone(f.Instructions), f.Shadows.Files...) {
			abs := filepath.Join(r.Dir, filepath.FromSlash(p))
			if !seen[abs] {
				seen[abs] = true
				out = append(out, abs)
			}
		}
	}
	return out
}
