package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDeployShapeChange: an employee whose Kubernetes shape changes
// moves between volumes, and its .heartbeat and logs stay on the one it
// leaves: diff and apply say so at the file that changes, naming the
// volume and where the state is, and the commands that carry it over (in
// the target's namespace); an unchanged shape says nothing.
func TestDeployShapeChange(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	cfg := deployConfig(kubeTarget)
	writeFiles(t, dir, map[string]string{"actant.cue": cfg})
	if r := actctl(t, dir, home, "apply"); r.Code != 0 || strings.Contains(r.Stdout+r.Stderr, "moves") {
		t.Fatalf("apply: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	toCron := `day: {template: "emp", deploy: kubernetes: shape: "cron"}`
	writeFiles(t, dir, map[string]string{"actant.cue": strings.Replace(cfg, `day: template: "emp"`, toCron, 1)})
	want := `employee day moves from the StatefulSet to CronJobs with their own claim actctl-r-day: its .heartbeat and task logs stay on the StatefulSet's volume data-actctl-r-0 (/data/actant/instances/day), and it starts from its seed .heartbeat; to carry them over: kubectl -n agents exec actctl-r-0 -c up -- tar -C /data/actant/instances -cf - day > day-state.tar`
	for _, cmd := range []string{"diff", "apply"} {
		if r := actctl(t, dir, home, cmd); !regexp.MustCompile(`deploy/k8s/cron-day.yaml:? .*` + regexp.QuoteMeta(want)).MatchString(r.Stdout + r.Stderr) {
			t.Errorf("%s (resident -> cron): %d\n%s%s\nwant %s", cmd, r.Code, r.Stdout, r.Stderr, want)
		}
	}
	if r := actctl(t, dir, home, "apply"); r.Code != 0 || strings.Contains(r.Stdout+r.Stderr, "moves") {
		t.Errorf("apply again: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	writeFiles(t, dir, map[string]string{"actant.cue": strings.Replace(cfg, `night: {template: "emp", deploy: kubernetes: shape: "cron"}`, `night: template: "emp"`, 1)})
	want = `employee night moves from its CronJobs to the StatefulSet: its .heartbeat and task logs stay on its claim actctl-r-night (/data/actant/instances/night), which a GitOps prune of this file deletes, and it starts from its seed .heartbeat; to carry them over, before the change is applied`
	for _, cmd := range []string{"diff", "apply"} {
		if r := actctl(t, dir, home, cmd); !regexp.MustCompile(`deploy/k8s/cron-night.yaml:? .*` + regexp.QuoteMeta(want)).MatchString(r.Stdout + r.Stderr) {
			t.Errorf("%s (cron -> resident): %d\n%s%s\nwant %s", cmd, r.Code, r.Stdout, r.Stderr, want)
		}
	}
}
