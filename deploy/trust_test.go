package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/actctl/actctl/schema"
)

// TestCodexPreTrust: a Codex employee's directory is trusted ahead where
// nothing answers Codex's prompt: the pod's clone container and the
// workflow's step before the task append [projects."<dir>"] trust_level
// = "trusted" to ~/.codex/config.toml, once however often they run (its
// pod directory, its runner directory); a Claude Code agent gets none.
func TestCodexPreTrust(t *testing.T) {
	cfg := loadTeam(t)
	cfg.Templates["reporter"] = func(tp schema.Template) schema.Template { tp.Backend = "codex"; return tp }(cfg.Templates["reporter"])
	a := cfg.Agents["report"]
	a.Deploy.Kubernetes = &schema.AgentKubernetes{Shape: schema.ShapeCron}
	cfg.Agents["report"] = a
	outs, err := Render(cfg, Options{Now: goldenNow})
	if err != nil {
		t.Fatal(err)
	}
	d := decodeKube(t, outs[0])
	var script string
	for _, c := range d.crons {
		clone := c.Spec.JobTemplate.Spec.Template.Spec.InitContainers[0].Command[2]
		if strings.Contains(c.Name, "report") {
			script = clone
		} else if strings.Contains(clone, ".codex") {
			t.Errorf("%s: a Claude Code employee's pod trusts for Codex", c.Name)
		}
	}
	if strings.Contains(d.sets[0].Spec.Template.Spec.InitContainers[0].Command[2], ".codex") {
		t.Error("the StatefulSet (Claude Code agents) trusts for Codex")
	}
	trust := script[strings.Index(script, `f="$HOME/.codex/config.toml"`):]
	home := t.TempDir()
	for range 2 {
		cmd := exec.Command("sh", "-eu", "-c", trust)
		cmd.Env = append(os.Environ(), "HOME="+home)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s\n%s", err, trust, out)
		}
	}
	want := "\n[projects.\"/data/actant/instances/report\"]\ntrust_level = \"trusted\"\n"
	if b, _ := os.ReadFile(filepath.Join(home, ".codex", "config.toml")); string(b) != want {
		t.Errorf("config.toml after two runs:\n%q\nwant\n%q", b, want)
	}
	var w workflow
	if err := yaml.Unmarshal(outs[1].Files[0].Content, &w); err != nil {
		t.Fatal(err)
	}
	names := ""
	for _, s := range w.Jobs["task"].Steps {
		names += s.Name + "\n"
		if strings.HasPrefix(s.Name, "Trust") && !strings.Contains(s.Run, `trust "$ACTANT_HOME/instances/report"`) {
			t.Errorf("the workflow's trust step:\n%s", s.Run)
		}
	}
	if i := strings.Index(names, "Trust report's directory for codex\n"); i < 0 || i > strings.Index(names, "Run the task\n") {
		t.Errorf("no trust step before the task:\n%s", names)
	}
}
