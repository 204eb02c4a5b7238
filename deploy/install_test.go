package deploy

import (
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/actctl/actctl/schema"
)

// TestEveryBackendInstall renders, for each built-in backend, the
// workflow of an employee that uses it. With an install command: bash
// parses every run: script, the install step runs exactly the command's
// words, and actionlint (with shellcheck where it is installed) passes
// the workflows. Without one (an installNote): the renderer refuses,
// saying so (validate refuses first: schema's TestGitHubInstallRefused).
func TestEveryBackendInstall(t *testing.T) {
	lint := tool(t, "actionlint", true)
	cfg := loadTeam(t)
	dir := t.TempDir()
	var files []string
	for _, b := range slices.Sorted(maps.Keys(cfg.Backends)) {
		if !cfg.Backends[b].HasMode(schema.ModeACP) {
			continue // no employee runs on it: validate refuses one, the renderers run none
		}
		tpl := cfg.Templates["reporter"]
		tpl.Backend = b
		cfg.Templates["reporter"] = tpl
		outs, err := Render(cfg, Options{Now: goldenNow})
		if cfg.Backends[b].Install == "" {
			if err == nil || !strings.Contains(err.Error(), `backend "`+b+`" has no install command`) {
				t.Errorf("%s: no install command, rendered: %v", b, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", b, err)
			continue
		}
		f := outs[1].Files[0]
		if !strings.HasSuffix(f.Path, "actctl-report.yml") {
			t.Fatalf("%s: first workflow %s", b, f.Path)
		}
		checkInstallStep(t, b, "Install "+b, cfg.Backends[b].Install, f.Content)
		p := filepath.Join(dir, "actctl-report-"+b+".yml")
		if err := os.WriteFile(p, f.Content, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	if len(files) < 10 {
		t.Fatalf("only %d backends have an install command", len(files))
	}
	if out, err := exec.Command(lint, append([]string{"-no-color"}, files...)...).CombinedOutput(); err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
}

// checkInstallStep parses every run: script of workflow with bash -n and
// checks the words of the step named name are install's
// (schema.InstallArgv); what labels the messages.
func checkInstallStep(t *testing.T, what, name, install string, workflowYAML []byte) {
	t.Helper()
	var w workflow
	if err := yaml.Unmarshal(workflowYAML, &w); err != nil {
		t.Fatal(err)
	}
	want, err := schema.InstallArgv(install)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	found := false
	for _, s := range w.Jobs["task"].Steps {
		if s.Run == "" {
			continue
		}
		cmd := exec.Command("bash", "-n")
		cmd.Stdin = strings.NewReader(s.Run)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: step %q is no bash script: %v\n%s\n%s", what, s.Name, err, out, s.Run)
		}
		if s.Name != name {
			continue
		}
		found = true
		out, err := exec.Command("bash", "-c", `set -- `+s.Run+`printf '%s\0' "$@"`).Output()
		if got := strings.Split(string(bytes.TrimSuffix(out, []byte{0})), "\x00"); err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: the install step runs %q (%v), want %q", what, got, err, want)
		}
	}
	if !found {
		t.Errorf("%s: no install step", what)
	}
}

// TestMCPServerInstall: an employee's workflow installs each of its MCP
// servers that gives an install (testdata/team's tracker), as a step of
// exactly the command's words before the task, and none for a server
// without one (github: validate warns instead); the image recipe runs
// the install and no longer lists the server's command to add.
func TestMCPServerInstall(t *testing.T) {
	outs := renderTeam(t)
	var triage []byte
	for _, f := range outs[1].Files {
		if strings.HasSuffix(f.Path, "actctl-triage.yml") {
			triage = f.Content
		}
	}
	checkInstallStep(t, "mcpServers.tracker", "Install MCP server tracker", "npm install -g @acme/tracker-mcp", triage)
	var w workflow
	if err := yaml.Unmarshal(triage, &w); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range w.Jobs["task"].Steps {
		names = append(names, s.Name)
	}
	if i, j := slices.Index(names, "Install MCP server tracker"), slices.Index(names, "Run the task"); i < 0 || i > j || slices.Contains(names, "Install MCP server github") {
		t.Errorf("triage's steps: %q", names)
	}
	var df string
	for _, f := range outs[0].Files {
		if strings.HasSuffix(f.Path, "/Dockerfile") {
			df = string(f.Content)
		}
	}
	if !strings.Contains(df, "RUN npm install -g @acme/tracker-mcp\n") || strings.Contains(df, "#   tracker-mcp") || !strings.Contains(df, "#   github-mcp-server (mcpServers.github)\n") {
		t.Errorf("the recipe:\n%s", df)
	}
}
