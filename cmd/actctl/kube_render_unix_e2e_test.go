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

// renderedPod is what apply's StatefulSet says of its pod.
type renderedPod struct {
	Name, Namespace string
	Workdir         string   // the workspace root `up` runs in (its -C)
	Probe           []string // the up container's readiness probe
}

func readRenderedPod(t *testing.T, root string) renderedPod {
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
							Args           []string
							ReadinessProbe struct{ Exec struct{ Command []string } } `yaml:"readinessProbe"`
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
		up := o.Spec.Template.Spec.Containers[0]
		p := renderedPod{Name: o.Metadata.Name + "-0", Namespace: o.Metadata.Namespace, Probe: up.ReadinessProbe.Exec.Command}
		if i := slices.Index(up.Args, "-C"); i >= 0 && i+1 < len(up.Args) {
			p.Workdir = up.Args[i+1]
		}
		return p
	}
	t.Fatalf("no StatefulSet in workspace.yaml:\n%s", b)
	return renderedPod{}
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
		pod := readRenderedPod(t, root)
		pods = append(pods, pod.Name)
		actctl(t, root, home, "--kube", "status")
		want := "-n " + pod.Namespace + " exec -i " + pod.Name + " -- actctl control-relay -C " + pod.Workdir
		if calls := k.calls(t); len(calls) != i+1 || calls[i] != want {
			t.Errorf("clone %s: kubectl ran with %q, want %q (the rendered pod)", dir, calls, want)
		}
	}
	if pods[0] != "actctl-agents-0" || pods[1] != pods[0] {
		t.Errorf("the clones render pods %v, want actctl-agents-0 for both (the repository's name)", pods)
	}
}

// TestReadinessProbe runs the StatefulSet's readiness probe, as apply
// renders it, against this machine's workspace: it fails before up runs,
// passes once up answers on its control socket, fails again after up
// stopped.
func TestReadinessProbe(t *testing.T) {
	root, home := upWorkspace(t)
	f, err := os.OpenFile(filepath.Join(root, "actant.cue"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(strings.NewReplacer("package actant\n", "", "REPO", `, repo: url: "https://example.com/acme/agents.git"`).Replace(kubeRenderConfig[:strings.Index(kubeRenderConfig, "templates:")]))
	f.Close()
	if r := actctl(t, root, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: %d\n%s", r.Code, r.Stderr)
	}
	pod := readRenderedPod(t, root)
	if len(pod.Probe) < 2 || pod.Probe[0] != "actctl" || !slices.Contains(pod.Probe, pod.Workdir) {
		t.Fatalf("probe %q: want actctl in the workspace %s", pod.Probe, pod.Workdir)
	}
	probe := func() result {
		args := slices.Clone(pod.Probe[1:])
		args[slices.Index(args, pod.Workdir)] = root
		return actctl(t, root, home, args...)
	}
	if r := probe(); r.Code == 0 {
		t.Fatalf("the probe passes with no up running:\n%s", r.Stderr)
	}
	p := startUp(t, root, home)
	p.waitLine(`control socket`)
	if r := probe(); r.Code != 0 || r.Stdout != "" {
		t.Errorf("the probe fails with up running: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	p.cmd.Process.Signal(os.Interrupt)
	p.cmd.Wait()
	if r := probe(); r.Code == 0 {
		t.Errorf("the probe passes after up stopped")
	}
}
