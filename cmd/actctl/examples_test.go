package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/acptestagent"
)

// exampleOutputs are what running an example leaves in it (ignored by git):
// never copied, so the tests see the example as committed.
var exampleOutputs = map[string]bool{"CLAUDE.md": true, "AGENTS.md": true, "GEMINI.md": true, "actant.lock": true, "actant.owned": true, "hub.git": true}

// copyTree copies the example at src (its committed input only) into a
// fresh temp dir, so that the tests never write into the repository.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if top := strings.Split(filepath.ToSlash(rel), "/")[0]; rel != "." && (strings.HasPrefix(top, ".") || exampleOutputs[top]) {
			if info.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, info.Mode())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestQuickstartLifecycle: the bundled example applies, re-applies with
// zero writes, and prunes back to exactly its own files.
func TestQuickstartLifecycle(t *testing.T) {
	src, _ := filepath.Abs("../../examples/quickstart")
	dir := copyTree(t, src)
	home := filepath.Join(t.TempDir(), "home")
	orig := listFiles(t, dir)
	if r := actctl(t, dir, home, "apply"); r.Code != 0 || !strings.Contains(r.Stdout, "applied:") {
		t.Fatalf("apply: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	for _, f := range []string{"CLAUDE.md", "AGENTS.md", ".mcp.json", ".codex/config.toml", ".claude/skills/go-testing/checklist.md", ".agents/skills/small-commits/SKILL.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("apply did not write %s", f)
		}
	}
	if r := actctl(t, dir, home, "apply"); r.Code != 0 || strings.TrimSpace(r.Stdout) != "no changes" {
		t.Fatalf("second apply: %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := actctl(t, dir, home, "diff"); r.Code != 0 {
		t.Fatalf("diff after apply: %d %s", r.Code, r.Stdout)
	}
	writeFiles(t, dir, map[string]string{"actant.cue": "package actant\n"})
	if r := actctl(t, dir, home, "apply"); r.Code != 0 {
		t.Fatalf("prune: %s", r.Stderr)
	}
	got := listFiles(t, dir)
	sort.Strings(got)
	sort.Strings(orig)
	if strings.Join(got, "\n") != strings.Join(orig, "\n") {
		t.Errorf("after prune:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(orig, "\n"))
	}
}

// TestTeamHubExample follows examples/team-hub/README.md: publish the hub
// with make-hub.sh, apply (fetch, lock, materialize a hub template with its
// skill's sibling file), then --frozen.
func TestTeamHubExample(t *testing.T) {
	src, _ := filepath.Abs("../../examples/team-hub")
	dir := copyTree(t, src)
	home := filepath.Join(t.TempDir(), "home")
	cmd := exec.Command("bash", filepath.Join(dir, "make-hub.sh"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make-hub.sh: %v\n%s", err, out)
	}
	if r := actctl(t, dir, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: %s", r.Stderr)
	}
	if !hasText(filepath.Join(dir, "CLAUDE.md"), "You are the platform team's reviewer.") ||
		!hasText(filepath.Join(dir, ".claude/skills/code-review/checklist.md"), "Tests fail without the change") ||
		!hasText(filepath.Join(dir, ".claude/settings.json"), `"plan"`) ||
		!hasText(filepath.Join(dir, "actant.lock"), `"commit"`) {
		t.Fatalf("hub template not materialized: %v", listFiles(t, dir))
	}
	if r := actctl(t, dir, home, "apply", "--frozen"); r.Code != 0 || strings.TrimSpace(r.Stdout) != "no changes" {
		t.Fatalf("apply --frozen: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
}

func TestZedExample(t *testing.T) {
	root, _ := filepath.Abs("../../examples/zed")
	if r := actctl(t, t.TempDir(), "", "-C", root, "validate"); r.Code != 0 {
		t.Fatalf("validate: %s", r.Stderr)
	}
	r := actctl(t, t.TempDir(), "", "-C", root, "zed")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"librarian"`) || !strings.Contains(r.Stdout, `"pair"`) {
		t.Fatalf("zed: %s %s", r.Stdout, r.Stderr)
	}
}

// TestFreshCloneAdopts: a repository that committed its materialized
// files but not actant.owned (made before it existed, or deleted) is
// cloned without .actant/: apply adopts what is already exactly right (no
// changes, no warnings, Synced), still sees later hand edits as drift, and
// prune leaves the adopted files where they were: without a record, they
// may be the user's.
func TestFreshCloneAdopts(t *testing.T) {
	src, _ := filepath.Abs("../../examples/quickstart")
	dir := copyTree(t, src)
	home := filepath.Join(t.TempDir(), "home")
	if r := actctl(t, dir, home, "apply"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	for _, p := range []string{".actant", "actant.owned"} {
		if err := os.RemoveAll(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	claude := read(t, filepath.Join(dir, "CLAUDE.md"))
	r := actctl(t, dir, home, "apply")
	if r.Code != 0 || strings.TrimSpace(r.Stdout) != "no changes" || r.Stderr != "" {
		t.Fatalf("apply in a fresh clone: %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := actctl(t, dir, home, "status"); r.Code != 0 || strings.Contains(r.Stdout, "OutOfSync") {
		t.Fatalf("status: %s", r.Stdout)
	}
	skill := filepath.Join(dir, ".claude/skills/small-commits/SKILL.md")
	b, _ := os.ReadFile(skill)
	os.WriteFile(skill, append(b, "hand edit\n"...), 0o644)
	if r := actctl(t, dir, home, "status"); !strings.Contains(r.Stdout, "drift .claude/skills/small-commits/SKILL.md") {
		t.Fatalf("drift of an adopted file not seen: %s", r.Stdout)
	}
	writeFiles(t, dir, map[string]string{"actant.cue": "package actant\n"})
	if r := actctl(t, dir, home, "apply"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude/skills/go-testing/SKILL.md")); err != nil {
		t.Errorf("prune deleted an adopted file: %v", err)
	}
	if got := read(t, filepath.Join(dir, "CLAUDE.md")); got != claude {
		t.Errorf("prune changed an adopted block: %q", got)
	}
}

// TestCopiedWorkspaceRefused: a workspace copied with its .actant/ must not
// act on the original's files through the state's absolute directories.
func TestCopiedWorkspaceRefused(t *testing.T) {
	src, _ := filepath.Abs("../../examples/quickstart")
	orig := copyTree(t, src)
	home := filepath.Join(t.TempDir(), "home")
	if r := actctl(t, orig, home, "apply"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	before := listFiles(t, orig)
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(orig, moved); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, moved, map[string]string{"actant.cue": "package actant\n"})
	if err := os.MkdirAll(orig, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, orig, map[string]string{"CLAUDE.md": "mine\n"})
	r := actctl(t, moved, home, "apply")
	if r.Code != 1 || !strings.Contains(r.Stderr, "copied or moved") || !strings.Contains(r.Stderr, orig) {
		t.Fatalf("apply in a moved workspace: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(orig, "CLAUDE.md")); string(b) != "mine\n" {
		t.Errorf("the original location was touched: %q", b)
	}
	if got := listFiles(t, moved); len(got) != len(before) {
		t.Errorf("the moved workspace changed: %v", got)
	}
}

// TestTeamExample: examples/team commits the files its deploy: targets
// render (docs/deploy.md); on a copy, `actctl diff` finds them exactly
// what the config says (exit 0), and `validate` has nothing to warn.
func TestTeamExample(t *testing.T) {
	src, _ := filepath.Abs("../../examples/team")
	dir := t.TempDir()
	for _, rel := range listFiles(t, src) {
		if top := strings.Split(rel, "/")[0]; top == ".actant" || exampleOutputs[top] {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, dir, map[string]string{rel: string(b)})
	}
	for _, f := range []string{"deploy/k8s/workspace.yaml", "deploy/k8s/cron-triage.yaml", ".github/workflows/actctl-report.yml", "deploy/systemd/actctl-up@.service"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the example does not commit %s", f)
		}
	}
	home := filepath.Join(t.TempDir(), "home")
	if r := actctl(t, dir, home, "diff", "deploy:kubernetes", "deploy:github", "deploy:systemd"); r.Code != 0 || r.Stdout != "" {
		t.Errorf("actctl diff on examples/team: %d (re-render with actctl -C examples/team apply and commit)\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := actctl(t, dir, home, "validate"); r.Code != 0 || strings.Contains(r.Stderr, "warning") {
		t.Errorf("validate: %d %s", r.Code, r.Stderr)
	}
}

// TestPluginsExample: examples/plugins validates, and runs end to end
// with the scripted test agent as both the developer and the translator
// (its backend's command replaced, nothing else): the prompt is
// redacted, translated, prefixed; the answer translated back.
func TestPluginsExample(t *testing.T) {
	src, _ := filepath.Abs("../../examples/plugins")
	dir := copyTree(t, src)
	home := filepath.Join(t.TempDir(), "home")
	if r := actctl(t, dir, home, "validate"); r.Code != 0 || r.Stderr != "" {
		t.Fatalf("validate: %d %s", r.Code, r.Stderr)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"test.cue": `package actant
backends: "claude-code": acp: {command: "` + self + `", env: {` + acptestagent.Var + `: "1"}}
`})
	r := actctl(t, dir, home, "run", "developer", "-p", "echo 你好 世界 tok-123")
	want := "Team rules: small commits, tests first, no new dependencies. | echo 你好 世界 [REDACTED]\n"
	if r.Code != 0 || r.Stdout != want {
		t.Fatalf("run: %d\nstdout %q\nwant   %q\nstderr %s", r.Code, r.Stdout, want, r.Stderr)
	}
}
