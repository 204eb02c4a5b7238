package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/cronspec"
)

// tool returns the path of a checking tool, or skips the test when it
// is missing; in CI a missing tool that .ci/run installs (inCI) fails.
func tool(t *testing.T, name string, inCI bool) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if gobin := filepath.Join(os.Getenv("HOME"), "go", "bin", name); fileExists(gobin) {
			return gobin
		}
		if inCI && os.Getenv("CI") != "" {
			t.Fatalf("%s is not on PATH in CI (.ci/run installs it)", name)
		}
		t.Skipf("%s is not on PATH", name)
	}
	return p
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// writeOutput writes an output's files under a new directory.
func writeOutput(t *testing.T, o Output) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range o.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestActionlint runs actionlint on the rendered workflows (every state
// carrier), and checks it is not blind: a day of week 7 fails.
func TestActionlint(t *testing.T) {
	bin := tool(t, "actionlint", true)
	cfg := loadTeam(t)
	for _, state := range []string{"branch", "cache", "artifact", "none"} {
		cfg.Deploy.GitHub.State = state
		outs, err := Render(cfg, Options{Now: goldenNow})
		if err != nil {
			t.Fatal(err)
		}
		dir := writeOutput(t, outs[1])
		files, _ := filepath.Glob(filepath.Join(dir, ".github", "workflows", "*.yml"))
		if len(files) != 2 {
			t.Fatalf("%d workflows", len(files))
		}
		cmd := exec.Command(bin, append([]string{"-no-color"}, files...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("actionlint (state %s): %v\n%s", state, err, out)
		}
		bad := filepath.Join(dir, ".github", "workflows", "bad.yml")
		b, _ := os.ReadFile(filepath.Join(dir, ".github", "workflows", "actctl-triage.yml"))
		os.WriteFile(bad, bytes.Replace(b, []byte("cron: 0 9 * * 1-5"), []byte("cron: 0 9 * * 7"), 1), 0o644)
		if out, err := exec.Command(bin, "-no-color", bad).CombinedOutput(); err == nil {
			t.Errorf("actionlint accepts a day of week 7 (is it checking anything?):\n%s", out)
		}
	}
}

// TestSystemdVerify runs systemd-analyze verify on the unit, as an
// instance for /srv/ws, and checks it is not blind: a missing command
// fails.
func TestSystemdVerify(t *testing.T) {
	bin := tool(t, "systemd-analyze", false)
	outs := renderTeam(t)
	unit := outs[2].Files[0].Content
	dir := t.TempDir()
	verify := func(content []byte) (string, error) {
		p := filepath.Join(dir, "actctl-up@srv-ws.service")
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "verify", p)
		cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+dir)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := verify(unit); err != nil || strings.Contains(out, "actctl-up@") {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	if out, err := verify(bytes.Replace(unit, []byte("/usr/bin/env"), []byte("/nonexistent/env"), 1)); err == nil {
		t.Errorf("verify accepts a missing command:\n%s", out)
	}
}

// TestKustomize builds the rendered directory with `kubectl kustomize`
// (offline: no cluster is asked) where kubectl is installed.
func TestKustomize(t *testing.T) {
	bin := tool(t, "kubectl", false)
	outs := renderTeam(t)
	dir := writeOutput(t, outs[0])
	out, err := exec.Command(bin, "kustomize", filepath.Join(dir, "deploy", "k8s")).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl kustomize: %v\n%s", err, out)
	}
	for _, want := range []string{"kind: StatefulSet", "kind: CronJob", "namespace: agents"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("kustomize output lacks %q", want)
		}
	}
}

// TestSystemdWeekly checks the claim of docs/deploy.md's table that
// systemd reads "weekly" as Monday where cron's @weekly is Sunday (one
// reason actctl renders no timers).
func TestSystemdWeekly(t *testing.T) {
	bin := tool(t, "systemd-analyze", false)
	out, err := exec.Command(bin, "calendar", "weekly").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Normalized form: Mon *-*-* 00:00:00") {
		t.Errorf("systemd's weekly is no longer Monday:\n%s", out)
	}
	if c, err := cronspec.ParseCron("@weekly", "UTC"); err != nil || c.Portable() != "0 0 * * 0" {
		t.Errorf("cron's @weekly: %q, %v; want Sunday", c.Portable(), err)
	}
}

// TestSystemdSecurity: the system-scope unit runs as deploy.systemd.user
// in a sandbox (systemd-analyze security --offline scores it at most 3.0;
// without User= and the sandbox it scored 9.6 UNSAFE), and both scopes'
// units verify; the check is not blind: the unit without its sandbox
// fails the threshold.
func TestSystemdSecurity(t *testing.T) {
	bin := tool(t, "systemd-analyze", false)
	cfg := loadTeam(t)
	cfg.Deploy.Systemd.Scope, cfg.Deploy.Systemd.User = "system", "agents"
	unit := string(renderSystemd(cfg)[0].Content)
	for _, want := range []string{"\nUser=agents\n", "\nNoNewPrivileges=yes\n", "\nProtectSystem=strict\n", "\nReadWritePaths=%f -%h\n", "\nPrivateTmp=yes\n", "\nProtectHome=read-only\n", "\nRestrictSUIDSGID=yes\n"} {
		if !strings.Contains(unit, want) {
			t.Errorf("the system unit lacks %q:\n%s", want, unit)
		}
	}
	dir := t.TempDir()
	run := func(content string, args ...string) (string, error) {
		p := filepath.Join(dir, "actctl-up@srv-ws.service")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, append(args, p)...)
		cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+dir)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(unit, "verify"); err != nil || strings.Contains(out, "actctl-up@") {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	if out, err := run(unit, "security", "--offline=true", "--threshold=30"); err != nil {
		t.Errorf("system unit above exposure 3.0: %v\n%s", err, out)
	}
	bare := unit[:strings.Index(unit, "UMask=")] + unit[strings.Index(unit, "\n[Install]"):]
	bare = strings.Replace(bare, "User=agents\n", "", 1)
	if out, err := run(bare, "security", "--offline=true", "--threshold=30"); err == nil {
		t.Errorf("the unsandboxed unit passes the threshold:\n%s", out)
	}
	cfg.Deploy.Systemd.Scope, cfg.Deploy.Systemd.User = "user", ""
	if out, err := run(string(renderSystemd(cfg)[0].Content), "verify"); err != nil || strings.Contains(out, "actctl-up@") {
		t.Errorf("systemd-analyze verify (user): %v\n%s", err, out)
	}
}
