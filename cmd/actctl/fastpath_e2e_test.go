package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/layout"
)

// The fast path of a plain apply (docs/design.md, "The apply fast path"):
// ACTCTL_DEBUG=1 says on stderr which path ran, and why.
const (
	fastLine = "actctl: debug: apply: fast path"
	fullLine = "actctl: debug: apply: full path"
)

var debugEnv = []string{"ACTCTL_DEBUG=1"}

// fastConfig has an inline skill, a file skill and a dir skill (with a
// script) for one Claude Code agent writing into the workspace.
const fastConfig = `package actant

skills: {
	hello: {description: "Say hello", content: "Say hello."}
	style: {description: "Style", file: "docs/style.md"}
	tool: {description: "Tool", dir: "skills/tool"}
}
templates: t: {backend: "claude-code", skills: ["hello", "style", "tool"]}
agents: a: {template: "t", workDir: "."}
`

// fastWorkspace creates the workspace of fastConfig with its inputs an
// hour old (stat data of files written just before an apply starts is
// racy: see inputs.Stat), applies it once (recording the inputs) and
// returns its root and home.
func fastWorkspace(t *testing.T) (dir, home string) {
	t.Helper()
	dir, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{
		"actant.cue":           fastConfig,
		"docs/style.md":        "---\nname: style\ndescription: Style\n---\nShort lines.\n",
		"skills/tool/SKILL.md": "---\nname: tool\ndescription: Tool\n---\nRun run.sh.\n",
		"skills/tool/run.sh":   "#!/bin/sh\necho hi\n",
	})
	if err := os.Chmod(filepath.Join(dir, "skills/tool/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	age(t, dir, "actant.cue", "docs/style.md", "skills/tool/SKILL.md", "skills/tool/run.sh")
	r := actctlEnv(t, dir, home, debugEnv, "apply")
	if r.Code != 0 || !strings.Contains(r.Stdout, "applied: ") || !strings.Contains(r.Stderr, fullLine+": no record") {
		t.Fatalf("first apply: %+v", r)
	}
	return dir, home
}

// age sets the modification time of dir's files rel an hour back.
func age(t *testing.T, dir string, rel ...string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, p := range rel {
		if err := os.Chtimes(filepath.Join(dir, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// applyPath runs a plain apply and checks which path ran (fast or full,
// the reason containing why) and what it printed.
func applyPath(t *testing.T, dir, home string, fast bool, why, stdout string) {
	t.Helper()
	r := actctlEnv(t, dir, home, debugEnv, "apply")
	if r.Code != 0 {
		t.Fatalf("apply: %+v", r)
	}
	want := fullLine + ": "
	if fast {
		want = fastLine
	}
	if !strings.Contains(r.Stderr, want) || !strings.Contains(r.Stderr, why) {
		t.Fatalf("apply: want %q ... %q on stderr, got:\n%s", want, why, r.Stderr)
	}
	if !strings.Contains(r.Stdout, stdout) {
		t.Fatalf("apply: want %q in stdout, got:\n%s", stdout, r.Stdout)
	}
}

func TestApplyFastPathNoChange(t *testing.T) {
	dir, home := fastWorkspace(t)
	before := stamps(t, dir)
	r := actctlEnv(t, dir, home, debugEnv, "apply")
	if r.Code != 0 || r.Stdout != "no changes\n" || strings.TrimSpace(r.Stderr) != fastLine+": inputs and outputs unchanged" {
		t.Fatalf("apply with nothing changed: %+v", r)
	}
	if after := stamps(t, dir); !equalStamps(before, after) {
		t.Fatalf("the fast path wrote:\n%s", diffStamps(before, after))
	}
	// Without ACTCTL_DEBUG nothing but the summary is printed.
	if r := actctl(t, dir, home, "apply"); r.Code != 0 || r.Stdout != "no changes\n" || r.Stderr != "" {
		t.Fatalf("apply: %+v", r)
	}
	// -o json: the normal path's no-op result, but for its duration.
	fast := actctlEnv(t, dir, home, debugEnv, "-o", "json", "apply")
	if !strings.Contains(fast.Stderr, fastLine) {
		t.Fatalf("apply -o json took the full path: %s", fast.Stderr)
	}
	if err := os.Remove(layout.Path(dir, layout.Inputs)); err != nil {
		t.Fatal(err)
	}
	full := actctlEnv(t, dir, home, debugEnv, "-o", "json", "apply")
	if !strings.Contains(full.Stderr, fullLine+": no record") {
		t.Fatalf("apply -o json without a record: %s", full.Stderr)
	}
	if a, b := withoutDuration(t, fast.Stdout), withoutDuration(t, full.Stdout); a != b {
		t.Fatalf("fast path JSON\n%s\ndiffers from the normal path's\n%s", a, b)
	}
}

// withoutDuration is a JSON result with durationMs removed.
func withoutDuration(t *testing.T, s string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%v:\n%s", err, s)
	}
	delete(m, "durationMs")
	b, _ := json.Marshal(m)
	return string(b)
}

// Every kind of input changed takes the normal path, which gives the
// right result; the apply after it (inputs aged again) is fast again.
func TestApplyFastPathInputChanged(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, dir string) []string // returns the files to age after
		why    string
		stdout string
	}{
		{"edit config", func(t *testing.T, dir string) []string {
			writeConfig(t, dir, strings.Replace(fastConfig, "Say hello.", "Say hello twice.", 1))
			return []string{"actant.cue"}
		}, "actant.cue changed", "applied: 1 changed"},
		{"add config file", func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{"more.cue": "package actant\n\nskills: bye: {description: \"Bye\", content: \"Bye.\"}\n"})
			return []string{"more.cue"}
		}, "more.cue is new", "no changes"},
		{"touch config, same content", func(t *testing.T, dir string) []string {
			old := time.Now().Add(-2 * time.Hour)
			if err := os.Chtimes(filepath.Join(dir, "actant.cue"), old, old); err != nil {
				t.Fatal(err)
			}
			return nil
		}, "actant.cue changed", "no changes"},
		{"edit file skill", func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{"docs/style.md": "---\nname: style\ndescription: Style\n---\nLonger lines.\n"})
			return []string{"docs/style.md"}
		}, "style.md changed", "applied: 1 changed"},
		{"add file to skill dir", func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{"skills/tool/notes.txt": "notes\n"})
			return []string{"skills/tool/notes.txt"}
		}, "notes.txt is new", "applied: 1 changed"},
		{"write actant.lock", func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{"actant.lock": "{\"version\": 1, \"sources\": {}}\n"})
			return []string{"actant.lock"}
		}, "actant.lock changed", "no changes"},
		{"write adhoc.json", func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{".actant/adhoc.json": "{\"agents\": {}}\n"})
			return []string{".actant/adhoc.json"}
		}, "adhoc.json changed", "no changes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, home := fastWorkspace(t)
			age(t, dir, c.change(t, dir)...)
			applyPath(t, dir, home, false, c.why, c.stdout)
			applyPath(t, dir, home, true, "", "no changes")
		})
	}
}

// A file modified while (or just before) the recorded apply ran is racy:
// the next apply takes the normal path, whatever its stat data says.
func TestApplyFastPathRacy(t *testing.T) {
	dir, home := fastWorkspace(t)
	soon := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "actant.cue"), soon, soon); err != nil {
		t.Fatal(err)
	}
	applyPath(t, dir, home, false, "actant.cue changed", "no changes")
	applyPath(t, dir, home, false, "actant.cue was modified while the last apply ran (racy)", "no changes")
	age(t, dir, "actant.cue")
	applyPath(t, dir, home, false, "(racy)", "no changes")
	applyPath(t, dir, home, true, "", "no changes")
}

// Another home, another build or another environment: the normal path.
// (Two homes on one workspace each ignore the records the other sealed:
// docs/design.md, "What actctl trusts".)
func TestApplyFastPathRunChanged(t *testing.T) {
	dir, home := fastWorkspace(t)
	applyPath(t, dir, home, true, "", "no changes")
	other := filepath.Join(t.TempDir(), "home2")
	r := actctlEnv(t, dir, other, debugEnv, "apply")
	if r.Code != 0 || !strings.Contains(r.Stderr, fullLine+": recorded with the actctl home "+home) {
		t.Fatalf("apply with another home: %+v", r)
	}
	// The other home's apply did not trust the state (sealed with this
	// home's key) and wrote its own, which this home does not trust
	// either: a run that ignores a state records no inputs, so this one
	// finds the state changed since its own record, ignores it and
	// writes its own again.
	applyPath(t, dir, home, false, "state.json changed since the inputs were recorded", "no changes")
	// That state is byte for byte the one this home's record was made
	// with. The next apply takes the full path when the record holds the
	// state's stat data (it was settled: another inode now), and the
	// fast path when it holds only its digest (written in the clock tick
	// of the record: racy), which matches. Either way it changes nothing,
	// and the apply after it is fast.
	r = actctlEnv(t, dir, home, debugEnv, "apply")
	full := strings.Contains(r.Stderr, fullLine+": state.json changed since the inputs were recorded")
	if r.Code != 0 || r.Stdout != "no changes\n" || !full && !strings.Contains(r.Stderr, fastLine) {
		t.Fatalf("apply after trusting its own state again: %+v", r)
	}
	applyPath(t, dir, home, true, "", "no changes")
	r = actctlEnv(t, dir, home, append([]string{"CUE_CACHE_DIR=" + t.TempDir()}, debugEnv...), "apply")
	if r.Code != 0 || !strings.Contains(r.Stderr, fullLine+": the environment changed") {
		t.Fatalf("apply with another environment: %+v", r)
	}
	applyPath(t, dir, home, false, "the environment changed", "no changes")
	// A rebuilt actctl is another executable: a copy stands for it.
	b, err := os.ReadFile(actctlBin)
	if err != nil {
		t.Fatal(err)
	}
	rebuilt := filepath.Join(t.TempDir(), "actctl")
	if err := os.WriteFile(rebuilt, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(rebuilt, "apply")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1", "ACTCTL_DEBUG=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), fullLine+": another actctl build recorded the inputs") || !strings.Contains(string(out), "no changes") {
		t.Fatalf("apply by another build: %v\n%s", err, out)
	}
	applyPath(t, dir, home, false, "another actctl build recorded the inputs", "no changes")
	applyPath(t, dir, home, true, "", "no changes")
}

// Drift in an output: the normal path finds and handles it as it always
// did; a run that reports something records nothing, so the next one
// takes the normal path again and reports it again.
func TestApplyFastPathDrift(t *testing.T) {
	skill := filepath.Join(".claude", "skills", "hello", "SKILL.md")
	cases := []struct {
		name   string
		change func(t *testing.T, p string)
		stdout string
		again  bool // the apply after the normal one is fast again
	}{
		{"edited", func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte("mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "drift", false},
		{"deleted", func(t *testing.T, p string) {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}, "applied: 1 changed", true},
		{"made executable", func(t *testing.T, p string) {
			if err := os.Chmod(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "mode changed", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, home := fastWorkspace(t)
			c.change(t, filepath.Join(dir, skill))
			applyPath(t, dir, home, false, filepath.Join(dir, skill), c.stdout)
			if c.again {
				applyPath(t, dir, home, true, "", "no changes")
			} else {
				// The state now records the drift (the record is stale).
				applyPath(t, dir, home, false, "state.json changed", c.stdout)
			}
		})
	}
}

// Any flag or agent argument takes the normal path without looking at the
// record; a dry run leaves the record as it is.
func TestApplyFastPathOnlyPlain(t *testing.T) {
	dir, home := fastWorkspace(t)
	for _, args := range [][]string{{"apply", "--dry-run"}, {"apply", "--no-prune"}, {"apply", "a"}, {"apply", "--frozen"}} {
		r := actctlEnv(t, dir, home, debugEnv, args...)
		if r.Code != 0 || strings.Contains(r.Stderr, "debug: apply") || !strings.Contains(r.Stdout, "no changes") {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	applyPath(t, dir, home, true, "", "no changes")
}

// With no agents left, apply removes .actant entirely, the record too.
func TestApplyFastPathNoTraceLeft(t *testing.T) {
	dir, home := fastWorkspace(t)
	if _, err := os.Stat(layout.Path(dir, layout.Inputs)); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, dir, strings.Replace(fastConfig, `agents: a: {template: "t", workDir: "."}`, "agents: {}", 1))
	applyPath(t, dir, home, false, "actant.cue changed", "pruned")
	if _, err := os.Stat(filepath.Join(dir, layout.Dir)); !os.IsNotExist(err) {
		t.Fatalf(".actant left behind: %v", err)
	}
}

// Warnings that follow from the inputs alone (the config's, the
// renderer's) are printed by the fast path as by the normal path, in text
// and in JSON.
func TestApplyFastPathWarnings(t *testing.T) {
	dir, home := fastWorkspace(t)
	for _, d := range []string{"gem", "cur"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeConfig(t, dir, fastConfig+`templates: {
	g: {backend: "gemini", skills: ["hello"]}
	c: {backend: "cursor", skills: ["hello"], permissions: "standard"}
}
agents: {
	g: {template: "g", workDir: "gem"}
	c: {template: "c", workDir: "cur"}
}
`)
	age(t, dir, "actant.cue")
	if r := actctl(t, dir, home, "apply"); r.Code != 0 || !strings.Contains(r.Stderr, "Gemini CLI stopped serving") || !strings.Contains(r.Stderr, "cannot be expressed") {
		t.Fatalf("apply with warnings: %+v", r)
	}
	for _, args := range [][]string{{"apply"}, {"-o", "json", "apply"}} {
		fast := actctlEnv(t, dir, home, debugEnv, args...)
		if err := os.Remove(layout.Path(dir, layout.Inputs)); err != nil {
			t.Fatal(err)
		}
		full := actctlEnv(t, dir, home, debugEnv, args...)
		if !strings.Contains(fast.Stderr, fastLine) || !strings.Contains(full.Stderr, fullLine) {
			t.Fatalf("%v: paths taken:\n%s\n%s", args, fast.Stderr, full.Stderr)
		}
		if a, b := withoutDebug(fast.Stderr), withoutDebug(full.Stderr); a != b {
			t.Errorf("%v: fast path stderr\n%s\nnormal path stderr\n%s", args, a, b)
		}
		a, b := fast.Stdout, full.Stdout
		if len(args) > 1 {
			a, b = withoutDuration(t, a), withoutDuration(t, b)
		}
		if a != b || fast.Code != full.Code {
			t.Errorf("%v: fast path stdout (exit %d)\n%s\nnormal path stdout (exit %d)\n%s", args, fast.Code, a, full.Code, b)
		}
	}
}

// withoutDebug is stderr without ACTCTL_DEBUG's lines.
func withoutDebug(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, "actctl: debug: ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

// A hub source: the lock pins the tree, the cache's marker and index say
// what the tree holds; removing the cached tree's marker is a change.
func TestApplyFastPathHub(t *testing.T) {
	src := filepath.Join(t.TempDir(), "hub")
	writeFiles(t, src, map[string]string{
		"actant.json":           `{"name":"h","version":"1.0.0"}`,
		"skills/tools/SKILL.md": "---\nname: tools\ndescription: Tools\n---\nUse tools.\n",
	})
	hubGit(t, src, "init", "-q", "-b", "main")
	hubGit(t, src, "add", "-A")
	hubGit(t, src, "commit", "-q", "-m", "one")
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, `package actant
hub: h: {url: "file://`+src+`", ref: branch: "main"}
templates: t: {backend: "claude-code", skills: ["h@tools"]}
agents: a: {template: "t", workDir: "."}
`)
	age(t, dir, "actant.cue")
	mustApply(t, dir, home)
	// The first apply wrote actant.lock and the cache while it ran: racy.
	// Aged, the next apply records them settled.
	cache, err := filepath.Glob(filepath.Join(home, "hub", "*", "trees", "*.*"))
	if err != nil || len(cache) == 0 {
		t.Fatalf("hub cache: %v %v", cache, err)
	}
	for _, p := range append(cache, filepath.Join(dir, "actant.lock")) {
		rel, _ := filepath.Rel(dir, p)
		age(t, dir, rel)
	}
	applyPath(t, dir, home, false, "(racy)", "no changes")
	applyPath(t, dir, home, true, "", "no changes")
	markers, err := filepath.Glob(filepath.Join(home, "hub", "*", "trees", "*.json"))
	if err != nil || len(markers) != 1 {
		t.Fatalf("hub tree markers: %v %v", markers, err)
	}
	rm := func(p string) {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	rm(markers[0])
	applyPath(t, dir, home, false, markers[0], "no changes")
	if _, err := os.Stat(markers[0]); err != nil {
		t.Fatalf("the normal path did not restore the tree's marker: %v", err)
	}
	rm(filepath.Join(dir, "actant.lock"))
	applyPath(t, dir, home, false, "actant.lock", "no agent file changed; actant.lock updated")
}

// inputs.rec and config.cache are written without fsync and checked by
// their digest trailer (docs/design.md, "The apply fast path"): what a
// crash may leave of them (truncated, zero-filled, a bit flipped) is
// refused without a word, the normal path runs (and records them again),
// and the apply after it is fast again. ACTCTL_DEBUG says why.
func TestApplyFastPathDamagedRecord(t *testing.T) {
	dir, home := fastWorkspace(t)
	files := []string{layout.Path(dir, layout.Inputs), layout.Path(dir, layout.ConfigCache)}
	damages := map[string]func([]byte) []byte{
		"truncated":   func(b []byte) []byte { return b[:len(b)-1] },
		"zero-filled": func(b []byte) []byte { return make([]byte, len(b)) },
		"bit flipped": func(b []byte) []byte { b[len(b)/2] ^= 1; return b },
	}
	damage := func(f func([]byte) []byte) {
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, f := range damages {
		applyPath(t, dir, home, true, "", "no changes")
		damage(f)
		if r := actctl(t, dir, home, "apply"); r.Code != 0 || r.Stdout != "no changes\n" || r.Stderr != "" {
			t.Fatalf("%s: apply: %+v", name, r)
		}
		applyPath(t, dir, home, true, "", "no changes")
		damage(f)
		r := actctlEnv(t, dir, home, debugEnv, "apply")
		if r.Code != 0 || r.Stdout != "no changes\n" || !strings.Contains(r.Stderr, fullLine+": "+files[0]+": damaged") ||
			!strings.Contains(r.Stderr, evaluatedLine+"config cache: damaged") {
			t.Fatalf("%s: apply: %+v", name, r)
		}
	}
}
