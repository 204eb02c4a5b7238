package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestPrunedDir: the Result names the directory each agent it pruned (or,
// on a dry run, would prune) had in the state the apply planned from, and
// none for the agents it kept.
func TestPrunedDir(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	apply := func(cfg string, o Options) *Result {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := schema.LoadDir(root, home)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Apply(context.Background(), c, o)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	apply(casConfig("v1", true)+"agents: other: template: \"lead\"\nagents: other: workDir: \"sub\"\n", Options{})
	for _, dry := range []bool{true, false} {
		res := apply(casConfig("v1", true), Options{DryRun: dry})
		if !slices.Equal(res.Pruned, []string{"other"}) {
			t.Fatalf("dry run %v: pruned %v", dry, res.Pruned)
		}
		if got, want := res.PrunedDir("other"), filepath.Join(root, "sub"); got != want {
			t.Errorf("dry run %v: PrunedDir(other) = %q, want %q", dry, got, want)
		}
		if got := res.PrunedDir("lead"); got != "" {
			t.Errorf("dry run %v: PrunedDir(lead) = %q for a kept agent", dry, got)
		}
	}
}
