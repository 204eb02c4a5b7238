//go:build unix

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/actctl/actctl/internal/layout"
)

// The inputs actctl trusts (issue #20, items 4, 6 and 21): what it loads
// is never a special file that hangs it, what it caches cannot be forged
// by an agent, and what it reads through a symlink is tracked by its
// target.

// boundedRun runs actctl like actctlEnv under a deadline that turns a
// hang into a failure (never a timing assertion: a run that ends is
// fine however long it took).
func boundedRun(t *testing.T, dir, home string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, actctlBin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("actctl %s hung (killed at the test's deadline)\n%s", strings.Join(args, " "), errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run actctl %s: %v", strings.Join(args, " "), err)
	}
	return result{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

func mkfifoAt(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// assertFIFO fails unless p is still a named pipe.
func assertFIFO(t *testing.T, p string) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer the named pipe: %v %v", p, fi, err)
	}
}

// TestSpecialFilesBesideConfig: CUE's loader reads every file of the
// root (and of cue.mod/'s packages) whose name it knows — *.json, *.yaml,
// *.txt, *.textproto ... — and opened a named pipe there, hanging every
// command. Such files, and links to them or to nothing, are no part of
// the config: validate, apply and status run as without them, and leave
// them alone, in a package linked into cue.mod/ too. (A *.cue pipe is an
// error naming it: TestFIFOInWorkspace.)
func TestSpecialFilesBesideConfig(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	linkedPackage(t, dir)
	pipes := []string{"data.json", "values.yaml", "notes.txt", "more.yml", "x.jsonl", "m.textproto", "cue.mod/pkg/example.com/p/data.json", "cue.mod/usr/x.yaml", "vendor/shared/data.json"}
	for _, p := range pipes {
		mkfifoAt(t, filepath.Join(dir, p))
	}
	for target, link := range map[string]string{"notes.txt": "linked.json", "nowhere": "dangling.yaml"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"validate"}, {"status"}} {
		r := boundedRun(t, dir, home, nil, args...)
		if r.Code != 0 {
			t.Fatalf("actctl %s: %+v", args[0], r)
		}
	}
	assertNotWritten(t, dir, "validate and status", ".actant", "CLAUDE.md")
	if r := boundedRun(t, dir, home, nil, "apply"); r.Code != 0 || !strings.Contains(r.Stdout, "applied: ") {
		t.Fatalf("apply: %+v", r)
	}
	for _, p := range pipes {
		assertFIFO(t, filepath.Join(dir, p))
	}
}

// linkedPackage makes the config at dir import the CUE package
// example.com/shared, linked into cue.mod/pkg from vendor/shared (as a
// vendoring tool would), and use its name as its template's.
func linkedPackage(t *testing.T, dir string) {
	t.Helper()
	writeFiles(t, dir, map[string]string{
		"actant.cue":               validHeader + "import \"example.com/shared\"\n\ntemplates: (shared.name): backend: \"claude-code\"\nagents: a: {template: shared.name, workDir: \".\"}\n",
		"cue.mod/module.cue":       "module: \"example.com/ws\"\nlanguage: version: \"v0.9.0\"\n",
		"vendor/shared/shared.cue": "package shared\n\nname: \"t\"\n",
	})
	if err := os.MkdirAll(filepath.Join(dir, "cue.mod/pkg/example.com"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../../vendor/shared", filepath.Join(dir, "cue.mod/pkg/example.com/shared")); err != nil {
		t.Fatal(err)
	}
}

// TestLinkedCUEPackage: a package linked into cue.mod/ is read through
// the link; the config cache is keyed by the files behind it, so an edit
// there is evaluated, not answered from the cache.
func TestLinkedCUEPackage(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	linkedPackage(t, dir)
	age(t, dir, "actant.cue", "cue.mod/module.cue", "vendor/shared/shared.cue", "vendor/shared")
	if r := actctl(t, dir, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: %+v", r)
	}
	loadPath(t, dir, home, true, "get", "templates")
	writeFiles(t, dir, map[string]string{"vendor/shared/shared.cue": "package shared\n\nname: \"renamed\"\n"})
	r := actctlEnv(t, dir, home, debugEnv, "get", "templates", "-o", "json")
	if r.Code != 0 || strings.Contains(r.Stderr, cachedLine) || !strings.Contains(r.Stdout, "renamed") {
		t.Fatalf("the edit behind the link was answered from the cache: %+v", r)
	}
}

// TestSpecialFilesAsCaches: a named pipe where actctl keeps a cache or a
// record it reads before anything else (.actant/config.cache,
// .actant/inputs.rec) is refused as a cache, never opened for reading:
// every command runs the normal path and says why with ACTCTL_DEBUG=1.
func TestSpecialFilesAsCaches(t *testing.T) {
	dir, home := fastWorkspace(t)
	for _, f := range []string{layout.ConfigCache, layout.Inputs} {
		p := layout.Path(dir, f)
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		mkfifoAt(t, p)
	}
	for _, args := range [][]string{{"validate"}, {"status"}, {"get", "agents"}, {"apply"}} {
		r := boundedRun(t, dir, home, debugEnv, args...)
		if r.Code != 0 {
			t.Fatalf("actctl %s: %+v", args[0], r)
		}
		if !strings.Contains(r.Stderr, evaluatedLine) || !strings.Contains(r.Stderr, "config.cache: not a regular file") {
			t.Errorf("actctl %s took or did not name the pipe as config cache:\n%s", args[0], r.Stderr)
		}
		if args[0] == "apply" && !strings.Contains(r.Stderr, fullLine+": read "+layout.Path(dir, layout.Inputs)+": not a regular file") {
			t.Errorf("apply did not say why it took the full path:\n%s", r.Stderr)
		}
	}
}

// forgeCache rewrites the cache or record at p as an agent that can write
// files in the workspace would: edit its body, then recompute the plain
// sha256 trailer the old format ended with (anyone can).
func forgeCache(t *testing.T, p string, edit func(body []byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	body := edit(bytes.Clone(b[:len(b)-2*sha256.Size]))
	sum := sha256.Sum256(body)
	if err := os.WriteFile(p, hex.AppendEncode(body, sum[:]), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readonlyConfig is one readonly Claude Code agent writing into the root.
const readonlyConfig = `package actant

templates: t: {backend: "claude-code", permissions: "readonly"}
agents: a: {template: "t", workDir: "."}
`

// TestForgedConfigCacheIgnored: a readonly agent rewrote
// .actant/config.cache so that its template became permissive, with the
// digest recomputed; the next load took it, and apply wrote
// bypassPermissions into .claude/settings.json. The cache's seal is an
// HMAC under a key of the actctl home: the forged file is ignored (the
// config evaluated, the reason said) and rebuilt, and nothing changes.
func TestForgedConfigCacheIgnored(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"actant.cue": readonlyConfig})
	age(t, dir, "actant.cue")
	if r := actctl(t, dir, home, "apply", "a"); r.Code != 0 {
		t.Fatalf("apply: %+v", r)
	}
	loadPath(t, dir, home, true, "validate")
	settings := read(t, filepath.Join(dir, ".claude/settings.json"))
	cache := layout.Path(dir, layout.ConfigCache)
	forgeCache(t, cache, func(b []byte) []byte {
		if !bytes.Contains(b, []byte(`"readonly"`)) {
			t.Fatalf("no preset in the cache:\n%s", b)
		}
		return bytes.ReplaceAll(b, []byte(`"readonly"`), []byte(`"permissive"`))
	})
	r := actctlEnv(t, dir, home, debugEnv, "apply", "a")
	if r.Code != 0 || !strings.Contains(r.Stderr, evaluatedLine+"config cache: damaged or forged") || !strings.Contains(r.Stdout, "no changes") {
		t.Fatalf("apply took the forged cache: %+v", r)
	}
	if got := read(t, filepath.Join(dir, ".claude/settings.json")); got != settings || strings.Contains(got, "bypassPermissions") {
		t.Fatalf("settings changed by the forged cache:\n%s", got)
	}
	r = actctlEnv(t, dir, home, nil, "get", "agents", "-o", "json")
	if r.Code != 0 || strings.Contains(r.Stdout, "permissive") {
		t.Fatalf("get agents took the forged cache: %+v", r)
	}
	loadPath(t, dir, home, true, "validate") // rebuilt by the apply
	if b, _ := os.ReadFile(cache); bytes.Contains(b, []byte("permissive")) {
		t.Fatal("the forged cache was kept")
	}
}

// TestCachesWithoutWritableHome: where the actctl home cannot be written
// there is no key to seal caches with: every command runs the normal
// path, writes no cache, and says why with ACTCTL_DEBUG=1.
func TestCachesWithoutWritableHome(t *testing.T) {
	dir, file := t.TempDir(), filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(file, "home") // below a file: never made
	writeFiles(t, dir, map[string]string{"actant.cue": readonlyConfig})
	age(t, dir, "actant.cue")
	for i, want := range []string{"applied: ", "no changes"} {
		r := actctlEnv(t, dir, home, debugEnv, "apply")
		if r.Code != 0 || !strings.Contains(r.Stdout, want) || !strings.Contains(r.Stderr, "no usable cache key in the actctl home "+home) {
			t.Fatalf("apply %d: %+v", i, r)
		}
	}
	assertNotWritten(t, dir, "apply without a key", filepath.Join(layout.Dir, layout.ConfigCache), filepath.Join(layout.Dir, layout.Inputs))
}

// linkedConfig has a skill whose directory is a link to a shared one and
// a skill whose SKILL.md is a link to a shared file.
const linkedConfig = `package actant

skills: {
	tool: {description: "Tool", dir: "skills/tool"}
	notes: {description: "Notes", dir: "skills/notes"}
}
templates: t: {backend: "claude-code", skills: ["tool", "notes"]}
agents: a: {template: "t", workDir: "."}
`

// TestLinkedSkillInputs: inputs reached through links are read through
// them and tracked by their targets. A skill dir that is a link lost its
// sibling files silently (only SKILL.md was rendered), and an edit behind
// a link (the target of a linked SKILL.md, a file of a linked skill
// directory) left apply saying "no changes" forever while diff showed it.
func TestLinkedSkillInputs(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{
		"actant.cue":            linkedConfig,
		"shared/tool/SKILL.md":  "---\nname: tool\ndescription: Tool\n---\nRun run.sh.\n",
		"shared/tool/run.sh":    "#!/bin/sh\necho one\n",
		"shared/notes.md":       "---\nname: notes\ndescription: Notes\n---\nTake notes.\n",
		"skills/notes/extra.md": "More.\n",
	})
	for link, target := range map[string]string{"skills/tool": "../shared/tool", "skills/notes/SKILL.md": "../../shared/notes.md"} {
		p := filepath.Join(dir, link)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		// The link itself an hour old too: only its target changes.
		old := unix.NsecToTimeval(time.Now().Add(-time.Hour).UnixNano())
		if err := unix.Lutimes(p, []unix.Timeval{old, old}); err != nil {
			t.Fatal(err)
		}
	}
	age(t, dir, "actant.cue", "shared/tool/SKILL.md", "shared/tool/run.sh", "shared/notes.md", "skills/notes/extra.md")
	if r := actctl(t, dir, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: %+v", r)
	}
	rendered := map[string]string{
		".claude/skills/tool/run.sh":    "echo one",
		".claude/skills/notes/SKILL.md": "Take notes.",
		".claude/skills/notes/extra.md": "More.",
	}
	checkRendered := func(step string) {
		t.Helper()
		for p, want := range rendered {
			b, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil || !strings.Contains(string(b), want) {
				t.Fatalf("%s: %s: %q, %v; want %q", step, p, b, err, want)
			}
		}
		if r := actctl(t, dir, home, "diff"); r.Code != 0 {
			t.Fatalf("%s: diff after apply: %+v", step, r)
		}
	}
	checkRendered("first apply")
	actctl(t, dir, home, "apply") // the normal path records the outputs settled
	applyPath(t, dir, home, true, "", "no changes")

	edits := []struct {
		name, file, content, rendered, want string
	}{
		{"linked SKILL.md's target", "shared/notes.md", "---\nname: notes\ndescription: Notes\n---\nTake more notes.\n", ".claude/skills/notes/SKILL.md", "Take more notes."},
		{"a file in a linked skill dir", "shared/tool/run.sh", "#!/bin/sh\necho two\n", ".claude/skills/tool/run.sh", "echo two"},
		{"a new file in a linked skill dir", "shared/tool/ref.md", "Reference.\n", ".claude/skills/tool/ref.md", "Reference."},
	}
	for _, e := range edits {
		writeFiles(t, dir, map[string]string{e.file: e.content})
		age(t, dir, e.file)
		if r := actctl(t, dir, home, "diff"); r.Code == 0 {
			t.Fatalf("%s: diff shows no change: %+v", e.name, r)
		}
		r := actctlEnv(t, dir, home, debugEnv, "apply")
		if r.Code != 0 || !strings.Contains(r.Stderr, fullLine) || !strings.Contains(r.Stdout, e.rendered) {
			t.Fatalf("%s: apply missed the edit: %+v", e.name, r)
		}
		rendered[e.rendered] = e.want
		checkRendered(e.name)
		actctl(t, dir, home, "apply")
		applyPath(t, dir, home, true, "", "no changes")
	}
}

// TestSpecialFilesAsRecords: a named pipe where actctl reads its records
// (actant.owned, .actant/state.json) or git's (.git, which the renderer's
// view of tracked files opens) hung status, diff and apply. Each command
// now returns: refusing a record by name, or (.git) finding no
// repository; the pipe is left as it was.
func TestSpecialFilesAsRecords(t *testing.T) {
	for _, tc := range []struct {
		name, refused string // refused: in the error; "": the command succeeds
	}{
		{"actant.owned", "actant.owned: not a regular file (a named pipe)"},
		{".actant/state.json", "state.json: not a regular file (a named pipe)"},
		{".git", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, home := fastWorkspace(t)
			p := filepath.Join(dir, tc.name)
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			mkfifoAt(t, p)
			for _, args := range [][]string{{"status"}, {"diff"}, {"apply"}} {
				r := boundedRun(t, dir, home, nil, args...)
				if tc.refused == "" && r.Code != 0 {
					t.Errorf("actctl %s: %+v", args[0], r)
				}
				if tc.refused != "" && (r.Code == 0 || !strings.Contains(r.Stderr, tc.refused)) {
					t.Errorf("actctl %s: want an error naming the pipe: %+v", args[0], r)
				}
			}
			assertFIFO(t, p)
		})
	}
}

// TestWorkspaceInsideCUEModule: CUE took the nearest cue.mod above the
// workspace as its module root and loaded package actant's files from
// every directory in between: an agent declared there joined the config
// (README, "A tour of the config": the root's *.cue files, plus its cue.mod/), an edit there was
// answered from the config cache, which does not track those files, and a
// named pipe there hung every command. The workspace root is the module
// root now: nothing above it is read.
func TestWorkspaceInsideCUEModule(t *testing.T) {
	top, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, top, map[string]string{
		"cue.mod/module.cue": "module: \"example.com/top\"\nlanguage: version: \"v0.9.0\"\n",
		"parent.cue":         validHeader + "agents: ghost: {template: \"t\", workDir: \".\"}\n",
		"ws/actant.cue":      validHeader + "templates: t: backend: \"claude-code\"\nagents: a: {template: \"t\", workDir: \".\"}\n",
	})
	dir := filepath.Join(top, "ws")
	if r := boundedRun(t, dir, home, nil, "get", "agents", "-o", "json"); r.Code != 0 || strings.Contains(r.Stdout, "ghost") {
		t.Fatalf("get agents: a file above the workspace joined the config: %+v", r)
	}
	mkfifoAt(t, filepath.Join(top, "data.json"))
	for _, args := range [][]string{{"validate"}, {"apply"}, {"status"}} {
		if r := boundedRun(t, dir, home, nil, args...); r.Code != 0 {
			t.Fatalf("actctl %s: %+v", args[0], r)
		}
	}
	assertFIFO(t, filepath.Join(top, "data.json"))
	assertNotWritten(t, top, "apply in ws", "CLAUDE.md", ".actant")
}
