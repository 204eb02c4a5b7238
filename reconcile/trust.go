package reconcile

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/actctl/actctl/materialize"
)

// briefFiles is how many files a note names for a person before it says
// how many more there are (Result.Brief).
const briefFiles = 3

// trustNote is one note being gathered: its text ({dir} filled) and the
// gated files written that it is about, each once.
type trustNote struct {
	text  string
	files []string
	seen  map[string]bool
	dir   string // the workspace of the agent it was first said for
	full  string // text with {files} filled: what Notes holds
}

// briefNote is a note as stderr says it (Result.Brief): text, or hidden
// when another note of the same kind stands for it.
type briefNote struct {
	text   string
	hidden bool
}

// trustNotes are the trust-gate notes (materialize.Target.TrustNotes) of
// the gated files this run created or updated, each distinct text once,
// in op order, with {files} replaced by the files it is about
// (docs/formats.md "Trust gates"); brief maps a note to its short form
// (Result.Brief): one that names more than briefFiles files names the
// first ones, and of the notes that differ only in their workspace
// ({dir}: one per Codex agent) the first stands for the rest when there
// are more than briefFiles. Linear in the number of ops: a cold apply of
// 10,000 agents writes 10,000 .mcp.json.
func trustNotes(targets []*materialize.Target, ops []*Op) (notes []string, brief map[string]briefNote) {
	byAgent := map[string]*materialize.Target{}
	for _, t := range targets {
		if len(t.TrustNotes) > 0 {
			byAgent[t.Agent] = t
		}
	}
	var order []*trustNote
	byText := map[string]*trustNote{}
	for _, op := range ops {
		if op.Action != ActCreate && op.Action != ActUpdate && op.Action != ActRestore {
			continue
		}
		for _, a := range op.Agents {
			t := byAgent[a]
			if t == nil {
				continue
			}
			text := t.TrustNotes[gate(t, op.Path)]
			if text == "" {
				continue
			}
			n := byText[text]
			if n == nil {
				n = &trustNote{text: text, seen: map[string]bool{}, dir: t.Dir}
				byText[text] = n
				order = append(order, n)
			}
			if !n.seen[op.Path] {
				n.seen[op.Path] = true
				n.files = append(n.files, op.Path)
			}
		}
	}
	brief = map[string]briefNote{}
	for _, n := range order {
		n.full = strings.ReplaceAll(n.text, "{files}", strings.Join(n.files, ", "))
		notes = append(notes, n.full)
		if len(n.files) > briefFiles && strings.Contains(n.text, "{files}") {
			few := fmt.Sprintf("%s and %d more (apply -o json names every one)", strings.Join(n.files[:briefFiles], ", "), len(n.files)-briefFiles)
			brief[n.full] = briefNote{text: strings.ReplaceAll(n.text, "{files}", few)}
		}
	}
	sameButDir(order, brief)
	return notes, brief
}

// sameButDir lets the first of more than briefFiles notes that differ only
// in their workspace directory stand for the others in brief, naming the
// first few other directories and how many more.
func sameButDir(order []*trustNote, brief map[string]briefNote) {
	groups := map[string][]*trustNote{}
	var kinds []string
	for _, n := range order {
		if len(n.dir) <= 1 || !strings.Contains(n.full, n.dir) {
			continue
		}
		kind := strings.ReplaceAll(n.full, n.dir, "{dir}")
		if groups[kind] == nil {
			kinds = append(kinds, kind)
		}
		groups[kind] = append(groups[kind], n)
	}
	for _, kind := range kinds {
		g := groups[kind]
		if len(g) <= briefFiles {
			continue
		}
		var dirs []string
		for _, n := range g[1 : briefFiles+1] {
			dirs = append(dirs, n.dir)
		}
		first := g[0].full
		if b, ok := brief[first]; ok {
			first = b.text
		}
		brief[g[0].full] = briefNote{text: fmt.Sprintf("%s\n(the same for %d more workspaces: %s and %d more; apply -o json names every one)", first, len(g)-1, strings.Join(dirs, ", "), len(g)-1-briefFiles)}
		for _, n := range g[1:] {
			brief[n.full] = briefNote{hidden: true}
		}
	}
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
