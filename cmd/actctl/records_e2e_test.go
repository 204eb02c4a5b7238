package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/jsonkeys"
	"github.com/actctl/actctl/reconcile"
)

// renameConfig declares one Claude Code agent named name with the
// permission preset perm and an MCP server, so it manages keys in the
// user's .claude/settings.json and .mcp.json.
func renameConfig(name, perm string) string {
	return `package actant
mcpServers: filesystem: {command: "npx", args: ["-y", "server-filesystem", "."]}
templates: lead: {version: "1.0.0", backend: "claude-code", mcpServers: ["filesystem"], permissions: "` + perm + `"}
agents: "` + name + `": template: "lead"
`
}

// renameUserFiles are the user's files the renamed agent shares.
var renameUserFiles = map[string]string{
	".claude/settings.json": "{\n\t\"model\": \"opus\",\n\t\"permissions\": {\n\t\t\"allow\": [\"Bash(ls)\"]\n\t}\n}\n",
	".mcp.json":             "{\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"my-server\"}\n  }\n}\n",
}

// TestRenameTakesOverReleasedKeys: renaming an agent and changing its
// permissions in one edit is no conflict: the keys the pruned agent
// releases (permissions.defaultMode, mcpServers.filesystem) are
// actctl's, and the renamed agent takes them over in the same plan; the
// prune of the renamed agent then gives the user's files back byte for
// byte. A key the pruned agent held that was edited by hand stays a real
// conflict, and nothing is written. (issue #20 item 18)
func TestRenameTakesOverReleasedKeys(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, renameUserFiles)
	writeConfig(t, dir, renameConfig("lead", "readonly"))
	mustApply(t, dir, home)

	writeConfig(t, dir, renameConfig("boss", "permissive"))
	r := actctl(t, dir, home, "apply")
	if r.Code != 0 {
		t.Fatalf("rename and change of permissions: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	settings := read(t, filepath.Join(dir, ".claude/settings.json"))
	if !strings.Contains(settings, `"bypassPermissions"`) || strings.Contains(settings, `"plan"`) || !strings.Contains(settings, `"opus"`) {
		t.Errorf("settings after the rename:\n%s", settings)
	}
	if r := actctl(t, dir, home, "diff"); r.Code != 0 {
		t.Errorf("not converged after the rename:\n%s%s", r.Stdout, r.Stderr)
	}

	writeConfig(t, dir, "package actant\n")
	mustApply(t, dir, home)
	for n, c := range renameUserFiles {
		if got := read(t, filepath.Join(dir, n)); got != c {
			t.Errorf("%s after the prune:\n%q\nwant\n%q", n, got, c)
		}
	}
}

// TestRenameOverHandEditIsAConflict: the pruned agent's key was edited by
// hand, so it is the user's: the renamed agent's different value is a
// conflict and nothing is written.
func TestRenameOverHandEditIsAConflict(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, renameUserFiles)
	writeConfig(t, dir, renameConfig("lead", "readonly"))
	mustApply(t, dir, home)
	p := filepath.Join(dir, ".claude/settings.json")
	edited := strings.Replace(read(t, p), `"plan"`, `"acceptEdits"`, 1)
	writeFiles(t, dir, map[string]string{".claude/settings.json": edited})

	writeConfig(t, dir, renameConfig("boss", "permissive"))
	before := stamps(t, dir)
	r := actctl(t, dir, home, "apply")
	if r.Code == 0 || !strings.Contains(r.Stderr, "permissions.defaultMode") || !strings.Contains(r.Stderr, "nothing was written") {
		t.Fatalf("want a conflict on permissions.defaultMode: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if after := stamps(t, dir); !equalStamps(before, after) {
		t.Errorf("a conflict wrote:\n%s", diffStamps(before, after))
	}
	if got := read(t, p); got != edited {
		t.Errorf("settings changed:\n%s", got)
	}
}

// claimConfig declares one Claude Code agent, lead, with an MCP server:
// it writes CLAUDE.md (a block), .mcp.json (a key) and owned files.
const claimConfig = `package actant
mcpServers: filesystem: {command: "npx", args: ["-y", "server-filesystem", "."]}
templates: lead: {version: "1.0.0", backend: "claude-code", mcpServers: ["filesystem"]}
agents: lead: template: "lead"
`

// claimRepo is a repository's files: an example config the user copies
// (config.yml is ignored), a README, an empty __init__.py, the user's
// .mcp.json, Claude settings and notes with an example of actctl's
// markers, and OLD.md, an owned file of lead's that a teammate's actctl
// wrote and no longer wants.
var claimRepo = map[string]string{
	"config.example.yml":    "token: CHANGE-ME\n",
	".gitignore":            "config.yml\n",
	"README.md":             "# The project\n",
	"pkg/__init__.py":       "",
	".mcp.json":             "{\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"my-server\"}\n  }\n}\n",
	"NOTES.md":              "# Notes\n\n<!-- BEGIN actctl agent=lead -->\nexample\n<!-- END actctl agent=lead -->\n",
	"OLD.md":                "an old skill\n",
	".claude/settings.json": "{\n  \"permissions\": {\"defaultMode\": \"plan\"}\n}\n",
}

func hexSum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// forgeClaims rewrites dir's actant.owned as a hostile or careless commit
// would: an undeclared agent, evil, claims config.yml (with the digest of
// config.example.yml), README.md and the empty __init__.py; the declared
// lead claims config.yml too, the user's key mcpServers.mine and block
// in NOTES.md, permissions.defaultMode in the user's
// .claude/settings.json, a block "created" in pkg/new/__init__.py (so
// that, the file being empty, prune would delete it), and OLD.md (as a
// teammate's record of a file lead no longer writes).
func forgeClaims(t *testing.T, dir string) {
	t.Helper()
	p := filepath.Join(dir, reconcile.OwnedFile)
	var rec map[string]any
	if err := json.Unmarshal([]byte(read(t, p)), &rec); err != nil {
		t.Fatal(err)
	}
	file := func(path, content string) map[string]any {
		return map[string]any{"path": path, "mode": "file", "sha256": hexSum([]byte(content)), "created": true}
	}
	example := claimRepo["config.example.yml"]
	agents := rec["agents"].(map[string]any)
	agents["evil"] = map[string]any{"dir": ".", "entries": []any{
		file("README.md", claimRepo["README.md"]), file("config.yml", example), file("pkg/__init__.py", ""),
	}}
	mode, err := jsonkeys.Canonical([]byte(`"plan"`))
	if err != nil {
		t.Fatal(err)
	}
	lead := agents["lead"].(map[string]any)
	lead["entries"] = append(lead["entries"].([]any),
		file("OLD.md", claimRepo["OLD.md"]),
		file("config.yml", example),
		map[string]any{"path": "NOTES.md", "mode": "block", "style": "html", "sha256": hexSum([]byte("example\n")), "sep": "\n"},
		map[string]any{"path": "pkg/new/__init__.py", "mode": "block", "style": "hash", "sha256": hexSum([]byte("x\n")), "created": true},
		map[string]any{"path": ".claude/settings.json", "mode": "keys", "format": "json", "keys": []any{
			map[string]any{"path": []string{"permissions", "defaultMode"}, "sha256": hexSum(mode), "seq": 9},
		}},
	)
	out, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{reconcile.OwnedFile: string(out) + "\n"})
}

// TestPulledRecordIsAClaim: a pulled actant.owned is a claim, not proof.
// The user applied, committed, copied config.example.yml to the ignored
// config.yml and edited NOTES.md and .claude/settings.json; then pulled
// a record in which an undeclared agent claims config.yml, README.md and
// an empty __init__.py, and lead claims config.yml, the user's key and
// block (in the files edited since HEAD), a new empty __init__.py and
// OLD.md. apply removes nothing git cannot give back: only OLD.md, which
// git holds at HEAD exactly as it is, goes; the rest is kept and said;
// evil is not pruned, in one line. The next apply has nothing to do.
// (issue #20 item 1)
func TestPulledRecordIsAClaim(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, claimRepo)
	writeConfig(t, dir, claimConfig)
	mustApply(t, dir, home)
	hubGit(t, dir, "init", "-q")
	hubGit(t, dir, "add", "-A")
	hubGit(t, dir, "commit", "-q", "-m", "agents")

	writeFiles(t, dir, map[string]string{
		"config.yml":            claimRepo["config.example.yml"],
		"pkg/new/__init__.py":   "",
		"NOTES.md":              claimRepo["NOTES.md"] + "more notes\n",
		".claude/settings.json": strings.Replace(claimRepo[".claude/settings.json"], "{\n", "{\n  \"model\": \"opus\",\n", 1),
	})
	forgeClaims(t, dir)
	keep := map[string]string{}
	for _, f := range []string{"config.yml", "README.md", "pkg/__init__.py", "pkg/new/__init__.py", ".mcp.json", "NOTES.md", "CLAUDE.md", ".claude/settings.json"} {
		keep[f] = read(t, filepath.Join(dir, f))
	}

	r := actctl(t, dir, home, "apply")
	if r.Code != 0 {
		t.Fatalf("apply: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for f, c := range keep {
		if got, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(got) != c {
			t.Errorf("%s: %v %q, want %q", f, err, got, c)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "OLD.md")); err == nil {
		t.Errorf("OLD.md, held by git at HEAD, not pruned")
	}
	var lines []string
	for _, l := range strings.Split(r.Stdout, "\n") {
		if strings.Contains(l, "evil") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "not pruned on the committed record's word alone") {
		t.Errorf("want one line about evil:\n%s", r.Stdout)
	}
	for _, f := range []string{"config.yml", ".claude/settings.json", "NOTES.md", "pkg/new/__init__.py"} {
		said := false
		for _, l := range strings.Split(r.Stdout, "\n") {
			fs := strings.Fields(l)
			said = said || len(fs) > 2 && fs[0] == "warning" && fs[1] == f && strings.Contains(l, "git does not hold the file as it is now at HEAD; kept as yours")
		}
		if !said {
			t.Errorf("the kept claim on %s is not said:\n%s", f, r.Stdout)
		}
	}
	owned := read(t, filepath.Join(dir, reconcile.OwnedFile))
	for _, s := range []string{"evil", "config.yml", "NOTES.md", "settings.json", "OLD.md"} {
		if strings.Contains(owned, s) {
			t.Errorf("%s still lists %s:\n%s", reconcile.OwnedFile, s, owned)
		}
	}
	if r := actctl(t, dir, home, "apply"); r.Code != 0 || strings.TrimSpace(r.Stdout) != "no changes" {
		t.Errorf("second apply: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestFreshCloneRecordIsAClaim: in a fresh clone (no state.json), a
// committed record naming an agent nobody declares does not delete the
// tracked README.md or the empty __init__.py it claims; the declared
// agent's committed files are still recognised (nothing created). (What
// the record claims for the declared agent goes where git holds it at
// HEAD: git can give it back.)
// (issue #20 item 1)
func TestFreshCloneRecordIsAClaim(t *testing.T) {
	origin, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, origin, claimRepo)
	writeConfig(t, origin, claimConfig)
	mustApply(t, origin, home)
	forgeClaims(t, origin)
	hubGit(t, origin, "init", "-q")
	hubGit(t, origin, "add", "-A")
	hubGit(t, origin, "commit", "-q", "-m", "agents")
	clone := filepath.Join(t.TempDir(), "clone")
	hubGit(t, origin, "clone", "-q", origin, clone)

	home = filepath.Join(t.TempDir(), "home") // another machine
	r := actctl(t, clone, home, "apply")
	if r.Code != 0 || !strings.Contains(r.Stdout, "names agent(s) evil, neither declared nor applied on this machine") {
		t.Fatalf("apply in the clone: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, f := range []string{"README.md", "pkg/__init__.py", "CLAUDE.md", ".mcp.json"} {
		if got, err := os.ReadFile(filepath.Join(clone, f)); err != nil || string(got) != read(t, filepath.Join(origin, f)) {
			t.Errorf("%s: %v %q", f, err, got)
		}
	}
	if strings.Contains(r.Stdout, "CLAUDE.md") || strings.Contains(r.Stdout, "create") {
		t.Errorf("the committed files of lead are not recognised:\n%s", r.Stdout)
	}
}
