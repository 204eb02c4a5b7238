package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestHostileValuesStayData renders a config whose deploy fields bypassed
// validate (which refuses them: schema's TestDeployFieldsRefused): what
// each renderer writes still runs nothing the values say. The unit keeps
// its lines, the version reaches the workflow's script through the
// environment only, and the pod's clone script, run with real git, reads
// an option-shaped URL and ref as data.
func TestHostileValuesStayData(t *testing.T) {
	cfg := loadTeam(t)
	cfg.Deploy.Systemd.Dir = "deploy\nExecStartPre=/bin/false"
	cfg.Deploy.GitHub.Actctl = "${{ github.event.inputs.prompt }}"
	outs, err := Render(cfg, Options{Now: goldenNow})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(outs[2].Files[0].Content), "\n") {
		if strings.HasPrefix(line, "ExecStartPre") {
			t.Errorf("the unit gained a line from deploy.systemd.dir: %q", line)
		}
	}
	for _, f := range outs[1].Files {
		var w workflow
		if err := yaml.Unmarshal(f.Content, &w); err != nil {
			t.Fatal(err)
		}
		for _, s := range w.Jobs["task"].Steps {
			if strings.Contains(s.Run, "${{") {
				t.Errorf("%s: step %q has an expression in its script:\n%s", f.Path, s.Name, s.Run)
			}
		}
	}

	dir := t.TempDir()
	marker := filepath.Join(dir, "pwned")
	script := strings.Replace(cloneScript, "w="+WorkspaceDir, "w="+filepath.Join(dir, "ws"), 1)
	for _, env := range [][]string{
		{"ACTCTL_REPO=--upload-pack=touch " + marker, "ACTCTL_REF=main"},
		{"ACTCTL_REPO=" + dir, "ACTCTL_REF=--upload-pack=touch " + marker},
	} {
		cmd := exec.Command("sh", "-c", script)
		cmd.Env = append(os.Environ(), env...)
		out, _ := cmd.CombinedOutput()
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("the clone script ran a command from %v:\n%s", env, out)
		}
	}
	// The fetch path: a workspace already cloned from a real origin.
	origin, ws := filepath.Join(dir, "origin"), filepath.Join(dir, "ws")
	for _, args := range [][]string{
		{"init", "-q", origin},
		{"-C", origin, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"},
		{"init", "-q", ws},
		{"-C", ws, "remote", "add", "origin", origin},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(os.Environ(), "ACTCTL_REPO=x", "ACTCTL_REF=--upload-pack=touch "+marker)
	out, _ := cmd.CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the fetch ran a command from the ref:\n%s", out)
	}
}
