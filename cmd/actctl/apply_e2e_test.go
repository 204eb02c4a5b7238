package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/reconcile"
)

// The user's files of the e2e project: each must come back byte for byte.
var userFiles = map[string]string{
	"CLAUDE.md":             "# Project rules\r\n\r\nBe nice.", // CRLF and no final newline
	"AGENTS.md":             "# Agents\n\nUse tabs.\n",
	".mcp.json":             "{\n  // my servers\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"my-server\"}\n  }\n}\n",
	".claude/settings.json": "{\n\t\"model\": \"opus\",\n\t\"permissions\": {\n\t\t\"allow\": [\"Bash(ls)\"]\n\t}\n}\n",
	".gitignore":            "node_modules/\n*.log",
	"src/main.go":           "package main\n",
}

// projectConfig is a workspace with a Claude Code reviewer and a Codex
// fixer (both tool archetype: they write into the project).
func projectConfig(reviewerVar string, withAgents bool, extra string) string {
	agents := `agents: {
	reviewer: {template: "reviewer", vars: project: "` + reviewerVar + `"}
	fixer: template: "fixer"
}`
	if !withAgents {
		agents = "agents: {}"
	}
	return `package actant

skills: {
	"go-testing": {description: "Write table tests", content: "# Go testing\n\nUse table tests.\n"}
	"small-commits": {description: "Small commits", content: "# Small commits\n\nOne change per commit.\n"}
}
prompts: reviewer: content: "You review {{project}}."
mcpServers: filesystem: {command: "npx", args: ["-y", "server-filesystem", "."]}
templates: {
	reviewer: {version: "1.0.0", description: "Reviewer", backend: "claude-code", skills: ["go-testing", "small-commits"], prompts: ["reviewer"], mcpServers: ["filesystem"], permissions: "readonly"}
	fixer: {version: "1.0.0", description: "Fixer", backend: "codex", skills: ["go-testing"], prompts: ["reviewer"], vars: project: "fixes"}
}
` + agents + "\n" + extra
}

func writeConfig(t *testing.T, dir, cfg string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "actant.cue"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

// applyJSON runs `apply -o json` and decodes the result.
func applyJSON(t *testing.T, dir, home string, args ...string) (reconcile.Result, result) {
	t.Helper()
	r := actctl(t, dir, home, append([]string{"-o", "json", "apply"}, args...)...)
	var res reconcile.Result
	if r.Stdout != "" {
		if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil {
			t.Fatalf("apply -o json: bad JSON %v:\n%s\nstderr: %s", err, r.Stdout, r.Stderr)
		}
	}
	return res, r
}

func mustApply(t *testing.T, dir, home string, args ...string) reconcile.Result {
	t.Helper()
	res, r := applyJSON(t, dir, home, args...)
	if r.Code != 0 {
		t.Fatalf("apply %v: exit %d\nstdout: %s\nstderr: %s", args, r.Code, r.Stdout, r.Stderr)
	}
	return res
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fileStamp is what must not change when nothing is written.
type fileStamp struct {
	mtime time.Time
	ino   uint64
	size  int64
}

// stamps records mtime, inode and size of every file and directory under
// dir, except .actant/lock: the lock file carries the pid of the last
// holder (so a waiting apply can name it) and is rewritten by every run;
// it is lock metadata, not content. Likewise .actant/inputs.rec, the
// record of the last apply's inputs, which a no-op apply refreshes when
// it took the normal path (as `git status` refreshes git's index), and
// .actant/config.cache, which an apply writes when the one before could
// not (its config files were racy: see docs/design.md, "The config
// cache"), and with them the modification time of .actant itself.
func stamps(t *testing.T, dir string) map[string]fileStamp {
	t.Helper()
	out := map[string]fileStamp{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || filepath.Base(p) == reconcile.LockFile || filepath.Base(p) == layout.Inputs || filepath.Base(p) == layout.ConfigCache {
			return nil
		}
		if filepath.Base(p) == layout.Dir && fi.IsDir() {
			fi = dirWithoutMtime{fi}
		}
		out[p] = fileStamp{fi.ModTime(), inode(fi), fi.Size()}
		return nil
	})
	return out
}

// dirWithoutMtime is a directory's FileInfo with its modification time
// left out.
type dirWithoutMtime struct{ os.FileInfo }

func (dirWithoutMtime) ModTime() time.Time { return time.Time{} }

// outsideBlocks removes actctl blocks (and the separator before them) so
// the user's text can be compared.
var blockRe = regexp.MustCompile(`(?s)(\r?\n)*(<!-- |# )BEGIN actctl agent=\S+( -->)?\r?\n.*?(<!-- |# )END actctl agent=\S+( -->)?\r?\n`)

func assertUserFilesIdentical(t *testing.T, dir string) {
	t.Helper()
	for name, want := range userFiles {
		if got := read(t, filepath.Join(dir, name)); got != want {
			t.Errorf("%s is not byte-identical to the user's original:\n got %q\nwant %q", name, got, want)
		}
	}
}

func userFileSet(extra ...string) []string {
	var out []string
	for n := range userFiles {
		out = append(out, n)
	}
	out = append(out, extra...)
	sort.Strings(out)
	return out
}

func filesExceptMeta(t *testing.T, dir string) []string {
	var out []string
	for _, f := range listFiles(t, dir) {
		if !strings.HasPrefix(f, ".actant/") {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// TestApplyLifecycle walks the main scenario: apply into a project
// full of the user's files, re-apply (no writes), edit, drift, --force,
// prune — and the user's files come back byte for byte.
func TestApplyLifecycle(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, userFiles)
	writeConfig(t, dir, projectConfig("the project", true, ""))

	// 1. First apply: blocks and keys go into the user's files.
	res := mustApply(t, dir, home)
	if res.Counts.Changed == 0 || res.Counts.Conflicts != 0 {
		t.Fatalf("first apply: %+v", res.Counts)
	}
	claude := read(t, filepath.Join(dir, "CLAUDE.md"))
	if !strings.HasPrefix(claude, userFiles["CLAUDE.md"]) || !strings.Contains(claude, "<!-- BEGIN actctl agent=reviewer -->\r\n") {
		t.Errorf("CLAUDE.md: user text must stay in front, block appended with CRLF:\n%q", claude)
	}
	if got := blockRe.ReplaceAllString(claude, ""); got != userFiles["CLAUDE.md"] {
		t.Errorf("CLAUDE.md outside the block changed: %q", got)
	}
	if got := blockRe.ReplaceAllString(read(t, filepath.Join(dir, "AGENTS.md")), ""); got != strings.TrimSuffix(userFiles["AGENTS.md"], "\n") && got != userFiles["AGENTS.md"] {
		t.Errorf("AGENTS.md outside the block changed: %q", got)
	}
	mcp := read(t, filepath.Join(dir, ".mcp.json"))
	if !strings.Contains(mcp, "// my servers") || !strings.Contains(mcp, `"mine": {"command": "my-server"}`) || !strings.Contains(mcp, `"filesystem"`) {
		t.Errorf(".mcp.json must keep the user's server and comment and gain ours:\n%s", mcp)
	}
	settings := read(t, filepath.Join(dir, ".claude/settings.json"))
	if !strings.Contains(settings, "\t\"model\": \"opus\"") || !strings.Contains(settings, `"allow": ["Bash(ls)"]`) || !strings.Contains(settings, `"defaultMode": "plan"`) {
		t.Errorf(".claude/settings.json:\n%s", settings)
	}
	gi := read(t, filepath.Join(dir, ".gitignore"))
	if !strings.HasPrefix(gi, userFiles[".gitignore"]+"\n\n# BEGIN actctl\n") || !strings.Contains(gi, ".actant/\n") {
		t.Errorf(".gitignore:\n%q", gi)
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude/skills/go-testing/SKILL.md")); err != nil {
		t.Errorf("owned skill file missing: %v", err)
	}

	// 2. Apply again: nothing is written, not even the state.
	before := stamps(t, dir)
	res = mustApply(t, dir, home)
	if res.Counts.Changed != 0 || res.StateWritten || len(res.Items) != 0 {
		t.Fatalf("second apply must be a no-op: %+v items %+v", res.Counts, res.Items)
	}
	if after := stamps(t, dir); !equalStamps(before, after) {
		t.Errorf("second apply changed mtimes/inodes:\n%s", diffStamps(before, after))
	}
	if r := actctl(t, dir, home, "apply"); r.Code != 0 || strings.TrimSpace(r.Stdout) != "no changes" {
		t.Errorf("text no-op apply: %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	if r := actctl(t, dir, home, "diff"); r.Code != 0 || r.Stdout != "" {
		t.Errorf("diff after apply: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	// 3. Edit the reviewer: only the files it feeds change.
	writeConfig(t, dir, projectConfig("the edited project", true, ""))
	if r := actctl(t, dir, home, "diff"); r.Code != 1 || !strings.Contains(r.Stdout, "+You review the edited project.") {
		t.Errorf("diff after edit: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	res = mustApply(t, dir, home)
	if got := changedPaths(res); strings.Join(got, ",") != "CLAUDE.md" {
		t.Errorf("edit of the reviewer's prompt vars must only touch CLAUDE.md, got %v", got)
	}

	// 4. Hand-edit the managed block: drift is reported and kept.
	claude = read(t, filepath.Join(dir, "CLAUDE.md"))
	edited := strings.Replace(claude, "You review the edited project.", "You review MY way.", 1)
	if edited == claude {
		t.Fatalf("prompt not found in CLAUDE.md:\n%s", claude)
	}
	writeFiles(t, dir, map[string]string{"CLAUDE.md": edited})
	res = mustApply(t, dir, home)
	if res.Counts.Drifted != 1 || res.Counts.Changed != 0 {
		t.Errorf("drift: %+v %+v", res.Counts, res.Items)
	}
	if got := read(t, filepath.Join(dir, "CLAUDE.md")); got != edited {
		t.Errorf("the hand edit must be kept")
	}
	st := actctl(t, dir, home, "status")
	if !regexp.MustCompile(`reviewer\s+OutOfSync.*drift CLAUDE.md`).MatchString(st.Stdout) || !regexp.MustCompile(`fixer\s+Synced`).MatchString(st.Stdout) {
		t.Errorf("status:\n%s%s", st.Stdout, st.Stderr)
	}

	// 5. --force: overwritten, the hand edit backed up.
	res = mustApply(t, dir, home, "--force")
	if res.Counts.Changed != 1 || len(res.Items) != 1 || res.Items[0].Backup == "" {
		t.Fatalf("--force: %+v %+v", res.Counts, res.Items)
	}
	if got := read(t, filepath.Join(dir, "CLAUDE.md")); got != claude {
		t.Errorf("--force must restore actctl's block")
	}
	if got := read(t, filepath.Join(dir, filepath.FromSlash(res.Items[0].Backup))); got != edited {
		t.Errorf("backup must hold the hand-edited file")
	}
	if st := actctl(t, dir, home, "-o", "json", "status"); !strings.Contains(st.Stdout, `"status": "Synced"`) || strings.Contains(st.Stdout, "OutOfSync") {
		t.Errorf("status after --force:\n%s", st.Stdout)
	}

	// 6. Remove the agents: every user file returns to its exact bytes and
	// everything actctl created is gone.
	writeConfig(t, dir, projectConfig("", false, ""))
	res = mustApply(t, dir, home)
	if res.Counts.Pruned != 2 {
		t.Errorf("prune: %+v", res.Counts)
	}
	assertUserFilesIdentical(t, dir)
	if got, want := filesExceptMeta(t, dir), userFileSet("actant.cue"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after prune the files are\n%v\nwant\n%v", got, want)
	}
	for _, d := range []string{".claude/skills", ".agents", ".codex"} {
		if _, err := os.Stat(filepath.Join(dir, d)); err == nil {
			t.Errorf("directory %s that actctl created is still there", d)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".actant", "state.json")); err == nil {
		t.Errorf("state.json must go with the last agent")
	}
}

func changedPaths(res reconcile.Result) []string {
	var out []string
	for _, it := range res.Items {
		switch it.Action {
		case reconcile.ActCreate, reconcile.ActUpdate, reconcile.ActDelete, reconcile.ActRestore:
			out = append(out, it.Path)
		}
	}
	return out
}

func equalStamps(a, b map[string]fileStamp) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func diffStamps(a, b map[string]fileStamp) string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, "+"+k)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestConflictPolicies exercises the four workDirConflict policies against
// a user's instruction file, a user's MCP server of the same name and a
// user's file where actctl wants an owned skill file. Every policy then
// re-applies with no change and prunes back to the user's exact files.
func TestConflictPolicies(t *testing.T) {
	const skillPath = ".claude/skills/go-testing/SKILL.md"
	files := map[string]string{
		"CLAUDE.md": "# mine\n",
		".mcp.json": "{\"mcpServers\": {\"filesystem\": {\"command\": \"my-fs\"}}}\n",
		skillPath:   "my own skill\n",
	}
	cfg := func(policy string) string {
		return `package actant
skills: "go-testing": {description: "Tests", content: "# Go testing\n"}
mcpServers: filesystem: {command: "npx", args: []}
templates: reviewer: {version: "1.0.0", backend: "claude-code", skills: ["go-testing"], mcpServers: ["filesystem"], permissions: "readonly"}
agents: reviewer: {template: "reviewer", workDirConflict: "` + policy + `"}
`
	}
	tests := []struct {
		policy string
		// userKey: the first apply meets the user's own mcpServers.filesystem,
		// which actctl has no record of writing: a conflict, nothing written,
		// until the user moves it (to mcpServers.mine).
		userKey bool
		// conflicts are the files the apply reports as conflicts: exit 1,
		// nothing written.
		conflicts []string
		kept      []string            // files that keep the user's bytes
		prefix    map[string]string   // file -> what it must start with
		contains  map[string][]string // file -> substrings it must hold
		lacks     map[string][]string // file -> substrings it must not hold
		created   []string            // files actctl still creates
		warnings  int                 // -1: not checked
		backups   int                 // files in .actant/backup
	}{
		{
			policy: "append", userKey: true,
			kept:     []string{skillPath},
			prefix:   map[string]string{"CLAUDE.md": "# mine\n\n<!-- BEGIN actctl agent=reviewer -->"},
			contains: map[string][]string{".mcp.json": {`"mine": {"command": "my-fs"}`, "npx"}},
			warnings: 1, // the skill file is the user's
		},
		{
			policy:   "overwrite",
			contains: map[string][]string{skillPath: {"name: go-testing"}},
			lacks:    map[string][]string{"CLAUDE.md": {"# mine"}, ".mcp.json": {"my-fs"}},
			warnings: -1, backups: 3,
		},
		{
			policy:   "skip",
			kept:     []string{"CLAUDE.md", ".mcp.json", skillPath},
			created:  []string{".claude/settings.json"},
			warnings: -1,
		},
		{
			policy:    "error",
			conflicts: []string{"CLAUDE.md", ".mcp.json", skillPath},
		},
	}
	for _, tc := range tests {
		t.Run(tc.policy, func(t *testing.T) {
			files := maps.Clone(files)
			dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
			writeFiles(t, dir, files)
			writeConfig(t, dir, cfg(tc.policy))
			if tc.userKey {
				res, r := applyJSON(t, dir, home)
				if r.Code != 1 || res.Counts.Conflicts != 1 || res.Counts.Changed != 0 ||
					!strings.Contains(r.Stderr, ".mcp.json: agent reviewer (workDirConflict="+tc.policy+"): key mcpServers.filesystem holds a value actctl has no record of writing") {
					t.Fatalf("%s over the user's key: exit %d %+v\n%s", tc.policy, r.Code, res.Counts, r.Stderr)
				}
				assertUnchanged(t, dir, files)
				files[".mcp.json"] = "{\"mcpServers\": {\"mine\": {\"command\": \"my-fs\"}}}\n"
				writeFiles(t, dir, map[string]string{".mcp.json": files[".mcp.json"]})
			}
			res, r := applyJSON(t, dir, home)
			if len(tc.conflicts) > 0 {
				if r.Code != 1 || res.Counts.Conflicts == 0 {
					t.Fatalf("%s policy: exit %d %+v\n%s", tc.policy, r.Code, res.Counts, r.Stderr)
				}
				for _, f := range tc.conflicts {
					if !strings.Contains(r.Stderr, f+": agent reviewer (workDirConflict="+tc.policy+")") {
						t.Errorf("conflict for %s not reported:\n%s", f, r.Stderr)
					}
				}
				if got := filesExceptMeta(t, dir); len(got) != len(files)+1 {
					t.Errorf("%s policy must write nothing, files: %v", tc.policy, got)
				}
				if _, err := os.Stat(filepath.Join(dir, ".actant")); err == nil {
					t.Errorf(".actant must not be left behind")
				}
				for n, c := range files {
					if read(t, filepath.Join(dir, n)) != c {
						t.Errorf("%s changed", n)
					}
				}
				return
			}
			if r.Code != 0 {
				t.Fatalf("exit %d: %s", r.Code, r.Stderr)
			}
			for _, n := range tc.kept {
				if got := read(t, filepath.Join(dir, n)); got != files[n] {
					t.Errorf("%s: %s must keep the user's bytes, got %q", tc.policy, n, got)
				}
			}
			for n, p := range tc.prefix {
				if got := read(t, filepath.Join(dir, n)); !strings.HasPrefix(got, p) {
					t.Errorf("%s: %s must start with %q: %q", tc.policy, n, p, got)
				}
			}
			for n, subs := range tc.contains {
				got := read(t, filepath.Join(dir, n))
				for _, sub := range subs {
					if !strings.Contains(got, sub) {
						t.Errorf("%s: %s lacks %q:\n%s", tc.policy, n, sub, got)
					}
				}
			}
			for n, subs := range tc.lacks {
				got := read(t, filepath.Join(dir, n))
				for _, sub := range subs {
					if strings.Contains(got, sub) {
						t.Errorf("%s: %s still holds %q:\n%s", tc.policy, n, sub, got)
					}
				}
			}
			for _, n := range tc.created {
				if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
					t.Errorf("%s: %s must still be created: %v", tc.policy, n, err)
				}
			}
			if tc.warnings >= 0 && res.Counts.Warnings != tc.warnings {
				t.Errorf("%s: want %d warning(s), got %+v %+v", tc.policy, tc.warnings, res.Counts, res.Items)
			}
			if tc.backups > 0 {
				if backups := listFiles(t, filepath.Join(dir, ".actant", "backup")); len(backups) != tc.backups {
					t.Errorf("%s: want %d backups, got %v", tc.policy, tc.backups, backups)
				}
			}
			if res := mustApply(t, dir, home); res.Counts.Changed != 0 {
				t.Errorf("second apply: %+v %+v", res.Counts, res.Items)
			}
			// Prune: the user's files come back exactly.
			writeConfig(t, dir, "package actant\n")
			mustApply(t, dir, home)
			for n, c := range files {
				if got := read(t, filepath.Join(dir, n)); got != c {
					t.Errorf("after prune %s = %q, want %q", n, got, c)
				}
			}
			want := []string{skillPath, ".mcp.json", "CLAUDE.md", "actant.cue"}
			if got := listFiles(t, dir); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("after prune: %v", got)
			}
		})
	}
}

// TestInstanceArchetype: a repo-archetype agent lives in
// $ACTANT_HOME/instances/<name>, its state in the workspace.
func TestInstanceArchetype(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, `package actant
templates: svc: {version: "1.0.0", backend: "claude-code", archetype: "repo"}
agents: svc: template: "svc"
`)
	mustApply(t, dir, home)
	inst := filepath.Join(home, "instances", "svc")
	for _, f := range []string{".actant.json", "CLAUDE.md", "prompts/system.md", "logs"} {
		if _, err := os.Stat(filepath.Join(inst, f)); err != nil {
			t.Errorf("instance file %s: %v", f, err)
		}
	}
	if got := filesExceptMeta(t, dir); strings.Join(got, ",") != "actant.cue" {
		t.Errorf("nothing but state goes into the workspace: %v", got)
	}
	if !strings.Contains(read(t, filepath.Join(dir, ".actant", "state.json")), inst) {
		t.Errorf("state must record the instance dir")
	}
	if res := mustApply(t, dir, home); res.Counts.Changed != 0 {
		t.Errorf("no-op: %+v", res.Items)
	}
	writeConfig(t, dir, "package actant\n")
	mustApply(t, dir, home)
	if _, err := os.Stat(inst); err == nil {
		t.Errorf("the instance dir actctl created must be removed on prune: %v", listFiles(t, inst))
	}
}

// TestPathEscapes: a symlink inside the workspace pointing elsewhere stops
// apply before any write; a workDir with ".." is the user's choice and
// works. (Names with path tricks: testdata/script/apply_name_path_escape.txtar.)
func TestPathEscapes(t *testing.T) {
	t.Run("symlink", func(t *testing.T) {
		dir, outside := t.TempDir(), t.TempDir()
		writeFiles(t, dir, map[string]string{"CLAUDE.md": "mine\n"})
		if err := os.Symlink(outside, filepath.Join(dir, ".claude")); err != nil {
			t.Fatal(err)
		}
		writeConfig(t, dir, projectConfig("x", true, ""))
		r := actctl(t, dir, "", "apply")
		if r.Code != 1 || !strings.Contains(r.Stderr, "symbolic link") || !strings.Contains(r.Stderr, ".claude") {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		if got := listFiles(t, outside); len(got) != 0 {
			t.Errorf("written outside the workspace: %v", got)
		}
		if got := read(t, filepath.Join(dir, "CLAUDE.md")); got != "mine\n" {
			t.Errorf("CLAUDE.md changed")
		}
		if _, err := os.Stat(filepath.Join(dir, "AGENTS.md")); err == nil {
			t.Errorf("no file may be written when one path escapes")
		}
	})
	t.Run("symlinked file", func(t *testing.T) {
		dir, outside := t.TempDir(), t.TempDir()
		writeFiles(t, outside, map[string]string{"x.md": "other\n"})
		if err := os.Symlink(filepath.Join(outside, "x.md"), filepath.Join(dir, "CLAUDE.md")); err != nil {
			t.Fatal(err)
		}
		writeConfig(t, dir, projectConfig("x", true, ""))
		if r := actctl(t, dir, "", "apply"); r.Code != 1 || !strings.Contains(r.Stderr, "outside the workspace") {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		if read(t, filepath.Join(outside, "x.md")) != "other\n" {
			t.Errorf("the link target outside was written")
		}
	})
	t.Run("workDir outside the root", func(t *testing.T) {
		base := t.TempDir()
		dir := filepath.Join(base, "ws")
		os.MkdirAll(filepath.Join(base, "other"), 0o755)
		os.MkdirAll(dir, 0o755)
		writeConfig(t, dir, `package actant
templates: t: {version: "1.0.0", backend: "claude-code"}
agents: a: {template: "t", workDir: "`+filepath.Join(base, "other")+`"}
`)
		mustApply(t, dir, "")
		if _, err := os.Stat(filepath.Join(base, "other", "CLAUDE.md")); err != nil {
			t.Errorf("workDir ../other: %v", err)
		}
	})
}

// TestLock: a held lock makes apply wait, then fail naming the holder's
// pid; two concurrent applies serialise and converge.
func TestLock(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, userFiles)
	writeConfig(t, dir, projectConfig("x", true, ""))
	l, err := reconcile.Lock(context.Background(), dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r := actctl(t, dir, home, "apply")
	if r.Code != 1 || !strings.Contains(r.Stderr, fmt.Sprintf("workspace locked by pid %d (another actctl apply?)", os.Getpid())) {
		t.Errorf("locked apply: exit %d: %s", r.Code, r.Stderr)
	}
	if got := read(t, filepath.Join(dir, "CLAUDE.md")); got != userFiles["CLAUDE.md"] {
		t.Errorf("a locked-out apply wrote")
	}
	l.Unlock()

	// Two at once: both succeed (the second waits) and the result is
	// converged.
	cmds := make([]*exec.Cmd, 2)
	outs := make([]*bytes.Buffer, 2)
	for i := range cmds {
		cmds[i] = exec.Command(actctlBin, "-o", "json", "apply")
		cmds[i].Dir = dir
		cmds[i].Env = append(os.Environ(), "ACTANT_HOME="+home)
		outs[i] = &bytes.Buffer{}
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	changed := 0
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("concurrent apply %d: %v\n%s", i, err, outs[i])
		}
		var res reconcile.Result
		if err := json.Unmarshal(outs[i].Bytes(), &res); err != nil {
			t.Fatalf("%v: %s", err, outs[i])
		}
		if res.Counts.Changed > 0 {
			changed++
		}
	}
	if changed != 1 {
		t.Errorf("exactly one of two concurrent applies must do the work, got %d", changed)
	}
	if r := actctl(t, dir, home, "diff"); r.Code != 0 {
		t.Errorf("not converged: %s", r.Stdout)
	}
}

// TestKill9 kills apply at random moments; no file is ever truncated and
// the next apply converges. The loop is short to keep CI fast; raise
// ACTCTL_KILL_ITERATIONS for a longer soak.
func TestKill9(t *testing.T) {
	iterations := 30
	if v := os.Getenv("ACTCTL_KILL_ITERATIONS"); v != "" {
		fmt.Sscan(v, &iterations)
	}
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, userFiles)
	// Many skills so an apply is long enough to be cut in the middle.
	manySkills := func(version string) string {
		var b strings.Builder
		b.WriteString("skills: {\n")
		for i := 0; i < 30; i++ {
			fmt.Fprintf(&b, "\t\"k%02d\": {description: \"skill %d\", content: \"# Skill %d %s\\n\\n%s\\n\"}\n", i, i, i, version, strings.Repeat("text ", 200))
		}
		b.WriteString("}\n")
		var names []string
		for i := 0; i < 30; i++ {
			names = append(names, fmt.Sprintf("%q", fmt.Sprintf("k%02d", i)))
		}
		b.WriteString("templates: many: {version: \"1.0.0\", backend: \"gemini\", skills: [" + strings.Join(names, ", ") + "], mcpServers: [\"filesystem\"]}\n")
		return b.String()
	}
	configs := []string{
		projectConfig("one", true, manySkills("A")+"agents: many: template: \"many\"\n"),
		projectConfig("two", true, manySkills("B")+"agents: many: template: \"many\"\n"),
		projectConfig("three", false, ""),
	}
	seed := time.Now().UnixNano()
	if v := os.Getenv("ACTCTL_KILL_SEED"); v != "" {
		fmt.Sscan(v, &seed)
	}
	rng := rand.New(rand.NewSource(seed))
	names := []string{"one", "two", "three"}
	midWrite := 0
	defer func() {
		t.Logf("seed %d: %d iterations, %d killed between the journal and the state", seed, iterations, midWrite)
	}()
	// hist records, per killed run, what it was asked to do and what it
	// left in .actant, dumped on failure (see dumpKillHistory).
	var hist []killRecord
	defer func() {
		if t.Failed() {
			dumpKillHistory(t, dir, hist)
		}
	}()
	for i := 0; i < iterations; i++ {
		c := rng.Intn(len(configs))
		writeConfig(t, dir, configs[c])
		cmd := exec.Command(actctlBin, "apply")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "ACTANT_HOME="+home)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sleep := time.Duration(10000+rng.Intn(80000)) * time.Microsecond
		time.Sleep(sleep)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		werr := cmd.Wait()
		rec := killRecord{iter: i, config: names[c], sleep: sleep, killed: werr != nil}
		rec.state, _ = os.ReadFile(filepath.Join(dir, ".actant", reconcile.StateFile))
		rec.pending, rec.pendingErr = os.ReadFile(filepath.Join(dir, ".actant", reconcile.PendingFile))
		if rec.pendingErr == nil {
			midWrite++
		}
		rec.untracked = untrackedFiles(t, dir, rec.state, rec.pending)
		hist = append(hist, rec)
		if len(rec.untracked) > 0 {
			// Every file actctl made is in the state or the journal at
			// every moment, else no later apply knows it is actctl's.
			t.Errorf("iteration %d: files recorded by neither the state nor the journal: %v", i, rec.untracked)
		}
		checkWhole(t, dir)
		if t.Failed() {
			t.Fatalf("iteration %d", i)
		}
		if i%5 == 4 {
			// Converge, then check nothing is left to do.
			mustApply(t, dir, home)
			if r := actctl(t, dir, home, "diff"); r.Code != 0 {
				t.Fatalf("iteration %d: not converged:\n%s%s", i, r.Stdout, r.Stderr)
			}
			st, _ := os.ReadFile(filepath.Join(dir, ".actant", reconcile.StateFile))
			hist = append(hist, killRecord{iter: i, config: names[c] + " (converge)", state: st, pendingErr: os.ErrNotExist, untracked: untrackedFiles(t, dir, st, nil)})
		}
	}
	// Finally: converge, prune everything, and the user's files are back.
	writeConfig(t, dir, projectConfig("", false, ""))
	mustApply(t, dir, home)
	assertUserFilesIdentical(t, dir)
	if got, want := filesExceptMeta(t, dir), userFileSet("actant.cue"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after the final prune:\n%v\nwant\n%v", got, want)
	}
	if got := dirsExceptMeta(t, dir); strings.Join(got, ",") != ".claude,src" { // the user's
		t.Errorf("after the final prune, directories actctl created are left: %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ".actant")); err == nil {
		t.Errorf("after the final prune, .actant is left: %v", listFiles(t, filepath.Join(dir, ".actant")))
	}
}

// killRecord is one iteration of TestKill9, for the failure dump.
type killRecord struct {
	iter       int
	config     string
	sleep      time.Duration
	killed     bool
	state      []byte
	pending    []byte
	pendingErr error
	// untracked: files on disk that are neither the user's nor recorded
	// by the state or the journal (what a later prune would leave).
	untracked []string
}

// untrackedFiles lists the files below dir that are not the user's, not
// the config, not metadata, and recorded by neither state nor journal.
func untrackedFiles(t *testing.T, dir string, state, pending []byte) []string {
	t.Helper()
	recorded := map[string]bool{}
	for _, data := range [][]byte{state, pending} {
		if len(data) == 0 {
			continue
		}
		var st reconcile.State
		if err := json.Unmarshal(data, &st); err != nil {
			t.Errorf("state/journal does not parse: %v\n%s", err, data)
			continue
		}
		for _, a := range st.Agents {
			for _, e := range a.Entries {
				if rel, err := filepath.Rel(dir, filepath.Join(a.Dir, filepath.FromSlash(e.Path))); err == nil && !e.Adopted {
					recorded[filepath.ToSlash(rel)] = true
				}
			}
		}
	}
	var out []string
	for _, f := range filesExceptMeta(t, dir) {
		if strings.HasPrefix(path.Base(f), atomicfile.TempPrefix) {
			continue // a killed write's temp file: the next apply removes it
		}
		if _, user := userFiles[f]; !user && f != "actant.cue" && f != reconcile.OwnedFile && !recorded[f] {
			out = append(out, f)
		}
	}
	return out
}

// dirsExceptMeta lists the directories below dir, except .actant.
func dirsExceptMeta(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || !info.IsDir() || p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".actant" {
			return filepath.SkipDir
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(out)
	return out
}

// dumpKillHistory logs what every iteration of TestKill9 was asked to do
// and left behind, the first one that left untracked files, and the
// state and journals around it; ACTCTL_KILL_DUMP=<dir> also writes every
// state and journal there.
func dumpKillHistory(t *testing.T, dir string, hist []killRecord) {
	t.Helper()
	dump := os.Getenv("ACTCTL_KILL_DUMP")
	if dump != "" {
		os.MkdirAll(dump, 0o755)
	}
	summary := func(data []byte) string {
		if len(data) == 0 {
			return "-"
		}
		var st reconcile.State
		if err := json.Unmarshal(data, &st); err != nil {
			return "unparsable"
		}
		var parts []string
		for n, a := range st.Agents {
			adopted := 0
			for _, e := range a.Entries {
				if e.Adopted {
					adopted++
				}
			}
			parts = append(parts, fmt.Sprintf("%s:%d(adopted %d)", n, len(a.Entries), adopted))
		}
		sort.Strings(parts)
		return strings.Join(parts, " ")
	}
	first := -1
	for k, h := range hist {
		t.Logf("#%d iter %d config %-16s sleep %-8s killed %-5v state [%s] journal [%s] untracked %v",
			k, h.iter, h.config, h.sleep.Round(time.Millisecond), h.killed, summary(h.state), summary(h.pending), h.untracked)
		if first < 0 && len(h.untracked) > 0 {
			first = k
		}
		if dump != "" {
			os.WriteFile(filepath.Join(dump, fmt.Sprintf("%03d-state.json", k)), h.state, 0o644)
			if h.pendingErr == nil {
				os.WriteFile(filepath.Join(dump, fmt.Sprintf("%03d-pending.json", k)), h.pending, 0o644)
			}
		}
	}
	if first >= 0 {
		t.Logf("first untracked files after #%d: %v", first, hist[first].untracked)
		for k := max(0, first-2); k <= first; k++ {
			t.Logf("#%d state.json:\n%s\n#%d journal:\n%s", k, hist[k].state, k, hist[k].pending)
		}
	}
	if st, err := os.ReadFile(filepath.Join(dir, ".actant", reconcile.StateFile)); err == nil {
		t.Logf("final state.json:\n%s", st)
	}
}

// checkWhole fails when any file looks truncated: JSON must parse, skill
// files must be complete, blocks closed, the user's text intact.
func checkWhole(t *testing.T, dir string) {
	t.Helper()
	for _, f := range listFiles(t, dir) {
		data := read(t, filepath.Join(dir, f))
		switch {
		case strings.HasSuffix(f, ".json") && !strings.Contains(f, ".mcp.json") && !strings.Contains(f, "settings.json"):
			if !json.Valid([]byte(data)) {
				t.Errorf("%s: not valid JSON (truncated?):\n%s", f, data)
			}
		case strings.HasSuffix(f, "SKILL.md"):
			if !strings.HasPrefix(data, "---\n") || !strings.HasSuffix(data, "\n") || !strings.Contains(data, "text text") && strings.Contains(f, "/k") {
				t.Errorf("%s: truncated skill file: %q", f, data)
			}
		case f == "CLAUDE.md" || f == "AGENTS.md" || f == ".gitignore":
			if !strings.HasPrefix(data, userFiles[f]) {
				t.Errorf("%s: the user's text was damaged: %q", f, data)
			}
			if strings.Count(data, "BEGIN actctl") != strings.Count(data, "END actctl") {
				t.Errorf("%s: unbalanced block (truncated?): %q", f, data)
			}
		case f == ".mcp.json" || f == ".claude/settings.json":
			if !strings.Contains(data, "my") && !strings.Contains(data, "opus") || !strings.HasSuffix(strings.TrimSpace(data), "}") {
				t.Errorf("%s: damaged: %q", f, data)
			}
		}
	}
}

// TestGeminiSettingsShared: a Gemini agent's MCP server and approval mode
// go into the user's own .gemini/settings.json next to the user's keys
// (one of them in the same "general" object); removing the agent gives
// the file back byte for byte.
func TestGeminiSettingsShared(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	const user = "{\n  \"general\": {\n    \"vimMode\": true\n  },\n  \"ui\": {\"theme\": \"GitHub\"}\n}\n"
	writeFiles(t, dir, map[string]string{".gemini/settings.json": user})
	cfg := func(agents string) string {
		return `package actant
mcpServers: fs: {command: "npx", args: ["-y", "server-filesystem", "."]}
templates: g: {backend: "gemini", mcpServers: ["fs"], permissions: "readonly"}
agents: {` + agents + `}
`
	}
	writeConfig(t, dir, cfg(`helper: template: "g"`))
	mustApply(t, dir, home)
	var got struct {
		General struct {
			VimMode             bool   `json:"vimMode"`
			DefaultApprovalMode string `json:"defaultApprovalMode"`
		} `json:"general"`
		UI         map[string]string          `json:"ui"`
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	body := read(t, filepath.Join(dir, ".gemini/settings.json"))
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("settings.json after apply is not JSON: %v\n%s", err, body)
	}
	if !got.General.VimMode || got.General.DefaultApprovalMode != "plan" || got.UI["theme"] != "GitHub" || got.MCPServers["fs"] == nil {
		t.Errorf("settings.json after apply:\n%s", body)
	}
	if r := actctl(t, dir, home, "diff"); r.Code != 0 {
		t.Errorf("diff after apply: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	writeConfig(t, dir, cfg(""))
	mustApply(t, dir, home)
	if got := read(t, filepath.Join(dir, ".gemini/settings.json")); got != user {
		t.Errorf("settings.json after prune:\n got %q\nwant %q", got, user)
	}
}

// assertUnchanged checks that the workspace holds exactly files (plus
// actant.cue), byte for byte, and no .actant: nothing was written.
func assertUnchanged(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for n, c := range files {
		if got := read(t, filepath.Join(dir, n)); got != c {
			t.Errorf("%s changed: %q", n, got)
		}
	}
	if got := filesExceptMeta(t, dir); len(got) != len(files)+1 {
		t.Errorf("files written: %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ".actant")); err == nil {
		t.Errorf(".actant left behind")
	}
}
