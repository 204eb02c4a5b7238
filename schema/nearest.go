package schema

import (
	"cmp"
	"slices"
)

// Nearest returns candidates ordered by their edit distance to s, the
// nearest first (ties by name): what an error lists when s names none of
// them, such as the tags of a hub source.
func Nearest(s string, candidates []string) []string {
	out := slices.Clone(candidates)
	dist := make(map[string]int, len(out))
	for _, c := range out {
		dist[c] = levenshtein(s, c)
	}
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(dist[a], dist[b]), cmp.Compare(a, b))
	})
	return out
}
