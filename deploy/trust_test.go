package deploy

import (
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

// preTrustCases are, per backend the renderers trust ahead, the file of
// the home its trust script writes, what that file holds before (""
// none: a fresh home) and what it must hold after the script ran twice
// for the employee report, whose directory is DIR.
var preTrustCases = []struct {
	backend, file, before, after string
}{
	{"codex", ".codex/config.toml", "", "\n[projects.\"DIR\"]\ntrust_level = \"trusted\"\n"},
	{"gemini", ".gemini/trustedFolders.json", "", "{\n  \"DIR\": \"TRUST_FOLDER\"\n}\n"},
	{"gemini", ".gemini/trustedFolders.json", `{"/home/x": "DO_NOT_TRUST"}`, "{\n  \"/home/x\": \"DO_NOT_TRUST\",\n  \"DIR\": \"TRUST_FOLDER\"\n}\n"},
	{"pi", ".pi/agent/settings.json", "", "{\n  \"defaultProjectTrust\": \"always\"\n}\n"},
	{"pi", ".pi/agent/settings.json", `{"defaultModel": "m"}`, "{\n  \"defaultModel\": \"m\",\n  \"defaultProjectTrust\": \"always\"\n}\n"},
	{"pi", ".pi/agent/settings.json", `{"defaultProjectTrust": "never"}`, "{\n  \"defaultProjectTrust\": \"never\"\n}\n"},
}

// TestPreTrust: an employee whose backend keeps its trust in a file of
// the home (Codex, Gemini CLI, pi) has its directory trusted ahead where
// nothing answers the tool's prompt: the pod's clone container and the
// workflow's step before the task write the tool's file (a fresh one, or
// one with other entries, which stay; pi's own choice of
// defaultProjectTrust stays), the same however often they run (its pod
// directory, its runner directory); a Claude Code agent's pod trusts
// nothing.
func TestPreTrust(t *testing.T) {
	for _, tc := range preTrustCases {
		cfg := loadTeam(t)
		tp := cfg.Templates["reporter"]
		tp.Backend = tc.backend
		cfg.Templates["reporter"] = tp
		b := cfg.Backends[tc.backend]
		b.Install = "npm install -g " + tc.backend // pi has a note only: refused on GitHub
		cfg.Backends[tc.backend] = b
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
			clone := strings.TrimPrefix(c.Spec.JobTemplate.Spec.Template.Spec.InitContainers[0].Command[2], cloneScript)
			if strings.Contains(c.Name, "report") {
				script = clone
			} else if clone != "" {
				t.Errorf("%s: a Claude Code employee's pod trusts ahead:\n%s", c.Name, clone)
			}
		}
		if s := d.sets[0].Spec.Template.Spec.InitContainers[0].Command[2]; s != cloneScript {
			t.Errorf("the StatefulSet (Claude Code agents) trusts ahead:\n%s", strings.TrimPrefix(s, cloneScript))
		}
		checkTrusted(t, tc.backend+" pod", script, nil, tc.file, tc.before, strings.ReplaceAll(tc.after, "DIR", "/data/actant/instances/report"))
		var w workflow
		if err := yaml.Unmarshal(outs[1].Files[0].Content, &w); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range w.Jobs["task"].Steps {
			names = append(names, s.Name)
			if s.Name == "Trust report's directory for "+tc.backend {
				checkTrusted(t, tc.backend+" workflow", s.Run, []string{"ACTANT_HOME=/runner/actant"}, tc.file, tc.before, strings.ReplaceAll(tc.after, "DIR", "/runner/actant/instances/report"))
			}
		}
		if i, j := strings.Index(strings.Join(names, "\n"), "Trust report's directory for "+tc.backend+"\n"), strings.Index(strings.Join(names, "\n"), "Run the task"); i < 0 || i > j {
			t.Errorf("%s: no trust step before the task:\n%s", tc.backend, strings.Join(names, "\n"))
		}
	}
}

// checkTrusted runs script twice under bash -eu (GitHub's shell) in a
// home whose file holds before, with env added, and checks file holds
// want after.
func checkTrusted(t *testing.T, what, script string, env []string, file, before, want string) {
	t.Helper()
	if script == "" {
		t.Errorf("%s: no trust script", what)
		return
	}
	home := t.TempDir()
	p := filepath.Join(home, filepath.FromSlash(file))
	if before != "" {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(before), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
		cmd.Env = append(append(os.Environ(), "HOME="+home, "PI_CODING_AGENT_DIR="), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s\n%s", what, err, script, out)
		}
	}
	if b, _ := os.ReadFile(p); string(b) != want {
		t.Errorf("%s: %s after two runs:\n%q\nwant\n%q", what, file, b, want)
	}
}

// TestEveryTrustGate: for every built-in backend with a trust gate, an
// employee on Kubernetes and GitHub Actions is either trusted ahead (a
// backend of schema.PreTrustBackends: its pod's clone container trusts
// it, and validate says nothing) or warned about at validate, naming
// the backend and both targets (its pod trusts nothing): no gate is
// left silent.
func TestEveryTrustGate(t *testing.T) {
	cfg := loadTeam(t)
	gated := 0
	for _, b := range slices.Sorted(maps.Keys(cfg.Backends)) {
		be := cfg.Backends[b]
		if be.Trust == nil || be.Trust.Note == "" {
			continue
		}
		gated++
		cfg := loadTeam(t)
		tp := cfg.Templates["reporter"]
		tp.Backend = b
		cfg.Templates["reporter"] = tp
		if be.Install == "" {
			be.Install = "npm install -g " + b
		}
		if be.ACP == nil {
			// A target runs only an agent that offers start, which needs
			// an acp command (zed, deepagents have none built in): one is
			// given, as a user would, so the gate is the question.
			be.ACP = &schema.Command{Command: b + "-acp"}
		}
		cfg.Backends[b] = be
		a := cfg.Agents["report"]
		a.Deploy.Kubernetes = &schema.AgentKubernetes{Shape: schema.ShapeCron}
		cfg.Agents["report"] = a
		outs, err := Render(cfg, Options{Now: goldenNow})
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		var trust string
		for _, c := range decodeKube(t, outs[0]).crons {
			if strings.Contains(c.Name, "report") {
				trust = strings.TrimPrefix(c.Spec.JobTemplate.Spec.Template.Spec.InitContainers[0].Command[2], cloneScript)
			}
		}
		var warned bool
		for _, d := range cfg.Validate() {
			warned = warned || d.Warning && strings.Contains(d.String(), `agent "report" runs backend `+b+` on kubernetes, github, where nothing answers a trust prompt`)
		}
		if pre := slices.Contains(schema.PreTrustBackends, b); pre != (trust != "") || pre == warned {
			t.Errorf("%s: pre-trusted %v, trust script %q, warned %v", b, pre, trust, warned)
		}
		t.Logf("%s: trusted ahead %v, warned %v", b, trust != "", warned)
	}
	for _, b := range schema.PreTrustBackends {
		if trusters[b] == nil {
			t.Errorf("%s: no trust script", b)
		}
	}
	if gated < len(schema.PreTrustBackends)+3 {
		t.Errorf("%d backends with a trust gate", gated)
	}
}
