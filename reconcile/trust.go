package reconcile

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/actctl/actctl/materialize"
)

// trustNote is one note being gathered: its text ({dir} filled) and the
// gated files written that it is about.
type trustNote struct {
	text  string
	files []string
}

// trustNotes are the trust-gate notes (materialize.Target.TrustNotes) of
// the gated files this run created or updated, each distinct text once,
// in op order, with {files} replaced by the files it is about
// (docs/formats.md "Trust gates").
func trustNotes(targets []*materialize.Target, ops []*Op) []string {
	byAgent := map[string]*materialize.Target{}
	for _, t := range targets {
		if len(t.TrustNotes) > 0 {
			byAgent[t.Agent] = t
		}
	}
	var notes []*trustNote
	for _, op := range ops {
		if op.Action != ActCreate && op.Action != ActUpdate && op.Action != ActRestore {
			continue
		}
		for _, a := range op.Agents {
			t := byAgent[a]
			if t == nil {
				continue
			}
			if text := t.TrustNotes[gate(t, op.Path)]; text != "" {
				notes = addTrustNote(notes, text, op.Path)
			}
		}
	}
	var out []string
	for _, n := range notes {
		out = append(out, strings.ReplaceAll(n.text, "{files}", strings.Join(n.files, ", ")))
	}
	return out
}

// addTrustNote adds file to the note with text, appending the note if it
// is new.
func addTrustNote(notes []*trustNote, text, file string) []*trustNote {
	i := slices.IndexFunc(notes, func(n *trustNote) bool { return n.text == text })
	if i < 0 {
		return append(notes, &trustNote{text: text, files: []string{file}})
	}
	if !slices.Contains(notes[i].files, file) {
		notes[i].files = append(notes[i].files, file)
	}
	return notes
}

// gate is the trust path of t that the absolute path p lies under, or "".
// p is the real path (symlinks resolved), so t.Dir is resolved too when p
// is not under it as written.
func gate(t *materialize.Target, p string) string {
	rel, err := filepath.Rel(t.Dir, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		real, rerr := filepath.EvalSymlinks(t.Dir)
		if rerr != nil {
			return ""
		}
		if rel, err = filepath.Rel(real, p); err != nil || strings.HasPrefix(rel, "..") {
			return ""
		}
	}
	rel = filepath.ToSlash(rel)
	for _, g := range t.TrustPaths {
		if strings.HasPrefix(rel, g) || rel == strings.TrimSuffix(g, "/") {
			return g
		}
	}
	return ""
}
