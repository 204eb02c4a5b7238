package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/importer"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/watch"
)

// twoAgents declares two agents of a backend defined here, each in a
// directory of its own.
const twoAgents = `package actant
backends: fake: {
	modes: ["acp"]
	acp: command: "fake-agent"
	files: instructions: ["FAKE.md"]
}
prompts: p: content: "Be helpful."
templates: tool: {backend: "fake", prompts: ["p"]}
agents: {
	helper: {template: "tool", workDir: "a"}
	other: {template: "tool", workDir: "b"}
}
`

// newWorkspace writes files under a new workspace root, an hour old (the
// stat data of a file written just before an apply starts is racy: see
// inputs.Stat), and returns the options of a workflow on it (home in a
// directory of its own), its stderr and debug lines collected.
func newWorkspace(t *testing.T, files map[string]string) (o Options, stderr, debug *strings.Builder) {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFiles(t, root, files)
	old := time.Now().Add(-time.Hour)
	for rel := range files {
		if err := os.Chtimes(filepath.Join(root, rel), old, old); err != nil {
			t.Fatal(err)
		}
	}
	stderr, debug = &strings.Builder{}, &strings.Builder{}
	return Options{Dir: root, Home: filepath.Join(t.TempDir(), "home"), Stderr: stderr, Debug: debug}, stderr, debug
}

// writeFiles writes files (slash paths) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// apply runs Apply with ao's flags on o's workspace and returns what it
// printed.
func apply(t *testing.T, o Options, ao ApplyOptions) *Result {
	t.Helper()
	var got *Result
	ao.Options, ao.Start = o, time.Now()
	ao.Print = func(res *Result, err error) error { got = res; return err }
	if err := Apply(context.Background(), ao); err != nil {
		t.Fatalf("apply: %v", err)
	}
	return got
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// TestApplyTwiceNoChange: a second apply of an unchanged workspace changes
// nothing; the first plain apply recorded its inputs, so the second plain
// one takes the fast path, and a third, not plain, finds nothing to do
// either.
func TestApplyTwiceNoChange(t *testing.T) {
	o, stderr, debug := newWorkspace(t, map[string]string{"actant.cue": twoAgents})
	first := apply(t, o, ApplyOptions{Plain: true})
	if first.Counts.Changed == 0 || !exists(filepath.Join(o.Dir, "a", "FAKE.md")) {
		t.Fatalf("first apply: %s, a/FAKE.md written: %v", first.Summary(), exists(filepath.Join(o.Dir, "a", "FAKE.md")))
	}
	debug.Reset()
	second := apply(t, o, ApplyOptions{Plain: true})
	if second.Summary() != "no changes" || len(second.Items) != 0 {
		t.Errorf("second apply: %s, %d items", second.Summary(), len(second.Items))
	}
	if !strings.Contains(debug.String(), "fast path") {
		t.Errorf("second plain apply did not take the fast path: %q", debug.String())
	}
	third := apply(t, o, ApplyOptions{Force: true})
	if third.Summary() != "no changes" || len(third.Items) != 0 {
		t.Errorf("third apply: %s, %v", third.Summary(), third.Items)
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", stderr)
	}
}

// TestApplyPrunesRuntimeRecords: an agent removed from the config is
// pruned with its runtime record and proxy log, and the directories they
// were in go when they are left empty.
func TestApplyPrunesRuntimeRecords(t *testing.T) {
	o, _, _ := newWorkspace(t, map[string]string{"actant.cue": twoAgents})
	apply(t, o, ApplyOptions{})
	record := filepath.Join(o.Dir, "b", ".actant", "agents", "other.json")
	log := filepath.Join(o.Dir, "b", ".actant", "logs", "other.log")
	writeFiles(t, filepath.Join(o.Dir, "b"), map[string]string{
		".actant/agents/other.json": `{"status": "stopped", "processOwnership": "proxy"}` + "\n",
		".actant/logs/other.log":    "a session\n",
	})
	// The edit lands whole (written elsewhere, renamed into place), as an
	// editor saves: with a 1 ms debounce a write in place could be read
	// half done, a failed cycle that the next event would mend.
	edited := filepath.Join(t.TempDir(), "actant.cue")
	writeFiles(t, filepath.Dir(edited), map[string]string{"actant.cue": strings.Replace(twoAgents, "\tother: {template: \"tool\", workDir: \"b\"}\n", "", 1)})
	if err := os.Rename(edited, filepath.Join(o.Dir, "actant.cue")); err != nil {
		t.Fatal(err)
	}
	res := apply(t, o, ApplyOptions{})
	if !slices.Equal(res.Pruned, []string{"other"}) {
		t.Fatalf("pruned %v, want [other]", res.Pruned)
	}
	for _, p := range []string{filepath.Join(o.Dir, "b", "FAKE.md"), record, log, filepath.Join(o.Dir, "b", ".actant")} {
		if exists(p) {
			t.Errorf("%s is left after the prune", p)
		}
	}
	if !exists(filepath.Join(o.Dir, "a", "FAKE.md")) {
		t.Error("the agent still declared lost its file")
	}
}

// TestImportRoundTrip: import writes actant.cue from the files a
// repository has and applies it, adopting them byte for byte; an apply
// after it has nothing to do.
func TestImportRoundTrip(t *testing.T) {
	o, _, _ := newWorkspace(t, nil)
	claude := "# Rules\n\nBe brief.\n"
	writeFiles(t, o.Dir, map[string]string{"CLAUDE.md": claude})
	plan, err := importer.Scan(o.Dir, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Import(context.Background(), o, plan)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if res.Counts.Conflicts != 0 || !exists(filepath.Join(o.Dir, "actant.cue")) {
		t.Fatalf("import: %s, actant.cue written: %v", res.Summary(), exists(filepath.Join(o.Dir, "actant.cue")))
	}
	if b, err := os.ReadFile(filepath.Join(o.Dir, "CLAUDE.md")); err != nil || !strings.Contains(string(b), claude) {
		t.Errorf("CLAUDE.md after import: %q, %v", b, err)
	}
	again := apply(t, o, ApplyOptions{})
	if again.Summary() != "no changes" {
		t.Errorf("apply after import: %s, %v", again.Summary(), again.Items)
	}
}

// TestDelete: an ad-hoc agent never applied is forgotten without an
// apply; one applied is pruned (Print gets the apply) and forgotten; a
// declared agent is refused, and nothing changes.
func TestDelete(t *testing.T) {
	o, _, _ := newWorkspace(t, map[string]string{"actant.cue": twoAgents})
	ctx := context.Background()
	for _, n := range []string{"copy", "fresh"} {
		if err := agentprep.RecordAdhoc(ctx, o.Dir, o.Home, n, &schema.Agent{Template: "tool", WorkDir: "c-" + n}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(o.Dir, "c-copy"), 0o755); err != nil {
		t.Fatal(err)
	}
	apply(t, o, ApplyOptions{Only: []string{"copy"}})
	copyFile := filepath.Join(o.Dir, "c-copy", "FAKE.md")
	if !exists(copyFile) {
		t.Fatal("the ad-hoc agent was not applied")
	}

	del := func(names ...string) (forgotten []string, printed *Result, err error) {
		forgotten, err = Delete(ctx, DeleteOptions{Options: o, Names: names,
			Print: func(res *Result, err error) error { printed = res; return err }})
		return forgotten, printed, err
	}
	_, _, err := del("helper")
	var ds schema.Diagnostics
	if !errors.As(err, &ds) || !strings.Contains(err.Error(), "delete removes only agents actctl proxy created") {
		t.Errorf("delete of a declared agent: %v", err)
	}
	forgotten, printed, err := del("fresh")
	if err != nil || !slices.Equal(forgotten, []string{"fresh"}) || printed != nil {
		t.Errorf("delete fresh: forgotten %v, printed %v, %v", forgotten, printed, err)
	}
	forgotten, printed, err = del("copy")
	if err != nil || forgotten != nil || printed == nil || !slices.Equal(printed.Pruned, []string{"copy"}) {
		t.Fatalf("delete copy: forgotten %v, printed %v, %v", forgotten, printed, err)
	}
	if exists(copyFile) {
		t.Error("the deleted agent's file is left")
	}
	if rec, _, err := schema.AdhocAgents(o.Dir, o.Home); err != nil || len(rec) != 0 {
		t.Errorf("ad-hoc agents left: %v, %v", rec, err)
	}
}

// TestWatchAppliesChanges: Watch applies at once, then again when the
// config changes (here: an agent removed, whose files the next cycle
// prunes); After gets each cycle's config and result; the end of its
// context ends it without an error.
func TestWatchAppliesChanges(t *testing.T) {
	o, _, _ := newWorkspace(t, map[string]string{"actant.cue": twoAgents})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cycles := make(chan *Result)
	done := make(chan error, 1)
	var edited atomic.Bool
	go func() {
		done <- Watch(ctx, WatchOptions{Options: o, Root: o.Dir, Debounce: time.Millisecond,
			After: func(cfg *schema.Config, res *Result, err error) {
				if (err != nil || cfg == nil) && !edited.Load() {
					t.Errorf("cycle: config %v, %v", cfg != nil, err)
				}
				select { // a cycle after the test stopped reading must not block Watch's end
				case cycles <- res:
				case <-ctx.Done():
				}
			},
			Report: func(watch.Cycle) {}})
	}()
	if first := <-cycles; first == nil || first.Counts.Changed == 0 {
		t.Fatalf("first cycle: %v", first)
	}
	// A write in place can be read half done by a cycle (1 ms debounce):
	// that cycle fails, and the write's next event runs another. The cycle
	// of the whole edit prunes the agent; one before it (a half-read
	// file's, or one the first apply's own writes woke) is skipped.
	edited.Store(true)
	writeFiles(t, o.Dir, map[string]string{"actant.cue": strings.Replace(twoAgents, "\tother: {template: \"tool\", workDir: \"b\"}\n", "", 1)})
	for next := range cycles {
		if next != nil && slices.Equal(next.Pruned, []string{"other"}) {
			break
		}
		if next != nil && next.Counts.Changed != 0 {
			t.Fatalf("cycle after the edit: %+v", next)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("watch ended with %v, want nil once its context ends", err)
	}
	if exists(filepath.Join(o.Dir, "b", "FAKE.md")) {
		t.Error("the removed agent's file is left")
	}
}
