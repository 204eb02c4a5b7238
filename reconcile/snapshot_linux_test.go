package reconcile

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/actctl/actctl/materialize"
)

// TestSnapshotFastPath: the openat2 fast path finds exactly what the
// per-directory walk finds (files, directories, links inside the
// workspace, missing paths), and refuses what the walk refuses.
func TestSnapshotFastPath(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	write("a/b/SKILL.md", "skill\n")
	write("AGENTS.md", "agents\n")
	write("real/x.md", "x\n")
	write("empty.md", "")
	write("big.md", string(bytes.Repeat([]byte("0123456789"), 100000)))
	os.Mkdir(filepath.Join(dir, "logs"), 0o755)
	os.Symlink("AGENTS.md", filepath.Join(dir, "CLAUDE.md"))
	os.Symlink("real", filepath.Join(dir, "linked"))
	entries := []materialize.Entry{
		{Path: "a/b/SKILL.md", Mode: materialize.ModeFile},
		{Path: "a/c/SKILL.md", Mode: materialize.ModeFile},
		{Path: "new/deep/SKILL.md", Mode: materialize.ModeFile},
		{Path: "CLAUDE.md", Mode: materialize.ModeBlock},
		{Path: "AGENTS.md", Mode: materialize.ModeBlock},
		{Path: "linked/x.md", Mode: materialize.ModeFile},
		{Path: "empty.md", Mode: materialize.ModeFile},
		{Path: "big.md", Mode: materialize.ModeFile},
		{Path: "logs", Mode: materialize.ModeDir},
		{Path: "newlogs", Mode: materialize.ModeDir},
	}
	targets := []*materialize.Target{{Agent: "a", Dir: dir, Entries: entries}}
	take := func(fast bool) *Snapshot {
		openat2Unsupported.Store(!fast)
		defer openat2Unsupported.Store(false)
		s, err := TakeSnapshot(dir, targets)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	slow, fast := take(false), take(true)
	if len(fast.fastRefs) == 0 {
		t.Skip("openat2 not available here")
	}
	for abs, want := range slow.Files {
		got := fast.Files[abs]
		if got == nil || got.Real != want.Real || got.Exists != want.Exists || got.IsDir != want.IsDir || got.Perm != want.Perm || !bytes.Equal(got.Data, want.Data) {
			t.Errorf("%s: fast %+v, slow %+v", abs, got, want)
		}
	}
	for _, d := range []string{dir, filepath.Join(dir, "a"), filepath.Join(dir, "a/b"), filepath.Join(dir, "a/c"), filepath.Join(dir, "new"), filepath.Join(dir, "new/deep"), filepath.Join(dir, "linked")} {
		if fast.dirExists(d) != slow.dirExists(d) {
			t.Errorf("dir %s: fast %v, slow %v", d, fast.dirExists(d), slow.dirExists(d))
		}
	}

	// What the walk refuses, the fast path does not let through.
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "o.md"), []byte("o\n"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "escape"))
	os.Symlink(filepath.Join(outside, "o.md"), filepath.Join(dir, "out.md"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "isdir.md"), 0o755)
	for _, rel := range []string{"escape/o.md", "out.md", "fifo.md", "isdir.md"} {
		_, err := TakeSnapshot(dir, []*materialize.Target{{Agent: "a", Dir: dir, Entries: []materialize.Entry{{Path: rel, Mode: materialize.ModeFile}}}})
		if err == nil {
			t.Errorf("%s: no error", rel)
		}
	}
	if _, err := TakeSnapshot(dir, []*materialize.Target{{Agent: "a", Dir: dir, Entries: []materialize.Entry{{Path: "a/b/SKILL.md", Mode: materialize.ModeDir}}}}); err == nil {
		t.Errorf("a file wanted as a directory: no error")
	}
}
