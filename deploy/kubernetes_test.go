package deploy

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	robfig "github.com/robfig/cron/v3"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/actctl/actctl/schema"
)

// strict decodes one YAML document into out, refusing unknown fields:
// what the API server's strict field validation does.
func strict(t *testing.T, doc []byte, out any) {
	t.Helper()
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		t.Fatalf("yaml: %v\n%s", err, doc)
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		t.Fatalf("decode %T: %v\n%s", out, err, doc)
	}
}

type kubeDocs struct {
	accounts []corev1.ServiceAccount
	services []corev1.Service
	sets     []appsv1.StatefulSet
	claims   []corev1.PersistentVolumeClaim
	crons    []batchv1.CronJob
	policies []networkingv1.NetworkPolicy
	kust     struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Namespace  string   `json:"namespace"`
		Resources  []string `json:"resources"`
	}
}

// decodeKube decodes every document of the Kubernetes output strictly
// into k8s.io/api's types.
func decodeKube(t *testing.T, o Output) *kubeDocs {
	t.Helper()
	var d kubeDocs
	for _, f := range o.Files {
		if !bytes.HasPrefix(f.Content, []byte("# "+Header+"\n")) {
			t.Errorf("%s: no header", f.Path)
		}
		if !strings.HasSuffix(f.Path, ".yaml") {
			continue // the image recipe (TestImageRecipe)
		}
		for _, doc := range bytes.Split(f.Content, []byte("\n---\n")) {
			var tm struct{ Kind string }
			if err := yaml.Unmarshal(doc, &tm); err != nil {
				t.Fatal(err)
			}
			switch tm.Kind {
			case "ServiceAccount":
				d.accounts = append(d.accounts, corev1.ServiceAccount{})
				strict(t, doc, &d.accounts[len(d.accounts)-1])
			case "Service":
				d.services = append(d.services, corev1.Service{})
				strict(t, doc, &d.services[len(d.services)-1])
			case "StatefulSet":
				d.sets = append(d.sets, appsv1.StatefulSet{})
				strict(t, doc, &d.sets[len(d.sets)-1])
			case "PersistentVolumeClaim":
				d.claims = append(d.claims, corev1.PersistentVolumeClaim{})
				strict(t, doc, &d.claims[len(d.claims)-1])
			case "CronJob":
				d.crons = append(d.crons, batchv1.CronJob{})
				strict(t, doc, &d.crons[len(d.crons)-1])
			case "NetworkPolicy":
				d.policies = append(d.policies, networkingv1.NetworkPolicy{})
				strict(t, doc, &d.policies[len(d.policies)-1])
			case "Kustomization":
				strict(t, doc, &d.kust)
			default:
				t.Errorf("%s: unexpected kind %q", f.Path, tm.Kind)
			}
		}
	}
	return &d
}

// TestKubernetesDecode: every rendered document decodes strictly into
// the official API types, and holds what schema validation does not
// check: enum values, restartPolicy, the pod's hardening, the schedule
// and time zone as the CronJob controller reads them, names within
// limits, secrets referenced by name only.
func TestKubernetesDecode(t *testing.T) {
	outs := renderTeam(t)
	d := decodeKube(t, outs[0])
	if len(d.accounts) != 1 || len(d.services) != 1 || len(d.sets) != 1 || len(d.claims) != 1 || len(d.crons) != 2 {
		t.Fatalf("documents: %d accounts, %d services, %d sets, %d claims, %d cronjobs", len(d.accounts), len(d.services), len(d.sets), len(d.claims), len(d.crons))
	}
	if a := d.accounts[0]; a.AutomountServiceAccountToken == nil || *a.AutomountServiceAccountToken {
		t.Error("the ServiceAccount mounts its token")
	}
	if got := strings.Join(d.kust.Resources, ","); got != "workspace.yaml,cron-triage.yaml" || d.kust.Namespace != "agents" {
		t.Errorf("kustomization %+v", d.kust)
	}
	set := d.sets[0]
	if set.Name != "actctl-team" || set.Spec.Replicas == nil || *set.Spec.Replicas != 1 || set.Spec.ServiceName != d.services[0].Name {
		t.Errorf("statefulset %s replicas %v service %s", set.Name, set.Spec.Replicas, set.Spec.ServiceName)
	}
	if d.services[0].Spec.ClusterIP != corev1.ClusterIPNone {
		t.Error("the Service is not headless")
	}
	if got := strings.Join(set.Spec.Template.Spec.Containers[0].Args, " "); got != "-C /data/workspace up --frozen --webhooks 0.0.0.0:8787 report review" {
		t.Errorf("up args %q", got)
	}
	checkWebhooks(t, d.services[0], set.Spec.Template.Spec.Containers[0], "actctl-team")
	if set.Spec.Template.Annotations["actctl.dev/config-digest"] == "" {
		t.Error("no config digest")
	}
	checkPod(t, "statefulset", set.Spec.Template.Spec)
	up := set.Spec.Template.Spec.Containers[0]
	if p := up.ReadinessProbe; p == nil || p.Exec == nil || strings.Join(p.Exec.Command, " ") != "actctl -C /data/workspace control-ready" {
		t.Errorf("up's readiness probe %+v: want `actctl -C /data/workspace control-ready`", up.ReadinessProbe)
	}
	if got := up.Resources.Limits.Memory().String(); got != "2Gi" {
		t.Errorf("up's memory limit %s, want the workspace's default 2Gi", got)
	}
	claim := d.claims[0]
	if claim.Spec.AccessModes[0] != corev1.ReadWriteOncePod {
		t.Errorf("claim access %v", claim.Spec.AccessModes)
	}
	for _, c := range d.crons {
		if len(c.Name) > 52 || len(validation.IsDNS1123Subdomain(c.Name)) > 0 {
			t.Errorf("cronjob name %q", c.Name)
		}
		s := c.Spec
		if s.ConcurrencyPolicy != batchv1.ForbidConcurrent || s.StartingDeadlineSeconds == nil || s.TimeZone == nil {
			t.Errorf("%s: policy %q deadline %v zone %v", c.Name, s.ConcurrencyPolicy, s.StartingDeadlineSeconds, s.TimeZone)
			continue
		}
		if _, err := time.LoadLocation(*s.TimeZone); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
		// The controller's own parse (cronjob_controllerv2 formatSchedule).
		if _, err := robfig.ParseStandard("TZ=" + *s.TimeZone + " " + s.Schedule); err != nil {
			t.Errorf("%s: robfig refuses %q: %v", c.Name, s.Schedule, err)
		}
		pod := s.JobTemplate.Spec.Template.Spec
		if pod.RestartPolicy != corev1.RestartPolicyNever || s.JobTemplate.Spec.BackoffLimit == nil || *s.JobTemplate.Spec.BackoffLimit != 0 {
			t.Errorf("%s: restartPolicy %q backoff %v", c.Name, pod.RestartPolicy, s.JobTemplate.Spec.BackoffLimit)
		}
		if d := s.JobTemplate.Spec.ActiveDeadlineSeconds; d == nil || *d < 2*35*60 {
			t.Errorf("%s: activeDeadlineSeconds %v: want room for the other entry's task and its own (2 x 35 min)", c.Name, d)
		}
		if got := pod.Containers[0].Resources.Limits.Memory().String(); got != "4Gi" {
			t.Errorf("%s: memory limit %s, want triage's own 4Gi", c.Name, got)
		}
		if v := pod.Volumes[0]; v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != claim.Name {
			t.Errorf("%s: does not mount the employee's claim %s", c.Name, claim.Name)
		}
		checkPod(t, c.Name, pod)
	}
	if got := d.crons[1].Spec.Schedule; got != "0 9 * * 1-5" {
		t.Errorf("cron:0 schedule %q, want the day names as numbers", got)
	}
}

// checkPod checks the hardening every pod gets and that secrets come
// by reference.
func checkPod(t *testing.T, what string, p corev1.PodSpec) {
	t.Helper()
	if p.AutomountServiceAccountToken == nil || *p.AutomountServiceAccountToken {
		t.Errorf("%s: token mounted", what)
	}
	if sc := p.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("%s: not runAsNonRoot", what)
	} else if sc.FSGroupChangePolicy == nil || *sc.FSGroupChangePolicy != corev1.FSGroupChangeOnRootMismatch {
		t.Errorf("%s: fsGroupChangePolicy %v: the kubelet would walk the volume at every mount", what, sc.FSGroupChangePolicy)
	}
	if p.TerminationGracePeriodSeconds == nil || *p.TerminationGracePeriodSeconds <= 20 {
		t.Errorf("%s: grace %v is not above up's shutdown", what, p.TerminationGracePeriodSeconds)
	}
	for _, c := range append(p.InitContainers, p.Containers...) {
		checkResources(t, what+"/"+c.Name, c.Resources)
		if sc := c.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			t.Errorf("%s/%s: root filesystem writable", what, c.Name)
		}
		home := false
		for _, e := range c.Env {
			if e.Name == "HOME" && strings.HasPrefix(e.Value, dataDir) {
				home = true
			}
			if strings.Contains(e.Name, "KEY") || strings.Contains(e.Name, "TOKEN") {
				if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != "actctl-team" {
					t.Errorf("%s/%s: %s is not taken from the Secret by name", what, c.Name, e.Name)
				}
			}
		}
		if !home {
			t.Errorf("%s/%s: HOME is not on the writable volume", what, c.Name)
		}
	}
}

// checkResources: requests and limits of CPU and memory (what a
// namespace's compute ResourceQuota asks of every container), no request
// above its limit (what the API server refuses).
func checkResources(t *testing.T, what string, r corev1.ResourceRequirements) {
	t.Helper()
	for _, n := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, okReq := r.Requests[n]
		lim, okLim := r.Limits[n]
		if !okReq || !okLim || req.Cmp(lim) > 0 {
			t.Errorf("%s: %s request %v limit %v", what, n, r.Requests, r.Limits)
		}
	}
}

// TestWorkspaceName: the name `actctl --kube` computes the pod's from.
func TestWorkspaceName(t *testing.T) {
	for _, tc := range []struct{ name, url, want string }{
		{"", "https://example.com/acme/My_Repo.git", "my-repo"},
		{"team", "https://example.com/acme/repo.git", "team"},
		{"", "https://example.com/--", "workspace"},
		{"", "https://example.com/" + strings.Repeat("a", 60), strings.Repeat("a", 40)},
		{"", `C:\work\Agents.Repo`, "agents-repo"},
		{"", "", ""},
	} {
		if got := WorkspaceName(tc.name, tc.url); got != tc.want {
			t.Errorf("WorkspaceName(%q, %q) = %q, want %q", tc.name, tc.url, got, tc.want)
		}
	}
}

// TestKubernetesNoRepo: without deploy.kubernetes.repo and a remote,
// nothing renders and the error says what to give.
func TestKubernetesNoRepo(t *testing.T) {
	cfg := loadTeam(t)
	cfg.Deploy.Kubernetes.Repo = nil
	_, err := Render(cfg, Options{})
	if err == nil || !strings.Contains(err.Error(), "deploy.kubernetes: no repository for the pods to clone") {
		t.Fatalf("err = %v", err)
	}
	outs, err := Render(cfg, Options{Repo: &schema.DeployRepo{URL: "https://example.com/r.git", Ref: "dev"}})
	if err != nil || !bytes.Contains(outs[0].Files[len(outs[0].Files)-1].Content, []byte("")) {
		t.Fatalf("with a remote: %v", err)
	}
}

// TestJobDeadlineFollowsTurnTimeout: a cron Job's activeDeadlineSeconds
// is, per schedule entry, the agent's turn deadline (`actctl task`'s
// default --timeout) plus the task's overhead, so a Job is never ended
// by Kubernetes while its turn may still run, nor left Pending forever.
func TestJobDeadlineFollowsTurnTimeout(t *testing.T) {
	for _, c := range []struct {
		entries int
		turn    time.Duration
		want    int
	}{
		{1, 30 * time.Minute, 35 * 60},
		{2, 30 * time.Minute, 2 * 35 * 60},
		{1, 2 * time.Hour, 125 * 60},
		{3, 10 * time.Minute, 3 * 15 * 60},
	} {
		if got := jobDeadline(c.entries, c.turn); got != c.want {
			t.Errorf("jobDeadline(%d, %v) = %d, want %d", c.entries, c.turn, got, c.want)
		}
	}
}

// checkWebhooks: the workspace declares a webhook, so up serves it on
// WebhookPort, the container names the port, the Service exposes it,
// and the webhook's secret comes from the Secret by reference.
func checkWebhooks(t *testing.T, svc corev1.Service, up corev1.Container, secret string) {
	t.Helper()
	if len(up.Ports) != 1 || up.Ports[0].Name != "webhooks" || up.Ports[0].ContainerPort != WebhookPort {
		t.Errorf("up's ports %+v, want webhooks %d", up.Ports, WebhookPort)
	}
	if p := svc.Spec.Ports; len(p) != 1 || p[0].Port != WebhookPort || p[0].TargetPort.String() != "webhooks" {
		t.Errorf("the Service's ports %+v, want %d to webhooks", p, WebhookPort)
	}
	for _, e := range up.Env {
		if e.Name == "ISSUES_WEBHOOK_SECRET" {
			if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != secret || e.ValueFrom.SecretKeyRef.Key != e.Name {
				t.Errorf("the webhook's secret is not from the Secret %s by reference: %+v", secret, e)
			}
			return
		}
	}
	t.Errorf("up's env lacks the webhook's secret ISSUES_WEBHOOK_SECRET: %+v", up.Env)
}

// TestKubernetesSSHClone: a repository cloned over SSH mounts the
// sshSecret, read-only and 0400, in the clone container only, which the
// script reads through $ACTCTL_SSH_DIR (key and known_hosts); an SSH
// origin with no Secret to give is refused at render, saying how.
func TestKubernetesSSHClone(t *testing.T) {
	cfg := loadTeam(t)
	cfg.Deploy.Kubernetes.Repo = &schema.DeployRepo{URL: "git@github.com:acme/team.git", Ref: "main", SSHSecret: "team-deploy-key"}
	outs, err := Render(cfg, Options{Now: goldenNow})
	if err != nil {
		t.Fatal(err)
	}
	d := decodeKube(t, outs[0])
	pods := []corev1.PodSpec{d.sets[0].Spec.Template.Spec}
	for _, c := range d.crons {
		pods = append(pods, c.Spec.JobTemplate.Spec.Template.Spec)
	}
	for _, p := range pods {
		var vol *corev1.Volume
		for i := range p.Volumes {
			if p.Volumes[i].Secret != nil {
				vol = &p.Volumes[i]
			}
		}
		if vol == nil || vol.Secret.SecretName != "team-deploy-key" || vol.Secret.DefaultMode == nil || *vol.Secret.DefaultMode != 0o400 {
			t.Fatalf("no secret volume of team-deploy-key, mode 0400: %+v", p.Volumes)
		}
		clone := p.InitContainers[0]
		if !mounts(clone, vol.Name, "/etc/actctl/ssh", true) || !hasEnv(clone, "ACTCTL_SSH_DIR", "/etc/actctl/ssh") {
			t.Errorf("the clone does not read the key: %+v %+v", clone.VolumeMounts, clone.Env)
		}
		if mounts(p.Containers[0], vol.Name, "/etc/actctl/ssh", true) {
			t.Error("the main container sees the clone's key")
		}
	}
	for _, want := range []string{`UserKnownHostsFile=$ACTCTL_SSH_DIR/known_hosts`, `StrictHostKeyChecking=yes`, `"$ACTCTL_SSH_DIR/ssh-privatekey"`, `trap 'rm -f "$k"' EXIT`} {
		if !strings.Contains(cloneScript, want) {
			t.Errorf("the clone script lacks %s", want)
		}
	}
	cfg.Deploy.Kubernetes.Repo = nil
	_, err = Render(cfg, Options{Repo: &schema.DeployRepo{URL: "ssh://git@github.com/acme/team.git", Ref: "main"}, Now: goldenNow})
	if err == nil || !strings.Contains(err.Error(), `the pods would clone "ssh://git@github.com/acme/team.git" over SSH with no key and no known_hosts: give deploy.kubernetes.repo {url, ref, sshSecret}`) {
		t.Errorf("an SSH origin without a Secret: %v", err)
	}
}

func mounts(c corev1.Container, vol, at string, readOnly bool) bool {
	for _, m := range c.VolumeMounts {
		if m.Name == vol && m.MountPath == at && m.ReadOnly == readOnly {
			return true
		}
	}
	return false
}

func hasEnv(c corev1.Container, name, value string) bool {
	for _, e := range c.Env {
		if e.Name == name && e.Value == value {
			return true
		}
	}
	return false
}
