package reconcile

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// TestScopedRendersItsDirectory: one agent's Status and Diff with
// Options.Scoped render only it and the agents of its directory (a
// count, whatever the team's size), and say of it what the whole
// workspace's run says.
func TestScopedRendersItsDirectory(t *testing.T) {
	root := t.TempDir()
	cfg := casConfig("v1", true) + "agents: other: {template: \"lead\", workDir: \"sub\"}\nagents: third: {template: \"lead\", workDir: \"sub\"}\n"
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	casApply(t, root, cfg, nil)
	// A hand edit of other's instructions: other is out of sync.
	if err := os.WriteFile(filepath.Join(root, "sub", "CLAUDE.md"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := schema.LoadDir(root, root+".home")
	if err != nil {
		t.Fatal(err)
	}
	// names: the agents rendered; read: those whose recorded files
	// are read.
	var names, read []string
	rendered = func(ts []*materialize.Target, st *State) {
		names = names[:0]
		for _, t := range ts {
			names = append(names, t.Agent)
		}
		read = slices.Sorted(maps.Keys(st.Agents))
	}
	defer func() { rendered = nil }()
	full, err := Status(c, Options{})
	if err != nil || len(names) != 3 || len(read) != 3 {
		t.Fatalf("whole workspace: rendered %v, %v", names, err)
	}
	for _, tc := range []struct {
		agent string
		want  []string
	}{{"lead", []string{"lead"}}, {"other", []string{"other", "third"}}} {
		o := Options{Only: []string{tc.agent}, Scoped: true}
		sts, err := Status(c, o)
		if err != nil || !slices.Equal(names, tc.want) || !slices.Equal(read, tc.want) {
			t.Fatalf("%s: rendered %v, read %v (%v), want %v", tc.agent, names, read, err, tc.want)
		}
		i := slices.IndexFunc(full, func(s AgentStatus) bool { return s.Name == tc.agent })
		if len(sts) != 1 || sts[0].Status != full[i].Status || !slices.Equal(sts[0].Details, full[i].Details) {
			t.Fatalf("%s: scoped %+v, whole workspace %+v", tc.agent, sts, full[i])
		}
		if _, _, err := Diff(c, o); err != nil || !slices.Equal(names, tc.want) {
			t.Fatalf("%s: diff rendered %v (%v), want %v", tc.agent, names, err, tc.want)
		}
	}
	if i := slices.IndexFunc(full, func(s AgentStatus) bool { return s.Name == "other" }); full[i].Status == Synced {
		t.Fatalf("other's edit not seen: %+v", full[i])
	}
}
