//go:build unix

package main

import "testing"

// TestKubeNoUp: --kube reaching a pod where no actctl up runs says so
// about the pod, and where to look (kubectl logs, with the same context
// and namespace), not "start it with `actctl up`", which would start one
// on this machine; nothing is written, no kubectl is left.
func TestKubeNoUp(t *testing.T) {
	k := installFakeKubectl(t)
	root, home := upWorkspace(t)
	before := listFiles(t, root)
	pod := "actctl-ws-0"
	r := actctl(t, root, home, "--kube", "--kube-context", "prod", "--kube-namespace", "agents", "--kube-pod", pod, "--kube-workdir", root, "status")
	want := "actctl: --kube: no actctl up is running in pod " + pod + " (workspace " + root + "): the pod's container runs it; see `kubectl --context prod -n agents logs " + pod + "`\n"
	if r.Code != 1 || r.Stderr != want {
		t.Errorf("--kube status without up: %d\n%s\nwant\n%s", r.Code, r.Stderr, want)
	}
	k.assertGone(t)
	if got := listFiles(t, root); len(got) != len(before) {
		t.Errorf("files changed: %v, were %v", got, before)
	}
}
