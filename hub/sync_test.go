//go:build unix

package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/actctl/actctl/schema"
)

// gitEnv isolates git from the user's configuration.
func gitEnv(t testing.TB) []string {
	home := t.TempDir()
	return append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
}

func runGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func needGit(t testing.TB) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required (.ci/run installs it)")
	}
}

func copyTree(t testing.TB, src, dst string) {
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// hubRepo is a git repository in the actant-hub layout with history:
// commit 1 on main tagged v1.0.0 (lightweight), commit 2 tagged v1.1.0
// (annotated), then v1.2.0 and v2.0.0 (lightweight), and a branch "dev".
type hubRepo struct {
	dir     string
	commits map[string]string // tag -> commit
}

func newHubRepo(t testing.TB) *hubRepo {
	needGit(t)
	dir := filepath.Join(t.TempDir(), "hub.git")
	copyTree(t, "testdata/actant-hub", dir)
	runGit(t, dir, "init", "-q", "-b", "main")
	r := &hubRepo{dir: dir, commits: map[string]string{}}
	r.commit(t, "initial")
	runGit(t, dir, "tag", "v1.0.0")
	r.commits["v1.0.0"] = r.head(t)
	r.bumpSkill(t, "1.1.0")
	runGit(t, dir, "tag", "-a", "v1.1.0", "-m", "release 1.1.0")
	r.commits["v1.1.0"] = r.head(t)
	r.bumpSkill(t, "1.2.0")
	runGit(t, dir, "tag", "v1.2.0")
	r.commits["v1.2.0"] = r.head(t)
	runGit(t, dir, "branch", "dev")
	r.bumpSkill(t, "2.0.0")
	runGit(t, dir, "tag", "-a", "v2.0.0", "-m", "release 2.0.0")
	r.commits["v2.0.0"] = r.head(t)
	return r
}

func (r *hubRepo) head(t testing.TB) string { return runGit(t, r.dir, "rev-parse", "HEAD") }

func (r *hubRepo) commit(t testing.TB, msg string) {
	runGit(t, r.dir, "add", "-A")
	runGit(t, r.dir, "commit", "-q", "-m", msg)
}

// bumpSkill rewrites skills/web-research.json with version v and commits.
func (r *hubRepo) bumpSkill(t testing.TB, v string) {
	body := fmt.Sprintf(`{"name":"web-research","version":%q,"description":"Search","content":"# Web Research %s"}`, v, v)
	if err := os.WriteFile(filepath.Join(r.dir, "skills/web-research.json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r.commit(t, "web-research "+v)
}

// workspace writes actant.cue with the given hub block and agents, and
// returns a loader for it (each call re-loads, as every actctl run does).
func workspace(t testing.TB, cue string) (root, home string, load func() *schema.Config) {
	root, home = t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte("package actant\n\n"+cue), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, home, func() *schema.Config {
		t.Helper()
		cfg, err := schema.LoadDir(root, home)
		if err != nil {
			t.Fatalf("load: %v", err)
		}
		return cfg
	}
}

// countNet counts network operations for the duration of the test.
func countNet(t testing.TB) *atomic.Int64 {
	var n atomic.Int64
	netHook = func(string, string) { n.Add(1) }
	t.Cleanup(func() { netHook = nil })
	return &n
}

func ensure(t testing.TB, cfg *schema.Config, o Options) *Report {
	t.Helper()
	rep, err := Ensure(context.Background(), cfg, o)
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}
	return rep
}

func readLock(t testing.TB, root string) *Lock {
	t.Helper()
	l, err := ReadLock(filepath.Join(root, LockFile))
	if err != nil || l == nil {
		t.Fatalf("lock: %v %v", l, err)
	}
	return l
}

// TestEnsureFileURL: refs of every kind resolve over file://, annotated
// tags are pinned to the peeled commit, and the lock is deterministic.
func TestEnsureFileURL(t *testing.T) {
	r := newHubRepo(t)
	url := "file://" + r.dir
	root, _, load := workspace(t, fmt.Sprintf(`hub: {
	br:  {url: %q, ref: branch: "dev"}
	lt:  {url: %q, ref: tag: "v1.0.0"}
	at:  {url: %q, ref: tag: "v1.1.0"}
	sv:  {url: %q, ref: semver: "^1.0.0"}
	cm:  {url: %q, ref: commit: %q}
	def: {url: %q}
}
`, url, url, url, url, url, r.commits["v1.0.0"][:10], r.dir))
	rep := ensure(t, load(), Options{})
	if !rep.LockChanged {
		t.Error("first sync must write the lock")
	}
	l := readLock(t, root)
	want := map[string]string{"br": "v1.2.0", "lt": "v1.0.0", "at": "v1.1.0", "sv": "v1.2.0", "cm": "v1.0.0", "def": "v2.0.0"}
	for src, tag := range want {
		if got := l.Sources[src].Commit; got != r.commits[tag] {
			t.Errorf("%s: locked %s, want the commit of %s (%s)", src, got, tag, r.commits[tag])
		}
	}
	if l.Sources["sv"].Resolved != "refs/tags/v1.2.0" {
		t.Errorf("semver resolved to %q", l.Sources["sv"].Resolved)
	}
	if !strings.HasPrefix(l.Sources["at"].Digest, "sha256:") {
		t.Errorf("digest %q", l.Sources["at"].Digest)
	}
	before, _ := os.ReadFile(filepath.Join(root, LockFile))
	n := countNet(t)
	rep = ensure(t, load(), Options{})
	after, _ := os.ReadFile(filepath.Join(root, LockFile))
	if rep.LockChanged || string(before) != string(after) || n.Load() != 0 {
		t.Errorf("second sync: lock changed %v, network ops %d", rep.LockChanged, n.Load())
	}
}

// TestEnsurePinnedUntilUpdate: a new commit on the tracked branch is not
// used until `hub update`; a changed ref in the config is re-resolved by a
// plain sync.
func TestEnsurePinnedUntilUpdate(t *testing.T) {
	r := newHubRepo(t)
	root, _, load := workspace(t, fmt.Sprintf("hub: h: {url: %q, ref: branch: \"main\"}\n", "file://"+r.dir))
	ensure(t, load(), Options{})
	pinned := readLock(t, root).Sources["h"].Commit
	r.bumpSkill(t, "3.0.0")
	cfg := load()
	ensure(t, cfg, Options{})
	if got := readLock(t, root).Sources["h"].Commit; got != pinned {
		t.Fatalf("sync moved the pin to %s", got)
	}
	if v := cfg.Skills["h@web-research"].Content; !strings.Contains(v, "2.0.0") {
		t.Errorf("content must come from the pinned commit: %q", v)
	}
	rep := ensure(t, load(), Options{Update: []string{"h"}})
	if got := readLock(t, root).Sources["h"].Commit; got != r.head(t) {
		t.Fatalf("update did not move the pin: %s", got)
	}
	if len(rep.Changes) != 1 || rep.Changes[0].Op != "updated" || rep.Changes[0].From != "2.0.0" || rep.Changes[0].To != "3.0.0" {
		t.Errorf("changes: %+v", rep.Changes)
	}
	// Changing the ref in the config re-resolves without `hub update`.
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(fmt.Sprintf("package actant\nhub: h: {url: %q, ref: tag: \"v1.0.0\"}\n", "file://"+r.dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	ensure(t, load(), Options{})
	if got := readLock(t, root).Sources["h"].Commit; got != r.commits["v1.0.0"] {
		t.Errorf("changed ref not re-resolved: %s", got)
	}
}

// gitDaemon serves base over git:// on a free port until the test ends.
type gitDaemon struct {
	cmd  *exec.Cmd
	port int
}

func startDaemon(t testing.TB, base string) *gitDaemon {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("git", "daemon", "--reuseaddr", "--base-path="+base, "--export-all",
		"--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), base)
	cmd.Env = gitEnv(t)
	// `git daemon` runs git-daemon as a child: give them a process group
	// so stopping kills both.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start git daemon: %v", err)
	}
	d := &gitDaemon{cmd: cmd, port: port}
	t.Cleanup(d.stop)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("git daemon did not accept on port %d: %v", port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (d *gitDaemon) stop() {
	if d.cmd.Process != nil && d.cmd.ProcessState == nil {
		_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
		_ = d.cmd.Wait()
	}
}

// TestEnsureGitDaemon: over git://, with the daemon stopped a satisfied
// lock still works from the cache (no network), an update fails clearly,
// and a source whose ref changed falls back to the cache with a warning.
func TestEnsureGitDaemon(t *testing.T) {
	r := newHubRepo(t)
	d := startDaemon(t, filepath.Dir(r.dir))
	url := fmt.Sprintf("git://127.0.0.1:%d/hub.git", d.port)
	root, home, load := workspace(t, fmt.Sprintf("hub: h: {url: %q, ref: tag: \"v1.1.0\"}\nagents: a: template: \"h@actant-onboarder\"\n", url))
	rep := ensure(t, load(), Options{})
	if got := readLock(t, root).Sources["h"].Commit; got != r.commits["v1.1.0"] {
		t.Fatalf("annotated tag over git:// locked %s, want peeled %s", got, r.commits["v1.1.0"])
	}
	if !rep.Sources[0].Fetched {
		t.Error("first sync must fetch")
	}
	d.stop()
	n := countNet(t)
	cfg := load()
	rep = ensure(t, cfg, Options{})
	if n.Load() != 0 || rep.Sources[0].Fetched {
		t.Errorf("satisfied lock used the network (%d ops)", n.Load())
	}
	if _, ok := cfg.Templates["h@actant-onboarder"]; !ok {
		t.Error("components not merged from the cache")
	}
	_, err := Ensure(context.Background(), load(), Options{UpdateAll: true})
	if err == nil || !strings.Contains(err.Error(), `hub source "h" (`+url+`)`) || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("update with the daemon down: %v", err)
	}
	// A changed ref whose target is cached proceeds with a warning.
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(fmt.Sprintf("package actant\nhub: h: {url: %q, ref: commit: %q}\n", url, r.commits["v1.1.0"])), 0o644); err != nil {
		t.Fatal(err)
	}
	var warned []string
	rep = ensure(t, load(), Options{Warn: func(s string) { warned = append(warned, s) }})
	if len(warned) != 1 || !strings.Contains(warned[0], "unreachable") || !rep.Sources[0].Offline {
		t.Errorf("warnings %v", warned)
	}
	// Not cached at all: the error names source and URL.
	_, _, load2 := workspace(t, fmt.Sprintf("hub: other: {url: %q}\n", url))
	cfg2 := load2()
	cfg2.Home = home + "-empty"
	_, err = Ensure(context.Background(), cfg2, Options{})
	if err == nil || !strings.Contains(err.Error(), `hub source "other" (`+url+`)`) {
		t.Errorf("uncached unreachable source: %v", err)
	}
}

// TestEnsureUnknownLockedCommit: a lock edited to a commit the repository
// does not have is a clear error, not a silent re-resolution.
func TestEnsureUnknownLockedCommit(t *testing.T) {
	r := newHubRepo(t)
	root, _, load := workspace(t, fmt.Sprintf("hub: h: {url: %q, ref: branch: \"main\"}\n", "file://"+r.dir))
	ensure(t, load(), Options{})
	l := readLock(t, root)
	e := l.Sources["h"]
	e.Commit = strings.Repeat("ab", 20)
	l.Sources["h"] = e
	if err := l.Write(filepath.Join(root, LockFile)); err != nil {
		t.Fatal(err)
	}
	_, err := Ensure(context.Background(), load(), Options{})
	if err == nil || !strings.Contains(err.Error(), e.Commit) || !strings.Contains(err.Error(), "not in the repository") {
		t.Errorf("got %v", err)
	}
	// The digest is checked too.
	l = readLock(t, root)
	e.Commit, e.Digest = r.head(t), "sha256:0000"
	l.Sources["h"] = e
	_ = l.Write(filepath.Join(root, LockFile))
	if _, err := Ensure(context.Background(), load(), Options{}); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Errorf("digest mismatch: %v", err)
	}
}

// TestEnsureUnsafeHub: a hub with an escaping symlink, a ../ manifest
// entry and an invalid template is refused, naming each file; nothing is
// written (no lock, no tree in the cache).
func TestEnsureUnsafeHub(t *testing.T) {
	needGit(t)
	dir := filepath.Join(t.TempDir(), "bad")
	copyTree(t, "testdata/actant-hub", dir)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("../../../../etc/passwd", filepath.Join(dir, "skills/guided-setup/references/leak.md")))
	runGit(t, filepath.Dir(dir), "init", "-q", "-b", "main", "bad")
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-q", "-m", "escaping symlink")
	root, home, load := workspace(t, fmt.Sprintf("hub: h: {url: %q}\n", dir))
	_, err := Ensure(context.Background(), load(), Options{})
	if err == nil || !strings.Contains(err.Error(), "skills/guided-setup/references/leak.md: symlink") {
		t.Fatalf("escaping symlink: %v", err)
	}
	must(os.Remove(filepath.Join(dir, "skills/guided-setup/references/leak.md")))
	must(os.WriteFile(filepath.Join(dir, "actant.json"), []byte(`{"components":{"skills":["../../secret.json"]}}`), 0o644))
	must(os.WriteFile(filepath.Join(dir, "templates/broken.json"), []byte(`{"name":"broken","backend":{"type":"claude-code"},"archetype":"robot"}`), 0o644))
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-q", "-m", "bad manifest and template")
	_, err = Ensure(context.Background(), load(), Options{})
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"actant.json", "leaves the hub tree", "templates/broken.json", `unknown archetype "robot"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, LockFile)); err == nil {
		t.Error("lock written for a refused hub")
	}
	if idx, _ := filepath.Glob(filepath.Join(home, "hub", "*", "trees", "*.index")); len(idx) > 0 {
		t.Errorf("index written for a refused tree: %v", idx)
	}
}

// TestEnsureMergedTemplate: a hub template used directly by an agent, with
// its own references resolved inside the source, positions pointing at the
// hub files, and did-you-mean for a mistyped hub reference.
func TestEnsureMergedTemplate(t *testing.T) {
	r := newHubRepo(t)
	root, _, load := workspace(t, fmt.Sprintf(`hub: "actant-hub": {url: %q, ref: tag: "v1.0.0"}
agents: helper: template: "actant-hub@actant-onboarder"
`, r.dir))
	cfg := load()
	ensure(t, cfg, Options{})
	tm, ok := cfg.Templates["actant-hub@actant-onboarder"]
	if !ok {
		t.Fatal("hub template not merged")
	}
	if strings.Join(tm.Skills, ",") != "actant-hub@guided-setup,actant-hub@web-research" || tm.Backend != "claude-code" || tm.Source != "actant-hub" {
		t.Errorf("template: %+v", tm)
	}
	for _, s := range tm.Skills {
		if _, ok := cfg.Skills[s]; !ok {
			t.Errorf("skill %s not merged", s)
		}
	}
	if cfg.Skills["actant-hub@guided-setup"].Files["references/checklist.md"] == nil {
		t.Error("skill sibling files lost")
	}
	if _, ok := cfg.MCPServers["actant-hub@memory"]; !ok {
		t.Error("inline MCP server not merged")
	}
	if cfg.Templates["actant-hub@actant-curator"].SubAgents[0] != "actant-hub@actant-onboarder" {
		t.Error("subAgents not qualified")
	}
	res, err := cfg.Resolve("helper")
	if err != nil || res.Backend.Files.Skills == nil || res.Archetype.Workspace != "project" {
		t.Fatalf("resolve: %v %+v", err, res)
	}
	if p := cfg.Pos(schema.Path("templates", "actant-hub@actant-onboarder")); !strings.HasSuffix(p.Filename(), "templates/actant-onboarder.json") {
		t.Errorf("position %v does not name the hub file", p)
	}
	if b := cfg.Backends["actant-hub@claude-code"]; b.Files.Skills == nil || b.ACP.Command != "claude-agent-acp" {
		t.Errorf("hub backend: %+v", b)
	}

	// A typo in the user's reference gets a did-you-mean at the user's field.
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(fmt.Sprintf(`package actant
hub: "actant-hub": {url: %q, ref: tag: "v1.0.0"}
agents: helper: template: "actant-hub@actant-onboardr"
`, r.dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Ensure(context.Background(), load(), Options{})
	ds, ok := err.(schema.Diagnostics)
	if !ok || len(ds) != 1 || !strings.Contains(ds[0].String(), `did you mean "actant-hub@actant-onboarder"`) || !strings.HasSuffix(ds[0].Pos.Filename(), "actant.cue") {
		t.Errorf("got %v", err)
	}
}

// TestEnsureFrozen: --frozen fails on a missing or stale lock and never
// writes it.
func TestEnsureFrozen(t *testing.T) {
	r := newHubRepo(t)
	root, _, load := workspace(t, fmt.Sprintf("hub: h: {url: %q, ref: tag: \"v1.0.0\"}\n", r.dir))
	if _, err := Ensure(context.Background(), load(), Options{Frozen: true}); err == nil || !strings.Contains(err.Error(), "actant.lock is missing") {
		t.Errorf("missing lock: %v", err)
	}
	ensure(t, load(), Options{})
	ensure(t, load(), Options{Frozen: true})
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(fmt.Sprintf("package actant\nhub: h: {url: %q, ref: tag: \"v1.2.0\"}\n", r.dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(root, LockFile))
	if _, err := Ensure(context.Background(), load(), Options{Frozen: true}); err == nil || !strings.Contains(err.Error(), "stale") {
		t.Errorf("stale lock: %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(root, LockFile))
	if string(before) != string(after) {
		t.Error("--frozen wrote the lock")
	}
}

// TestEnsureConcurrent: processes (here goroutines with separate
// workspaces) sharing one cache serialize on its lock and agree.
func TestEnsureConcurrent(t *testing.T) {
	r := newHubRepo(t)
	home := t.TempDir()
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		go func() {
			root := t.TempDir()
			_ = os.WriteFile(filepath.Join(root, "actant.cue"), []byte(fmt.Sprintf("package actant\nhub: h: {url: %q, ref: branch: \"main\"}\n", "file://"+r.dir)), 0o644)
			cfg, err := schema.LoadDir(root, home)
			if err == nil {
				_, err = Ensure(context.Background(), cfg, Options{})
			}
			errs <- err
		}()
	}
	for i := 0; i < 4; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestEnsureKeepsExecBits: a hub skill's script committed as 100755 stays
// executable in the cache and is marked so the materializer writes it
// 0755; a tree cached by an actctl that dropped the bits is extracted
// again from the cached repository, without the network.
func TestEnsureKeepsExecBits(t *testing.T) {
	r := newHubRepo(t)
	script := filepath.Join(r.dir, "skills/guided-setup/scripts/run.sh")
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.commit(t, "script")
	_, _, load := workspace(t, fmt.Sprintf("hub: h: {url: %q, ref: branch: \"main\"}\n", "file://"+r.dir))
	check := func(rep *Report) {
		t.Helper()
		src := rep.Sources[0]
		s, ok := src.Components.Skills["guided-setup"]
		if !ok {
			t.Fatalf("no guided-setup skill in %v", src.Components.Skills)
		}
		if !s.Executable["scripts/run.sh"] || s.Executable["references/checklist.md"] || len(s.Executable) != 1 {
			t.Errorf("Executable = %v, want only scripts/run.sh", s.Executable)
		}
		fi, err := os.Stat(filepath.Join(src.Dir, "skills/guided-setup/scripts/run.sh"))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o555 {
			t.Errorf("cached script has mode %v, want 0555", fi.Mode().Perm())
		}
	}
	rep := ensure(t, load(), Options{})
	check(rep)

	// The tree as an older actctl left it: every file 0444, no execBits.
	dir := rep.Sources[0].Dir
	m, _ := readMarker(dir)
	m.ExecBits = false
	b, _ := json.Marshal(m)
	if err := os.WriteFile(dir+".json", b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "skills/guided-setup/scripts/run.sh"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(indexPath(dir)); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := countNet(t)
	check(ensure(t, load(), Options{}))
	if n.Load() != 0 {
		t.Errorf("re-extraction used the network (%d ops)", n.Load())
	}
}
