package schema

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// checkTrust refuses a trust gate of backend name whose path has no note
// (neither note nor notes[path]), and a note for no path
// (docs/formats.md, "Trust gates").
func (c *Config) checkTrust(name string) Diagnostics {
	tr := c.Backends[name].Trust
	if tr == nil {
		return nil
	}
	var ds Diagnostics
	if tr.Note == "" {
		for _, p := range tr.Paths {
			if tr.Notes[p] == "" {
				ds = append(ds, c.Diag(Path("backends", name, "trust"), "trust path %q has no note: give trust.note, or trust.notes: %q: \"...\"", p, p))
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(tr.Notes)) {
		if !slices.Contains(tr.Paths, p) {
			ds = append(ds, c.Diag(Path("backends", name, "trust", "notes", p), "a note for %q, which is not one of trust.paths (%s)", p, quoteAll(tr.Paths)))
		}
	}
	return ds
}

// quoteAll is ss quoted, comma-separated.
func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
