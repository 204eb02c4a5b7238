package reconcile

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// syncEvent is one fsync atomicfile made: a file's content (path is where
// it is renamed to) or a directory.
type syncEvent struct {
	path string
	dir  bool
}

// recordSyncs records every fsync atomicfile makes until the test ends.
func recordSyncs(t *testing.T) func() []syncEvent {
	t.Helper()
	var mu sync.Mutex
	var events []syncEvent
	stop := atomicfile.ObserveSyncs(func(path string, dir bool) {
		mu.Lock()
		events = append(events, syncEvent{path, dir})
		mu.Unlock()
	})
	t.Cleanup(stop)
	return func() []syncEvent {
		mu.Lock()
		defer mu.Unlock()
		out := events
		events = nil
		return out
	}
}

// fsyncTargets: agent a writes n skill files, each in a directory of its
// own under .x/skills (missing), and a CLAUDE.md; agent o replaces the
// user's user.md (backing it up first).
func fsyncTargets(root string, n int) []*materialize.Target {
	var es []materialize.Entry
	for i := 0; i < n; i++ {
		es = append(es, materialize.Entry{Path: fmt.Sprintf(".x/skills/k%02d/SKILL.md", i), Mode: materialize.ModeFile, Content: []byte(fmt.Sprintf("skill %d\n", i))})
	}
	es = append(es, materialize.Entry{Path: "CLAUDE.md", Mode: materialize.ModeFile, Content: []byte("rules\n")})
	return []*materialize.Target{
		target(root, "a", schema.ConflictAppend, es...),
		target(root, "o", schema.ConflictOverwrite, materialize.Entry{Path: "user.md", Mode: materialize.ModeFile, Content: []byte("agent notes\n")}),
	}
}

// TestExecuteSyncsEachDirectoryOnce: a cold apply of n files, each in a
// new directory below one new parent, fsyncs every file's content once
// and every directory outside .actant once (not one per file renamed into
// it, nor one per new child directory), and makes all of it durable
// before the state that records it: each written file's content and every
// directory from its own up to the workspace are fsynced before
// state.json's content. The user's file is backed up durably (content and
// directory) before its new content is written. A prune then removes it
// all with each directory fsynced at most once.
func TestExecuteSyncsEachDirectoryOnce(t *testing.T) {
	const n = 20
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "user.md"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	events := recordSyncs(t)
	if _, err := execApply(t, root, fsyncTargets(root, n), nil); err != nil {
		t.Fatal(err)
	}
	ev := events()
	first := map[syncEvent]int{}
	count := map[syncEvent]int{}
	for i, e := range ev {
		if _, ok := first[e]; !ok {
			first[e] = i
		}
		count[e]++
	}
	meta := filepath.Join(root, MetaDir)
	for e, c := range count {
		if e.dir && e.path != root && !strings.HasPrefix(e.path, meta) && c != 1 {
			t.Errorf("directory %s fsynced %d times, want once", e.path, c)
		}
	}
	stateAt, ok := first[syncEvent{filepath.Join(meta, StateFile), false}]
	if !ok {
		t.Fatalf("state.json was not fsynced: %v", ev)
	}
	durableBefore := func(e syncEvent, at int, what string) {
		t.Helper()
		if i, ok := first[e]; !ok || i > at {
			t.Errorf("%s %s not fsynced before %s (at %d, %v)", map[bool]string{true: "directory", false: "file"}[e.dir], e.path, what, i, ok)
		}
	}
	written := []string{filepath.Join(root, "CLAUDE.md"), filepath.Join(root, "user.md")}
	for i := 0; i < n; i++ {
		written = append(written, filepath.Join(root, fmt.Sprintf(".x/skills/k%02d/SKILL.md", i)))
	}
	for _, f := range written {
		durableBefore(syncEvent{f, false}, stateAt, "the state")
		for d := filepath.Dir(f); ; d = filepath.Dir(d) {
			durableBefore(syncEvent{d, true}, stateAt, "the state")
			if d == root {
				break
			}
		}
	}
	var backup string
	for e := range count {
		if !e.dir && strings.HasPrefix(e.path, filepath.Join(meta, BackupDir)) {
			backup = e.path
		}
	}
	if backup == "" {
		t.Fatalf("no backup of user.md was written: %v", ev)
	}
	userAt := first[syncEvent{filepath.Join(root, "user.md"), false}]
	durableBefore(syncEvent{backup, false}, userAt, "user.md's new content")
	durableBefore(syncEvent{filepath.Dir(backup), true}, userAt, "user.md's new content")

	if _, err := execApply(t, root, nil, nil); err != nil {
		t.Fatal(err)
	}
	count = map[syncEvent]int{}
	for _, e := range events() {
		count[e]++
	}
	for e, c := range count {
		if e.dir && e.path != root && !strings.HasPrefix(e.path, meta) && c > 1 {
			t.Errorf("prune: directory %s fsynced %d times, want at most once", e.path, c)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".x")); !os.IsNotExist(err) {
		t.Errorf("prune left .x: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "user.md")); string(got) != "mine\n" {
		t.Errorf("prune: user.md = %q, want the user's bytes back", got)
	}
}

// TestDirTrees: the directories a plan makes, each once, in trees whose
// top's parent the plan does not make, parents before children.
func TestDirTrees(t *testing.T) {
	ops := []*Op{
		{MkDirs: []string{"/w/a", "/w/a/.claude", "/w/a/.claude/skills", "/w/a/.claude/skills/s1"}},
		{MkDirs: []string{"/w/a/.claude/skills/s2"}},
		{MkDirs: []string{"/w/b/.claude", "/w/b/.claude/skills"}},
		{Path: "/w/b/.claude/skills/s1", Dir: true},
		{MkDirs: []string{"/w/a", "/w/a/.claude"}},
		{MkDirs: []string{"/w/a-b"}},
		{Path: "/w/c", Dir: true},
	}
	want := [][]string{
		{"/w/a", "/w/a/.claude", "/w/a/.claude/skills", "/w/a/.claude/skills/s1", "/w/a/.claude/skills/s2"},
		{"/w/a-b"},
		{"/w/b/.claude", "/w/b/.claude/skills", "/w/b/.claude/skills/s1"},
		{"/w/c"},
	}
	if got := dirTrees(ops); !reflect.DeepEqual(got, want) {
		t.Errorf("dirTrees:\n got %q\nwant %q", got, want)
	}
}
