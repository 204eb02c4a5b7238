//go:build linux

package realengines

import (
	"bufio"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// fieldManager names the tier's server-side applies.
const fieldManager = "actctl-realengines"

// TestKubernetesControlPlane applies the manifests `actctl apply` renders
// (every example with a Kubernetes target, and a workspace with a
// cron-shaped employee ticking every minute) to a real control plane:
// strict server-side dry run, then server-side apply in namespaces
// enforcing Pod Security "restricted"; the real StatefulSet controller
// creates its pod, the CronJob controller a Job and the Job controller
// its pod (each admitted under "restricted"). What the renderer leaves out of the pod templates
// (resources, Job deadlines, readiness probes) is logged.
func TestKubernetesControlPlane(t *testing.T) {
	requireTier(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*guard)
	defer cancel()
	start := time.Now()
	c := startCluster(t, ctx)
	t.Logf("control plane ready in %v", time.Since(start).Round(time.Second))
	bin := actctlBin(t)
	objects := 0
	for _, dir := range exampleTargets(t, ctx, bin) {
		objects += applyTarget(t, ctx, c, dir)
	}
	sets := strings.Fields(c.kubectlRun(t, ctx, "get", "statefulsets", "-A", "-o", `jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{" "}{end}`))
	for _, set := range sets {
		ns, name, _ := strings.Cut(set, "/")
		pod := firstCreated(t, ctx, c, "-n", ns, "get", "pods", "--watch", "-o", "name")
		t.Logf("the StatefulSet %s created %s (admitted under Pod Security restricted)", set, pod)
		if !strings.HasPrefix(pod, "pod/"+name+"-") {
			t.Errorf("the first pod of namespace %s is %s, not one of the StatefulSet %s", ns, pod, name)
		}
	}
	t.Logf("%v: the examples applied", time.Since(start).Round(time.Second))
	cronDir := cronWorkspace(t, ctx, bin)
	t.Logf("%v: the cron workspace rendered", time.Since(start).Round(time.Second))
	// Its pods name a RuntimeClass (deploy.kubernetes.runtimeClassName),
	// which the API server's admission looks up when the Job makes its
	// pod: the operator provides it.
	rc := filepath.Join(t.TempDir(), "runtimeclass.yaml")
	writeFile(t, "/", rc, "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: gvisor\nhandler: runsc\n")
	c.kubectlRun(t, ctx, "apply", "--server-side", "--field-manager", fieldManager, "-f", rc)
	objects += applyTarget(t, ctx, c, cronDir)
	ns := kustomizeNamespace(t, cronDir)
	job := firstCreated(t, ctx, c, "-n", ns, "get", "jobs", "--watch", "-o", "name")
	t.Logf("the CronJob created %s", job)
	pod := firstCreated(t, ctx, c, "-n", ns, "get", "pods", "--watch", "-o", "name", "-l", "batch.kubernetes.io/job-name="+strings.TrimPrefix(job, "job.batch/"))
	t.Logf("the Job created %s (admitted under Pod Security restricted)", pod)
	if rc := c.kubectlRun(t, ctx, "-n", ns, "get", pod, "-o", "jsonpath={.spec.runtimeClassName}"); rc != "gvisor" {
		t.Errorf("the Job's pod runs under RuntimeClass %q, want gvisor", rc)
	}
	// The employee runs Gemini CLI: its clone container trusts its
	// directory ahead (docs/deploy.md, "Trust gates on the targets").
	if clone := c.kubectlRun(t, ctx, "-n", ns, "get", pod, "-o", "jsonpath={.spec.initContainers[0].command[2]}"); !strings.Contains(clone, "trustedFolders.json") || !strings.Contains(clone, `"/data/actant/instances/tick"`) {
		t.Errorf("the Job's pod does not trust the employee's directory for Gemini CLI:\n%s", clone)
	}
	objects += applyStatePod(t, ctx, c, ns, "actctl-crontest-tick")
	if pols := strings.Fields(c.kubectlRun(t, ctx, "get", "networkpolicies", "-A", "-o", "name")); len(pols) != 2 {
		t.Errorf("NetworkPolicies %v, want the example's and the cron workspace's", pols)
	}
	reportPodTemplates(t, ctx, c)
	t.Logf("tier figures: %d objects applied, %d StatefulSet pod(s), 1 Job and its pod created, %v in all", objects, len(sets), time.Since(start).Round(time.Second))
}

// exampleTargets applies a copy of every example and returns the
// Kubernetes directories it rendered.
func exampleTargets(t *testing.T, ctx context.Context, bin string) []string {
	t.Helper()
	examples, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*", "actant.cue"))
	var dirs []string
	for _, cue := range examples {
		b, err := os.ReadFile(cue)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "kubernetes") {
			continue
		}
		ws := filepath.Join(t.TempDir(), filepath.Base(filepath.Dir(cue)))
		if err := os.CopyFS(ws, os.DirFS(filepath.Dir(cue))); err != nil {
			t.Fatal(err)
		}
		run(t, ctx, ws, append(os.Environ(), "ACTANT_HOME="+t.TempDir()), bin, "apply")
		found := kustomizations(t, ws)
		t.Logf("example %s: %d Kubernetes target(s)", filepath.Base(ws), len(found))
		dirs = append(dirs, found...)
	}
	if len(dirs) == 0 {
		t.Fatal("no example renders a Kubernetes target")
	}
	return dirs
}

// kustomizations lists the directories under ws holding a
// kustomization.yaml that actctl generated.
func kustomizations(t *testing.T, ws string) []string {
	t.Helper()
	var dirs []string
	filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "kustomization.yaml" {
			if b, _ := os.ReadFile(p); strings.HasPrefix(string(b), "# generated by actctl") {
				dirs = append(dirs, filepath.Dir(p))
			}
		}
		return nil
	})
	return dirs
}

// cronWorkspace renders a workspace whose cron-shaped employee ticks
// every minute, and returns its Kubernetes directory.
func cronWorkspace(t *testing.T, ctx context.Context, bin string) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "crontest")
	writeFile(t, ws, "actant.cue", `package actant
deploy: kubernetes: {
	namespace: "crontest"
	image:     "example.invalid/agents@sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"
	repo: {url: "https://example.invalid/agents.git", ref: "main"}
	storage: class: "csi-rwop"
	secret: "agents"
	name:   "crontest"
	runtimeClassName: "gvisor"
	networkPolicy: {cidrs: ["10.0.0.0/8"], ports: [5432]}
}
templates: emp: {backend: "gemini", archetype: "employee", schedule: cron: [{pattern: "* * * * *", prompt: "tick"}]}
agents: tick: {template: "emp", deploy: kubernetes: shape: "cron"}
`)
	run(t, ctx, ws, append(os.Environ(), "ACTANT_HOME="+t.TempDir()), bin, "apply")
	dirs := kustomizations(t, ws)
	if len(dirs) != 1 {
		t.Fatalf("the cron workspace rendered %d Kubernetes targets", len(dirs))
	}
	return dirs[0]
}

// applyStatePod applies, in namespace ns, the pod docs/deploy.md gives
// for carrying an employee's state over a shape change ("Changing an
// employee's shape"), mounting claim: strictly, a dry run first, under
// Pod Security "restricted" with no warning. It returns the objects
// applied (1).
func applyStatePod(t *testing.T, ctx context.Context, c *cluster, ns, claim string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "apply -f - <<'YAML'\n")
	manifest, _, ok2 := strings.Cut(rest, "\nYAML\n")
	if !ok || !ok2 {
		t.Fatal("docs/deploy.md: no state pod (apply -f - <<'YAML' ... YAML)")
	}
	manifest = strings.NewReplacer("claimName: actctl-team-triage", "claimName: "+claim, "ghcr.io/acme/agents@sha256:...", "example.invalid/agents@sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae").Replace(manifest)
	f := filepath.Join(t.TempDir(), "state-pod.yaml")
	writeFile(t, "/", f, manifest+"\n")
	for _, dry := range []string{"--dry-run=server", "--dry-run=none"} {
		out := c.kubectlRun(t, ctx, "-n", ns, "apply", "-f", f, "--server-side", "--validate=strict", "--field-manager", fieldManager, dry, "-o", "name")
		if strings.Contains(out, "Warning") || !strings.Contains(out, "pod/actctl-team-triage-state") {
			t.Errorf("the state pod of docs/deploy.md (%s): %s", dry, out)
		}
	}
	t.Logf("the state pod of docs/deploy.md admitted under Pod Security restricted, mounting %s", claim)
	return 1
}

// kustomizeNamespace is the namespace a rendered kustomization sets.
func kustomizeNamespace(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct{ Namespace string }
	if err := yaml.Unmarshal(b, &k); err != nil || k.Namespace == "" {
		t.Fatalf("%s: no namespace (%v)", dir, err)
	}
	return k.Namespace
}

// applyTarget makes the target's namespace enforce Pod Security
// "restricted", then applies the directory server-side with strict
// validation (a dry run first); a warning (a would-be Pod Security
// violation, an unknown field) fails. It returns the objects applied.
func applyTarget(t *testing.T, ctx context.Context, c *cluster, dir string) int {
	t.Helper()
	ns := kustomizeNamespace(t, dir)
	nsFile := filepath.Join(t.TempDir(), "ns.yaml")
	writeFile(t, "/", nsFile, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "+ns+
		"\n  labels:\n    pod-security.kubernetes.io/enforce: restricted\n    pod-security.kubernetes.io/warn: restricted\n")
	c.kubectlRun(t, ctx, "apply", "--server-side", "--field-manager", fieldManager, "-f", nsFile)
	args := []string{"apply", "-k", dir, "--server-side", "--validate=strict", "--field-manager", fieldManager}
	for _, dry := range []bool{true, false} {
		a := append(args, "-o", "name")
		if dry {
			a = append(a, "--dry-run=server")
		}
		out := c.kubectlRun(t, ctx, a...)
		if strings.Contains(out, "Warning") {
			t.Errorf("kubectl apply -k %s (dry run %v) warns:\n%s", dir, dry, out)
		}
		if !dry {
			n := strings.Count(strings.TrimSpace(out), "\n") + 1
			t.Logf("applied %d objects of %s in namespace %s", n, filepath.Base(filepath.Dir(filepath.Dir(dir))), ns)
			return n
		}
	}
	return 0
}

// firstCreated runs a kubectl watch and returns its first line: the
// first object the controllers created (the watch lists what exists,
// then what comes).
func firstCreated(t *testing.T, ctx context.Context, c *cluster, args ...string) string {
	t.Helper()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(wctx, c.kubectl, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.kubeconfig)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	sc := bufio.NewScanner(out)
	if sc.Scan() {
		return strings.TrimSpace(sc.Text())
	}
	t.Fatalf("kubectl %s: nothing came (%v): %s\n%s", strings.Join(args, " "), ctx.Err(), stderr.String(), c.logs())
	return ""
}

// podSpec is the part of a pod template the report reads.
type podSpec struct {
	Containers, InitContainers []struct {
		Name      string
		Resources struct {
			Requests, Limits map[string]string
		}
		ReadinessProbe *json.RawMessage
	}
}

// reportPodTemplates logs, for every StatefulSet, CronJob and Job of the
// cluster, the containers without requests or limits, the Jobs without
// activeDeadlineSeconds and the StatefulSets' containers without a
// readiness probe.
func reportPodTemplates(t *testing.T, ctx context.Context, c *cluster) {
	t.Helper()
	var list struct {
		Items []struct {
			Kind     string
			Metadata struct{ Name, Namespace string }
			Spec     struct {
				Template    struct{ Spec podSpec }
				JobTemplate struct {
					Spec struct {
						ActiveDeadlineSeconds *int64
						Template              struct{ Spec podSpec }
					}
				}
				ActiveDeadlineSeconds *int64
			}
		}
	}
	out := c.kubectlRun(t, ctx, "get", "statefulsets,cronjobs,jobs", "-A", "-o", "json")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	for _, it := range list.Items {
		name := it.Kind + " " + it.Metadata.Namespace + "/" + it.Metadata.Name
		spec, deadline := it.Spec.Template.Spec, it.Spec.ActiveDeadlineSeconds
		if it.Kind == "CronJob" {
			spec, deadline = it.Spec.JobTemplate.Spec.Template.Spec, it.Spec.JobTemplate.Spec.ActiveDeadlineSeconds
		}
		if it.Kind != "StatefulSet" && deadline == nil {
			t.Errorf("%s: Jobs without activeDeadlineSeconds", name)
		}
		for _, ctr := range append(spec.InitContainers, spec.Containers...) {
			if len(ctr.Resources.Requests) == 0 || len(ctr.Resources.Limits) == 0 {
				t.Errorf("%s: container %s without requests and limits (%v, %v)", name, ctr.Name, ctr.Resources.Requests, ctr.Resources.Limits)
			}
		}
		for _, ctr := range spec.Containers {
			if it.Kind == "StatefulSet" && ctr.ReadinessProbe == nil {
				t.Errorf("%s: container %s without a readiness probe", name, ctr.Name)
			}
		}
	}
}
