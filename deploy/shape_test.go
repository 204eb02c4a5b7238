package deploy

import (
	"slices"
	"testing"
)

// TestUpAgents reads the agents a rendered StatefulSet's up runs (named,
// or all when it names none, past --webhooks and its address), and
// CronFileAgent the employee of a CronJob file.
func TestUpAgents(t *testing.T) {
	outs := renderTeam(t)
	var ws []byte
	for _, f := range outs[0].Files {
		if f.Path == "deploy/k8s/workspace.yaml" {
			ws = f.Content
		}
		if name, ok := CronFileAgent("deploy/k8s/", f.Path); ok != (f.Path == "deploy/k8s/cron-triage.yaml") || ok && name != "triage" {
			t.Errorf("CronFileAgent(%s) = %q, %v", f.Path, name, ok)
		}
	}
	if names, all, ok := UpAgents(ws); !ok || all || !slices.Equal(names, []string{"report", "review"}) {
		t.Errorf("UpAgents = %v, %v, %v; want [report review]", names, all, ok)
	}
	if _, _, ok := UpAgents([]byte("kind: ServiceAccount\n")); ok {
		t.Error("UpAgents found a StatefulSet in a ServiceAccount")
	}
	if _, ok := CronFileAgent("deploy/k8s", "other/cron-x.yaml"); ok {
		t.Error("CronFileAgent took a file of another directory")
	}
}
