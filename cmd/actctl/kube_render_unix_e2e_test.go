//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// kubeRenderConfig is a workspace with one service on Kubernetes; REPO
// is the deploy.kubernetes.repo field (empty: the git remote origin).
const kubeRenderConfig = `package actant
deploy: kubernetes: {namespace: "agents", image: "img@sha256:` + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" + `", secret: "s"REPO}
templates: svc: {backend: "claude-code", archetype: "service"}
agents: api: template: "svc"
`

// renderedPod is what apply's StatefulSet says of its pod: its name,
// namespace and the workspace root `up` runs in (its -C).
func renderedPod(t *testing.T, root string) (pod, namespace, workdir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "deploy", "k8s", "workspace.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range bytes.Split(b, []byte("\n---\n")) {
		var o struct {
			Kind     string
			Metadata struct{ Name, Namespace string }
			Spec     struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Name string
							Args []string
						}
					}
				}
			}
		}
		if err := yaml.Unmarshal(doc, &o); err != nil {
			t.Fatal(err)
		}
		if o.Kind != "StatefulSet" {
			continue
		}
		args := o.Spec.Template.Spec.Containers[0].Args
		if i := slices.Index(args, "-C"); i >= 0 && i+1 < len(args) {
			workdir = args[i+1]
		}
		return o.Metadata.Name + "-0", o.Metadata.Namespace, workdir
	}
	t.Fatalf("no StatefulSet in workspace.yaml:\n%s", b)
	return "", "", ""
}

// TestKubeReachesTheRenderedPod: `--kube` with no other flag execs into
// the pod apply's StatefulSet runs, in its namespace, at the workspace
// root `up` runs in there (every --kube command works without
// --kube-workdir); two clones of one repository in directories of other
// names render the same pod and reach it.
func TestKubeReachesTheRenderedPod(t *testing.T) {
	k := installFakeKubectl(t)
	t.Setenv("FAKE_KUBECTL_FAIL", "no")
	var pods []string
	for i, dir := range []string{"agents", "Other_Clone"} {
		root, home := filepath.Join(t.TempDir(), dir), filepath.Join(t.TempDir(), "home")
		if err := os.Mkdir(root, 0o755); err != nil {
			t.Fatal(err)
		}
		writeConfigTB(t, root, strings.Replace(kubeRenderConfig, "REPO", "", 1))
		for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "https://example.com/acme/agents.git"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		if r := actctl(t, root, home, "apply"); r.Code != 0 {
			t.Fatalf("apply: %d\n%s", r.Code, r.Stderr)
		}
		pod, ns, workdir := renderedPod(t, root)
		pods = append(pods, pod)
		actctl(t, root, home, "--kube", "status")
		want := "-n " + ns + " exec -i " + pod + " -- actctl control-relay -C " + workdir
		if calls := k.calls(t); len(calls) != i+1 || calls[i] != want {
			t.Errorf("clone %s: kubectl ran with %q, want %q (the rendered pod)", dir, calls, want)
		}
	}
	if pods[0] != "actctl-agents-0" || pods[1] != pods[0] {
		t.Errorf("the clones render pods %v, want actctl-agents-0 for both (the repository's name)", pods)
	}
}
