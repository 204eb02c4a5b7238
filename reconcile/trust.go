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
}

// trustNotes are the trust-gate notes (materialize.Target.TrustNotes) of
// the gated files this run created or updated, each distinct text once,
// in op order, with {files} replaced by the files it is about
// (docs/formats.md "Trust gates"); brief maps each note that names more
// than briefFiles files to its short form (Result.Brief). Linear in the
// number of ops: a cold apply of 10,000 agents writes 10,000 .mcp.json.
func trustNotes(targets []*materialize.Target, ops []*Op) (notes []string, brief map[string]string) {
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
				n = &trustNote{text: text, seen: map[string]bool{}}
				byText[text] = n
				order = append(order, n)
			}
			if !n.seen[op.Path] {
				n.seen[op.Path] = true
				n.files = append(n.files, op.Path)
			}
		}
	}
	for _, n := range order {
		full := strings.ReplaceAll(n.text, "{files}", strings.Join(n.files, ", "))
		notes = append(notes, full)
		if len(n.files) > briefFiles && strings.Contains(n.text, "{files}") {
			if brief == nil {
				brief = map[string]string{}
			}
			few := fmt.Sprintf("%s and %d more (apply -o json names every one)", strings.Join(n.files[:briefFiles], ", "), len(n.files)-briefFiles)
			brief[full] = strings.ReplaceAll(n.text, "{files}", few)
		}
	}
	return notes, brief
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
