package reconcile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// The user's files of the crash tests: after the final prune each must
// have exactly these bytes, and nothing else may be left.
var crashUserFiles = map[string]string{
	"CLAUDE.md":   "# mine\r\n\r\nBe nice.",
	".mcp.json":   "{\n  // my servers\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"my-server\"}\n  }\n}\n",
	"user.md":     "my own notes\n",
	"src/main.go": "package main\n",
}

// crashTargets renders one version of the crash tests' config: agent a
// (append) owns skill files, a block, keys in the user's .mcp.json and in
// a file of its own, and a directory; agent o (overwrite) replaces the
// user's user.md. Version "" declares no agent (the prune).
func crashTargets(root, version string) []*materialize.Target {
	if version == "" {
		return nil
	}
	key := func(v string) []materialize.Key {
		return []materialize.Key{{Path: []string{"mcpServers", "fs"}, Value: []byte(`{"command":"fs-` + v + `"}`)}}
	}
	a := target(root, "a", schema.ConflictAppend,
		materialize.Entry{Path: ".x/skills/k0/SKILL.md", Mode: materialize.ModeFile, Content: []byte("skill 0 " + version + "\n")},
		materialize.Entry{Path: ".x/skills/k1/SKILL.md", Mode: materialize.ModeFile, Content: []byte("skill 1 " + version + "\n")},
		materialize.Entry{Path: "CLAUDE.md", Mode: materialize.ModeBlock, Style: "html", Content: []byte("rules " + version + "\n")},
		materialize.Entry{Path: ".mcp.json", Mode: materialize.ModeKeys, Format: "json", Keys: key(version)},
		materialize.Entry{Path: ".x/settings.json", Mode: materialize.ModeKeys, Format: "json", Keys: key(version)},
		materialize.Entry{Path: "var/logs", Mode: materialize.ModeDir},
	)
	o := target(root, "o", schema.ConflictOverwrite,
		materialize.Entry{Path: "user.md", Mode: materialize.ModeFile, Content: []byte("agent notes " + version + "\n")},
	)
	return []*materialize.Target{a, o}
}

// crashApply is Apply without the config, the renderer and the lock: the
// recorded state and journal are read, the plan made and executed with
// the crash hook set to crash. It returns errCrashed when crash stopped it.
func crashApply(t *testing.T, root, version string, crash func(string) bool) error {
	t.Helper()
	st, data, err := ReadState(metaPath(root, StateFile))
	if err != nil {
		t.Fatal(err)
	}
	var pending *State
	if _, err := os.Stat(metaPath(root, PendingFile)); err == nil {
		if pending, _, err = ReadState(metaPath(root, PendingFile)); err != nil {
			t.Fatal(err)
		}
	}
	r := &run{cfg: &schema.Config{Root: root}, targets: crashTargets(root, version)}
	if err := r.makePlan(st, data, pending, Options{}); err != nil {
		t.Fatal(err)
	}
	if c := r.plan.Conflicts(); len(c) > 0 {
		t.Fatalf("version %q: conflicts %+v", version, c)
	}
	r.crash = crash
	if _, err := r.execute(context.Background()); err != nil {
		if errors.Is(err, errCrashed) {
			return err
		}
		t.Fatalf("version %q: %v", version, err)
	}
	// Apply's epilogue: with no agent left, .actant goes.
	if _, err := os.Stat(metaPath(root, StateFile)); errors.Is(err, fs.ErrNotExist) {
		if entries, _ := os.ReadDir(filepath.Join(root, MetaDir)); onlyLockAndEmptyBackup(root, entries) {
			removeMetaIfEmpty(root)
		}
	}
	return nil
}

// crashSteps applies version and returns the steps it went through.
func crashSteps(t *testing.T, root, version string) []string {
	t.Helper()
	var steps []string
	if err := crashApply(t, root, version, func(s string) bool { steps = append(steps, s); return false }); err != nil {
		t.Fatal(err)
	}
	return steps
}

// tree is every file (with its bytes) and directory below root, as
// "path" -> content ("/" for a directory).
func tree(t *testing.T, root string, withMeta bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if !withMeta && rel == MetaDir {
			return filepath.SkipDir
		}
		if d.IsDir() {
			out[rel] = "/"
			return nil
		}
		// actant.owned included, byte for byte: it is a function of
		// the outputs, the same after a kill and a re-apply as after
		// an uninterrupted apply (no counter or history in it).
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffTrees(got, want map[string]string) string {
	var out []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			out = append(out, "missing "+p)
		} else if g != w {
			out = append(out, fmt.Sprintf("%s: got %q, want %q", p, g, w))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			out = append(out, "extra "+p)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// raceEnabled: built with -race (race_test.go), where the replays are
// slow: the double kills are sampled, as with -short.
var raceEnabled bool

// crashDir is a fresh directory for one replay: on tmpfs when there is
// one (/dev/shm), where fsync costs nothing — the replays count steps,
// they do not test the disk.
func crashDir(t *testing.T) string {
	t.Helper()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "actctl-crash-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

func userTree(t *testing.T) string {
	t.Helper()
	root := crashDir(t)
	for n, c := range crashUserFiles {
		p := filepath.Join(root, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestCrashConverges simulates a kill -9 before every step of Execute
// (journal, each backup, directory, write, deletion, the state, the
// journal's removal), once or twice in a row across config changes, and
// checks that the next apply converges to what an uninterrupted apply
// writes, the one after it writes nothing, and the final prune returns
// the exact original tree: the user's bytes, no file or directory of
// actctl's, no .actant.
func TestCrashConverges(t *testing.T) {
	// What an uninterrupted apply of each version writes into the user's
	// tree, and the original tree itself.
	want := map[string]map[string]string{}
	var orig map[string]string
	for _, v := range []string{"A", "B", ""} {
		root := userTree(t)
		orig = tree(t, root, true)
		if err := crashApply(t, root, v, nil); err != nil {
			t.Fatal(err)
		}
		want[v] = tree(t, root, false)
	}
	if d := diffTrees(want[""], orig); d != "" {
		t.Fatalf("a prune of nothing changed the tree:\n%s", d)
	}

	// converge applies version v (no crash) and checks the result, then
	// prunes and checks the original tree is back.
	converge := func(t *testing.T, root, v, what string) {
		t.Helper()
		if err := crashApply(t, root, v, nil); err != nil {
			t.Fatal(err)
		}
		if d := diffTrees(tree(t, root, false), want[v]); d != "" {
			t.Fatalf("%s: apply %q did not converge:\n%s", what, v, d)
		}
		ownedMatchesState(t, root, what)
		if _, err := os.Stat(metaPath(root, PendingFile)); err == nil {
			t.Fatalf("%s: journal left", what)
		}
		if steps := crashSteps(t, root, v); len(steps) > 0 {
			t.Fatalf("%s: second apply %q is not a no-op: %v", what, v, steps)
		}
		if err := crashApply(t, root, "", nil); err != nil {
			t.Fatal(err)
		}
		if d := diffTrees(tree(t, root, true), orig); d != "" {
			t.Fatalf("%s: the prune did not restore the original tree:\n%s", what, d)
		}
	}

	// crashed replays a sequence from the user's tree: base applied,
	// then each version killed before its step k (-1: not at all).
	type kill struct {
		v string
		k int
	}
	crashed := func(t *testing.T, base string, kills ...kill) (string, []string) {
		t.Helper()
		root := userTree(t)
		if base != "" {
			if err := crashApply(t, root, base, nil); err != nil {
				t.Fatal(err)
			}
		}
		var what []string
		for _, k := range kills {
			var steps []string
			err := crashApply(t, root, k.v, func(s string) bool {
				steps = append(steps, s)
				return k.k >= 0 && len(steps) > k.k
			})
			if k.k < 0 {
				if err != nil {
					t.Fatal(err)
				}
				return root, steps
			}
			if !errors.Is(err, errCrashed) {
				t.Fatalf("%q has no step %d: %v", k.v, k.k, steps)
			}
			what = append(what, fmt.Sprintf("%q killed before %s", k.v, steps[len(steps)-1]))
		}
		return root, what
	}

	for _, base := range []string{"", "A"} {
		for _, first := range []string{"A", "B", ""} {
			for _, second := range []string{"A", "B", ""} {
				t.Run(fmt.Sprintf("%q,%q,%q", base, first, second), func(t *testing.T) {
					_, steps1 := crashed(t, base, kill{first, -1})
					for k1 := range steps1 {
						// One kill, then the second version applied to the end.
						root, what := crashed(t, base, kill{first, k1})
						converge(t, root, second, strings.Join(what, ", "))

						// Two kills in a row: the apply recovering the
						// first is killed too, before each of its steps;
						// then A or B is applied to the end.
						if (testing.Short() || raceEnabled) && k1%4 != 0 {
							continue
						}
						_, steps2 := crashed(t, base, kill{first, k1}, kill{second, -1})
						for k2 := range steps2 {
							root, what := crashed(t, base, kill{first, k1}, kill{second, k2})
							converge(t, root, []string{"A", "B"}[(k1+k2)%2], strings.Join(what, ", "))
						}
					}
				})
			}
		}
	}
}

// ownedMatchesState checks that the committed record (actant.owned) is
// exactly the part of the state below the root.
func ownedMatchesState(t *testing.T, root, what string) {
	t.Helper()
	st, _, err := ReadState(metaPath(root, StateFile))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(root, OwnedFile))
	want := ""
	if o := ownedOf(st, root, nil); o != nil {
		want = string(encodeOwned(o))
	}
	if string(got) != want {
		t.Fatalf("%s: %s does not match the state:\ngot  %s\nwant %s", what, OwnedFile, got, want)
	}
}
