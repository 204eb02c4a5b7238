package materialize

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestOwnershipAliasedDirs: a workDir that is a symlink to another agent's
// workDir (or a path through such a symlink, or one not created yet below
// it) names the same files; it is refused at the later agent with both
// spellings of the directory, and two agents owning one file is a
// conflict too. Blocks in one file through an alias are refused as well:
// the plan keys files by path, and the two names were written as two
// files (each apply saw the other's write as drift).
func TestOwnershipAliasedDirs(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(root, "alias")); err != nil {
		t.Skipf("symlink: %v", err)
	}
	// On some systems the temp directory itself is behind a symlink.
	resolvedRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	file := []Entry{{Path: "notes.md", Mode: ModeFile}}
	tests := []struct {
		name, a, b string
	}{
		{"symlink to the same directory", real, filepath.Join(root, "alias")},
		{"path through the symlink", filepath.Join(real, "sub"), filepath.Join(root, "alias", "sub")},
		{"not created yet", filepath.Join(real, "new"), filepath.Join(root, "alias", "new")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := []*Target{
				{Agent: "a", Dir: tt.a, Entries: file},
				{Agent: "b", Dir: tt.b, Entries: file},
			}
			ds := checkOwnership(&schema.Config{}, ts)
			if len(ds) != 2 || ds[0].Path != "agents.b" || ds[1].Path != "agents.b" {
				t.Fatalf("diagnostics: %v", ds)
			}
			resolved := strings.Replace(tt.a, root, resolvedRoot, 1)
			for _, w := range []string{"workDir " + tt.b + " is " + resolved + ", agent a's workDir " + tt.a + " under another name"} {
				if !strings.Contains(ds[0].Message, w) {
					t.Errorf("message lacks %q: %s", w, ds[0].Message)
				}
			}
			for _, w := range []string{"notes.md: file is owned by two agents", `agent "a" owns it`, "workDir " + tt.b + " is " + resolved} {
				if !strings.Contains(ds[1].Message, w) {
					t.Errorf("message lacks %q: %s", w, ds[1].Message)
				}
			}
		})
	}
	block := []Entry{{Path: "AGENTS.md", Mode: ModeBlock, Style: StyleHTML}}
	ts := []*Target{{Agent: "a", Dir: real, Entries: block}, {Agent: "b", Dir: filepath.Join(root, "alias"), Entries: block}}
	if ds := checkOwnership(&schema.Config{}, ts); len(ds) != 1 || !strings.Contains(ds[0].Message, "under another name") {
		t.Errorf("blocks through an alias: %v", ds)
	}
	// One directory under one name is fine for blocks.
	ts = []*Target{{Agent: "a", Dir: real, Entries: block}, {Agent: "b", Dir: real, Entries: block}}
	if ds := checkOwnership(&schema.Config{}, ts); len(ds) != 0 {
		t.Errorf("blocks in one directory: %v", ds)
	}
}

// TestProtectedWorkspacePaths: whatever an agent's workDir, no entry may
// land on the workspace's config, its modules, actctl's root files or
// .git/; a *.cue file below the root (a skill's example) is fine.
func TestProtectedWorkspacePaths(t *testing.T) {
	root := "/ws/proj"
	entries := func(paths ...string) []Entry {
		var es []Entry
		for _, p := range paths {
			es = append(es, Entry{Path: p, Mode: ModeFile})
		}
		return es
	}
	tests := []struct {
		name    string
		dir     string
		entries []Entry
		want    string // "" when allowed
	}{
		{"root lock", root, entries("CLAUDE.md", "actant.lock"), "/ws/proj/actant.lock: agent \"a\" may not write there: actant.lock at the root is actctl's own file"},
		{"root cue", root, entries("extra.cue"), "/ws/proj/extra.cue: agent \"a\" may not write there: it is a *.cue file"},
		{"workDir cue.mod", root + "/cue.mod", entries("CLAUDE.md"), "/ws/proj/cue.mod: agent \"a\" may not write there: it is inside cue.mod/"},
		{"workDir the root's parent", "/ws", entries("proj/actant.cue", "proj/README.md"), "/ws/proj/actant.cue: agent \"a\" may not write there: it is a *.cue file"},
		{"a skill's example", root, entries(".claude/skills/s/example.cue", "AGENTS.md"), ""},
		{"cue file below the root", root + "/sub", entries("x.cue"), ""},
		{"elsewhere", "/other", entries("actant.cue"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := checkProtected(&schema.Config{Root: root}, []*Target{{Agent: "a", Dir: tt.dir, Entries: tt.entries}})
			if tt.want == "" {
				if len(ds) != 0 {
					t.Fatalf("diagnostics: %v", ds)
				}
				return
			}
			if len(ds) != 1 || ds[0].Path != "agents.a" || !strings.Contains(ds[0].Message, tt.want) {
				t.Fatalf("diagnostics %v, want one at agents.a with %q", ds, tt.want)
			}
		})
	}
}
