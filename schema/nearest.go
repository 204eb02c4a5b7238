package schema

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
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

// maxListedAgents bounds the agents an unknown-agent error lists when
// none is near the name.
const maxListedAgents = 8

// UnknownAgent is the one error every command gives for a name that is
// none of the agents known (declared, or applied where the command
// also takes those): `unknown agent "dve" (did you mean "dev"?)`.
func UnknownAgent(name string, known []string) error {
	msg := fmt.Sprintf("unknown agent %q", name)
	if s := suggest(name, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	} else if len(known) > 0 && len(known) <= maxListedAgents {
		msg += " (there are " + strings.Join(known, ", ") + ")"
	}
	return errors.New(msg)
}
