//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/actctl/actctl/internal/jsonkeys"
	"github.com/actctl/actctl/internal/userkey"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/reconcile"
)

// forgedRecord is one file actctl reads from a workspace's .actant/ or
// from $ACTANT_HOME, as someone other than this user's actctl would put
// it there (docs/design.md, "What actctl trusts").
type forgedRecord struct {
	// path is relative to the workspace root, or to the home when home.
	path string
	home bool
	// content is the forged file for the workspace at root, sealed (where
	// the file has a seal) with key; pid is a process the test started.
	content func(root string, key []byte, pid int) string
	// also is a command that reads the file besides apply, diff, status
	// and get (its exit code is not checked: refusing is fine).
	also func(root string) []string
	// link, when set, makes the file a symbolic link to link (relative
	// to its directory) in place of content; commands may refuse it.
	link string
}

// wideState is a state that would widen apply: an undeclared agent
// "created" the user's config.yml, and a file in the project next door.
func wideState(root string) []byte {
	other := filepath.Join(filepath.Dir(root), "otherproj")
	b, _ := json.Marshal(map[string]any{"version": 1, "root": root, "agents": map[string]any{
		"evil": map[string]any{"dir": root, "entries": []any{map[string]any{
			"path": "config.yml", "mode": "file", "sha256": hexSum([]byte(claimRepo["config.example.yml"])), "created": true,
		}}},
		"next": map[string]any{"dir": other, "entries": []any{map[string]any{
			"path": "main.go", "mode": "file", "sha256": hexSum([]byte(otherProj["main.go"])), "created": true,
		}}},
	}})
	return b
}

// otherProj is the project next to the workspace, with Zed settings
// holding the user's own entry "lead".
var otherProj = map[string]string{"main.go": "package main\n", "zed.json": `{"agent_servers": {"lead": {"command": "mine"}}}`}

// zedSettings is otherProj's Zed settings file for the workspace at root.
func zedSettings(root string) string {
	return filepath.Join(filepath.Dir(root), "otherproj", "zed.json")
}

// zedClaim is a record claiming the user's Zed entry "lead" as actctl's
// for the workspace at root (its digest, an empty receipt).
func zedClaim(root string) []byte {
	canon, _ := jsonkeys.Canonical([]byte(`{"command": "mine"}`))
	b, _ := json.Marshal(map[string]any{"settings": map[string]any{
		zedSettings(root): map[string]any{"lead": map[string]any{"workspace": root, "sha256": hexSum(canon), "receipt": map[string]any{}}},
	}})
	return b
}

// wideAdhoc adds agents actant.cue does not show, one of them as actctl
// itself would make it (a template's agent in sub/).
const wideAdhoc = `{"agents": {
  "sneak": {"template": "lead", "workDir": "../otherproj"},
  "raise": {"template": "lead", "workDir": "sub", "permissions": "permissive"},
  "extra": {"template": "lead", "workDir": "sub"}
}}`

// forgedRecords is every file actctl reads from .actant/ and
// $ACTANT_HOME (the table of docs/design.md, "What actctl trusts").
var forgedRecords = []forgedRecord{
	{path: ".actant/state.json", content: func(root string, key []byte, _ int) string {
		return string(userkey.SealJSON(key, "actctl state", wideState(root)))
	}},
	{path: ".actant/state.pending.json", content: func(root string, key []byte, _ int) string {
		return string(userkey.SealJSON(key, "actctl state", wideState(root)))
	}},
	{path: ".actant/adhoc.json", content: func(root string, key []byte, _ int) string {
		return string(userkey.SealJSON(key, "actctl adhoc "+root, []byte(wideAdhoc)))
	}},
	{path: ".actant/inputs.rec", content: func(_ string, key []byte, _ int) string {
		return string(userkey.Seal(key, []byte("{\"version\":1}\n")))
	}},
	{path: ".actant/config.cache", content: func(_ string, key []byte, _ int) string {
		return string(userkey.Seal(key, []byte("{\"version\":1}\n")))
	}},
	{path: ".actant/backup/20260101T000000.000000000Z/config.yml", content: func(string, []byte, int) string {
		return "token: FORGED\n"
	}},
	{path: ".actant/lock", content: func(_ string, _ []byte, pid int) string { return fmt.Sprintf("%d\n", pid) }},
	{path: ".actant/agents/lead.json", content: func(_ string, _ []byte, pid int) string {
		return fmt.Sprintf(`{"name": "lead", "status": "running", "pid": %d, "processOwnership": "managed"}`, pid)
	}},
	{path: ".actant/logs/lead.log", content: func(string, []byte, int) string { return "forged\n" }},
	{path: ".actant/logs/lead/actctl.log", content: func(string, []byte, int) string { return "{\"task\": \"forged\"}\n" }},
	{path: ".actant/logs/lead/tasks/forged.jsonl", content: func(string, []byte, int) string { return "{}\n" }},
	{path: ".actant/run/up.lock", content: func(_ string, _ []byte, pid int) string { return fmt.Sprintf("%d\n", pid) }},
	// A ledger of a gone owner (no pid is this high) naming the test's
	// own process with its real start time: never read in a workspace.
	// The home's ledgers are forged in launch's tests (TestSweepForgedLedger).
	{path: ".actant/run/999999999-1.procs", content: func(_ string, _ []byte, pid int) string {
		start, _ := launch.StartTime(pid)
		return fmt.Sprintf("%d %d %d-forged\n", pid, start, pid)
	}},
	{path: ".actant", link: "../otherproj"},
	{path: ".actant/logs", link: "../../otherproj"},
	{path: ".actant/logs/helper.log", link: "../../../otherproj/main.go"},
	{path: ".actant/agents/helper.json", link: "/dev/zero"},
	{path: ".actant/agents", link: "../../otherproj"},
	{path: ".actant/backup", link: "../../otherproj"},
	{path: ".actant/run", link: "../../otherproj"},
	{path: userkey.File, home: true, content: func(string, []byte, int) string { return strings.Repeat("k", userkey.Size) }},
	{path: "zed.json", home: true, content: func(root string, key []byte, _ int) string {
		return string(userkey.SealJSON(key, "actctl zed", zedClaim(root)))
	}, also: func(root string) []string { return []string{"zed", "--write", "--settings", zedSettings(root)} }},
	{path: "instances/lead/.actant.json", home: true, content: func(_ string, _ []byte, pid int) string {
		return fmt.Sprintf(`{"name": "lead", "status": "running", "pid": %d}`, pid)
	}},
	{path: "hub/x/trees/0000.json", home: true, content: func(string, []byte, int) string { return `{"commit": "0000", "digest": "x"}` }},
}

// TestForgedRecordsWidenNothing forges, one at a time, every file actctl
// reads from .actant/ and $ACTANT_HOME: committed in a clone (sealed with
// this very user's key, so that only git tracking it keeps it from being
// trusted), and forged in place, untracked, with a seal of another key.
// Then apply, diff, status, run and get run: none of them changes a file of
// the workspace (no user file deleted, restored over or emptied, no
// preset raised), writes next door, adds an agent or signals the process
// a record names. (issue #30 item 4)
func TestForgedRecordsWidenNothing(t *testing.T) {
	sleeper := exec.Command("sleep", "600")
	sleeper.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
	pid := sleeper.Process.Pid
	for _, rec := range forgedRecords {
		ways := []bool{true, false}
		if rec.home {
			ways = []bool{false} // no clone brings $ACTANT_HOME
		}
		for _, committed := range ways {
			name := rec.path + map[bool]string{true: " committed", false: " forged"}[committed]
			t.Run(name, func(t *testing.T) {
				root, home := forgeWorkspace(t, rec, committed, pid)
				var also []string
				if rec.also != nil {
					also = rec.also(root)
				}
				checkWidensNothing(t, root, home, pid, also, rec.link != "")
			})
		}
	}
}

// classConfig is claimConfig with a readonly agent that `run` can run
// (the scripted ACP agent).
func classConfig(t *testing.T) string {
	return claimConfig + scriptedBackend(t, "") + `
templates: helper: {backend: "scripted", permissions: "readonly"}
agents: helper: template: "helper"
`
}

// forgeWorkspace makes a workspace holding rec's forged file and the
// user's untracked config.yml, next to otherproj. committed: a clone of a
// repository that committed the file (sealed with this user's key) with
// the files apply writes; else a workspace applied here, then the file
// forged in place with another key's seal. It returns the root and the
// home to run actctl with.
func forgeWorkspace(t *testing.T, rec forgedRecord, committed bool, pid int) (root, home string) {
	t.Helper()
	base := t.TempDir()
	home = filepath.Join(base, "home")
	writeFiles(t, filepath.Join(base, "otherproj"), otherProj)
	origin := filepath.Join(base, "origin")
	writeFiles(t, origin, claimRepo)
	writeFiles(t, origin, map[string]string{"sub/README.md": "sub\n"})
	writeConfig(t, origin, classConfig(t))
	if !committed {
		mustApply(t, origin, home)
		forge(t, origin, home, rec, origin, make([]byte, userkey.Size), pid)
		writeFiles(t, origin, map[string]string{"config.yml": claimRepo["config.example.yml"]})
		return origin, home
	}
	root = filepath.Join(base, "clone")
	key, err := userkey.Key(home, true)
	if err != nil {
		t.Fatal(err)
	}
	// Committed before the apply, so that apply ignores no tracked path
	// in .gitignore; forged again after it (apply rewrites a state). A
	// link only after it: apply refuses one.
	if rec.link == "" {
		forge(t, origin, home, rec, root, key, pid)
	}
	hubGit(t, origin, "init", "-q")
	hubGit(t, origin, "add", "-A")
	if rec.link == "" {
		hubGit(t, origin, "add", "-f", rec.path)
	}
	hubGit(t, origin, "commit", "-q", "-m", "agents")
	mustApply(t, origin, home)
	forge(t, origin, home, rec, root, key, pid)
	if rec.link != "" {
		hubGit(t, origin, "add", "-A") // .actant is ignored now
	} else {
		hubGit(t, origin, "add", "-A", "--", ".", ":!.actant") // only the forged file of .actant
	}
	hubGit(t, origin, "add", "-f", rec.path)
	hubGit(t, origin, "commit", "-q", "-m", "applied")
	if rec.link != "" {
		// What apply writes with the link tracked (.gitignore lists no
		// tracked path), committed too; apply may refuse the link.
		actctl(t, origin, home, "apply")
		hubGit(t, origin, "add", "-A")
		hubGit(t, origin, "commit", "-q", "--allow-empty", "-m", "applied again")
	}
	hubGit(t, origin, "clone", "-q", origin, root)
	writeFiles(t, root, map[string]string{"config.yml": claimRepo["config.example.yml"]})
	return root, home
}

// forge writes rec's forged file for the workspace at root (sealed with
// key) into dir, or into home for a file of the home.
func forge(t *testing.T, dir, home string, rec forgedRecord, root string, key []byte, pid int) {
	t.Helper()
	if rec.home {
		dir = home
	}
	if rec.link != "" {
		p := filepath.Join(dir, rec.path)
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(rec.link, p); err != nil {
			t.Fatal(err)
		}
		return
	}
	writeFiles(t, dir, map[string]string{rec.path: rec.content(root, key, pid)})
	if rec.path == userkey.File {
		if err := os.Chmod(filepath.Join(home, rec.path), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkWidensNothing runs apply, diff, status, run and get in root (and
// also, when set) and fails when the workspace's files (outside .actant/
// and .git/) or the project next door changed, an agent other than the
// declared lead and helper appears, or pid was signalled.
func checkWidensNothing(t *testing.T, root, home string, pid int, also []string, linked bool) {
	t.Helper()
	other := filepath.Join(filepath.Dir(root), "otherproj")
	before, beforeOther := userTree(t, root), userTree(t, other)
	for _, args := range [][]string{{"apply"}, {"diff"}, {"status"}, {"run", "helper", "-p", "hi"}, {"apply"}} {
		if r := actctl(t, root, home, args...); r.Code != 0 && !linked {
			t.Errorf("%s: exit %d\n%s%s", args[0], r.Code, r.Stdout, r.Stderr)
		}
	}
	if also != nil {
		actctl(t, root, home, also...)
	}
	sameTree(t, root, before, userTree(t, root))
	sameTree(t, other, beforeOther, userTree(t, other))
	r := actctl(t, root, home, "get", "agents", "-o", "json")
	var agents []struct{ Name string }
	if err := json.Unmarshal([]byte(r.Stdout), &agents); err != nil || len(agents) != 2 || agents[0].Name != "helper" || agents[1].Name != "lead" {
		t.Errorf("agents: %v %s%s", err, r.Stdout, r.Stderr)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the process a record named is gone: %v", err)
	}
}

// userTree is every file under dir but actctl's records and git's, with
// its content.
func userTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range listFiles(t, dir) {
		if f != reconcile.MetaDir && !strings.HasPrefix(f, reconcile.MetaDir+"/") && !strings.HasPrefix(f, ".git/") {
			out[f] = read(t, filepath.Join(dir, f))
		}
	}
	return out
}

// sameTree fails for each file of dir that was added, removed or changed.
func sameTree(t *testing.T, dir string, before, after map[string]string) {
	t.Helper()
	for f, c := range before {
		if a, ok := after[f]; !ok {
			t.Errorf("%s: %s removed", dir, f)
		} else if a != c {
			t.Errorf("%s: %s changed:\n%q\nwas\n%q", dir, f, a, c)
		}
	}
	for f := range after {
		if _, ok := before[f]; !ok {
			t.Errorf("%s: %s added", dir, f)
		}
	}
}
