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
		if got := trustNotes(targets, c.ops); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
