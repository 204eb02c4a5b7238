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
// inputs: a user's AGENTS.md created after an apply is a change.
func ShadowInputs(cfg *schema.Config) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents)) {
		r, err := cfg.Resolve(name)
		if err != nil || r.Backend.Files.Shadows == nil {
			continue
		}
		f := r.Backend.Files
		for _, p := range append(slices.Clone(f.Instructions), f.Shadows.Files...) {
			abs := filepath.Join(r.Dir, filepath.FromSlash(p))
			if !slices.Contains(out, abs) {
				out = append(out, abs)
			}
		}
	}
	return out
}
