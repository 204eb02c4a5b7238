package reconcile

import (
	"reflect"
	"testing"

	"github.com/actctl/actctl/materialize"
)

func TestTrustNotes(t *testing.T) {
	targets := []*materialize.Target{
		{Agent: "cx", Dir: "/ws", TrustPaths: []string{".codex/"}, TrustNotes: map[string]string{".codex/": "trust /ws"}},
		{Agent: "cx2", Dir: "/ws/sub", TrustPaths: []string{".codex/"}, TrustNotes: map[string]string{".codex/": "trust /ws/sub"}},
		{Agent: "cl", Dir: "/ws"},
		{Agent: "c1", Dir: "/c1", TrustPaths: []string{"s.json", "m.json"}, TrustNotes: map[string]string{"s.json": "s in {files}", "m.json": "m in {files}"}},
		{Agent: "c2", Dir: "/c2", TrustPaths: []string{"s.json", "m.json"}, TrustNotes: map[string]string{"s.json": "s in {files}", "m.json": "m in {files}"}},
	}
	op := func(p string, a Action, agents ...string) *Op { return &Op{Path: p, Action: a, Agents: agents} }
	cases := []struct {
		name string
		ops  []*Op
		want []string
	}{
		{"created gated file", []*Op{op("/ws/AGENTS.md", ActUpdate, "cx"), op("/ws/.codex/config.toml", ActCreate, "cx"), op("/ws/.codex/agents/a.toml", ActCreate, "cx")}, []string{"trust /ws"}},
		{"ungated files only", []*Op{op("/ws/AGENTS.md", ActCreate, "cx"), op("/ws/.codexrc", ActCreate, "cx")}, nil},
		{"deleted gated file", []*Op{op("/ws/.codex/config.toml", ActDelete, "cx")}, nil},
		{"agent without a gate", []*Op{op("/ws/.codex/config.toml", ActUpdate, "cl")}, nil},
		{"two agents", []*Op{op("/ws/sub/.codex/config.toml", ActUpdate, "cx2"), op("/ws/.codex/config.toml", ActRestore, "cx")}, []string{"trust /ws/sub", "trust /ws"}},
		{"a note per gate, naming only the files written", []*Op{op("/c1/m.json", ActCreate, "c1")}, []string{"m in /c1/m.json"}},
		{"one note for two agents", []*Op{op("/c1/m.json", ActCreate, "c1"), op("/c2/m.json", ActCreate, "c2"), op("/c2/s.json", ActUpdate, "c2")}, []string{"m in /c1/m.json, /c2/m.json", "s in /c2/s.json"}},
		{"another agent's directory", []*Op{op("/ws/.codex/config.toml", ActCreate, "cx2")}, nil},
	}
	for _, c := range cases {
		if got, _ := trustNotes(targets, c.ops); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestTrustNoteBrief: a note about more than briefFiles files has a short
// form naming the first ones and how many more; the note itself names
// every file, each once; a note about fewer has none.
func TestTrustNoteBrief(t *testing.T) {
	var targets []*materialize.Target
	var ops []*Op
	for _, a := range []string{"a", "b", "c", "d", "e"} {
		targets = append(targets, &materialize.Target{Agent: a, Dir: "/" + a, TrustPaths: []string{"m.json"}, TrustNotes: map[string]string{"m.json": "m in {files}."}})
		ops = append(ops, &Op{Path: "/" + a + "/m.json", Action: ActCreate, Agents: []string{a, a}})
	}
	notes, brief := trustNotes(targets, ops)
	full := "m in /a/m.json, /b/m.json, /c/m.json, /d/m.json, /e/m.json."
	if !reflect.DeepEqual(notes, []string{full}) {
		t.Fatalf("notes %q", notes)
	}
	res := &Result{Notes: notes, brief: brief}
	if got, ok := res.Brief(full); !ok || got != "m in /a/m.json, /b/m.json, /c/m.json and 2 more (apply -o json names every one)." {
		t.Errorf("brief %q, %v", got, ok)
	}
	if got, ok := res.Brief("another note"); !ok || got != "another note" {
		t.Errorf("another note: %q, %v", got, ok)
	}
	notes, brief = trustNotes(targets[:3], ops[:3])
	if len(brief) != 0 || !reflect.DeepEqual(notes, []string{"m in /a/m.json, /b/m.json, /c/m.json."}) {
		t.Errorf("three files: %q, %v", notes, brief)
	}
}

// TestTrustNoteSameButDir: of more than briefFiles notes that differ only
// in their workspace (Codex's {dir}), the first stands for the others on
// stderr, naming the next few directories and how many more; Notes keeps
// every one. Fewer are each said.
func TestTrustNoteSameButDir(t *testing.T) {
	var targets []*materialize.Target
	var ops []*Op
	for _, a := range []string{"a", "b", "c", "d", "e"} {
		targets = append(targets, &materialize.Target{Agent: a, Dir: "/w/" + a, TrustPaths: []string{".codex/"}, TrustNotes: map[string]string{".codex/": "trust /w/" + a + ":\n  [projects.\"/w/" + a + "\"]"}})
		ops = append(ops, &Op{Path: "/w/" + a + "/.codex/config.toml", Action: ActCreate, Agents: []string{a}})
	}
	notes, brief := trustNotes(targets, ops)
	res := &Result{Notes: notes, brief: brief}
	var said []string
	for _, n := range res.Notes {
		if b, ok := res.Brief(n); ok {
			said = append(said, b)
		}
	}
	want := []string{"trust /w/a:\n  [projects.\"/w/a\"]\n(the same for 4 more workspaces: /w/b, /w/c, /w/d and 1 more; apply -o json names every one)"}
	if len(notes) != 5 || !reflect.DeepEqual(said, want) {
		t.Errorf("notes %q\nsaid %q\nwant %q", notes, said, want)
	}
	notes, brief = trustNotes(targets[:3], ops[:3])
	res = &Result{Notes: notes, brief: brief}
	for _, n := range notes {
		if b, ok := res.Brief(n); !ok || b != n {
			t.Errorf("three workspaces: %q said as %q, %v", n, b, ok)
		}
	}
}
