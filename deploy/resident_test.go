package deploy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestResidentFollowsStart: the agents a deploy target runs resident are
// those that offer start (what `up` holds), whatever their archetype: an
// employee whose archetype leaves start out is not run (its `up` would
// refuse to name it), a tool agent with a launch mode `up` runs and start
// in its modes is, and since its archetype has no autoStart the pod's
// `up` names the agents it runs. By archetype, the StatefulSet held
// triage and left worker out, and its `up` named none.
func TestResidentFollowsStart(t *testing.T) {
	root := t.TempDir()
	cfg := `package actant
deploy: kubernetes: {namespace: "agents", secret: "team", image: "ghcr.io/acme/agents@sha256:4f1c0a8e8d2b6c3f5e7a9b1d3c5e7f9a1b3d5f7e9c1a3b5d7f9e1c3a5b7d9f1e", repo: {url: "https://github.com/acme/team.git", ref: "main"}, name: "team"}
archetypes: employee: {interactionModes: ["run", "proxy"], autoStart: false}
templates: {
	emp: {backend: "claude-code", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "check"}}
	svc: {backend: "claude-code", archetype: "service"}
	bg: {backend: "claude-code", launchMode: "acp-service"}
}
agents: {triage: template: "emp", api: template: "svc", worker: template: "bg"}
`
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := schema.LoadDir(root, filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	outs, err := Render(c, Options{Now: goldenNow})
	if err != nil {
		t.Fatal(err)
	}
	d := decodeKube(t, outs[0])
	if len(d.sets) != 1 {
		t.Fatalf("%d StatefulSets, want 1", len(d.sets))
	}
	args := d.sets[0].Spec.Template.Spec.Containers[0].Args
	if i := slices.Index(args, "--frozen"); i < 0 || strings.Join(args[i+1:], " ") != "api worker" {
		t.Errorf("the StatefulSet runs %q, want up --frozen naming api and worker", args)
	}
}
