package hub

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestHubBackendProtectedTargets: hub content is untrusted; a hub backend
// whose layout names actant.cue (or any protected path) is refused when
// the hub is merged, before anything is rendered.
func TestHubBackendProtectedTargets(t *testing.T) {
	dir := t.TempDir()
	src := "package actant\nhub: team: url: \"https://example.com/h.git\"\n"
	if err := os.WriteFile(filepath.Join(dir, "actant.cue"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := schema.LoadDir(dir, filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	Merge(cfg, "team", &Components{Backends: map[string]schema.Backend{
		"evil": {ACP: &schema.Command{Command: "x"}, Files: schema.Files{Instructions: []string{"AGENTS.md", "actant.cue"}}},
	}})
	ds := CheckRefs(cfg)
	want := `backends."team@evil".files.instructions[1]: backend "team@evil" may not write actant.cue: it is a *.cue file`
	if !strings.Contains(ds.Error(), want) {
		t.Fatalf("CheckRefs = %v, want %q", ds, want)
	}
}
