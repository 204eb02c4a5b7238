//go:build unix

package main

import (
	"testing"

	"github.com/actctl/actctl/internal/testutil"
)

// TestTaskAfterVolumeWalk: on Kubernetes the kubelet's fsGroup walk gives
// every file of the volume group read and write (directories setgid too)
// at each mount; the next scheduled task must still take its own lock
// (it refused "its mode is 0660"). The walk is replayed on the workspace
// and the home between two tasks.
func TestTaskAfterVolumeWalk(t *testing.T) {
	root, home := taskWorkspace(t)
	if r := actctl(t, root, home, "task", "triage"); r.Code != 0 {
		t.Fatalf("first task: exit %d\n%s", r.Code, r.Stderr)
	}
	for _, dir := range []string{root, home} {
		testutil.KubeletWalk(t, dir, testutil.OwnGroup())
	}
	if r := actctl(t, root, home, "task", "triage"); r.Code != 0 {
		t.Fatalf("the task after the volume's walk: exit %d\n%s", r.Code, r.Stderr)
	}
	if sums, _ := taskLogs(t, home); len(sums) != 2 {
		t.Errorf("%d tasks logged, want 2", len(sums))
	}
}
