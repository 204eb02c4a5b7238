package deploy

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/actctl/actctl/schema"
)

// WorkspaceDir is where a rendered pod has the workspace's clone, the
// root `actctl --kube` names in the pod by default (docs/deploy.md,
// "Kubernetes").
const WorkspaceDir = dataDir + "/workspace"

// ReadyCommand is the hidden actctl command the StatefulSet's readiness
// probe runs (`actctl -C WorkspaceDir control-ready`): it exits 0 only
// when the workspace's up answers a status request on its control
// socket.
const ReadyCommand = "control-ready"

// Where things live in a pod (docs/deploy.md, "Kubernetes"): one volume
// at dataDir holds the clone (WorkspaceDir), $ACTANT_HOME and the
// backends' $HOME.
const (
	dataDir    = "/data"
	homeDir    = dataDir + "/home"
	actantHome = dataDir + "/actant"
	// uid is the user the pods run as (runAsNonRoot needs a number).
	uid = 1000
	// graceSeconds exceeds up's shutdown: the running turn's cancel and
	// grace (5 s), each agent's stop (5 s) and the shutdown hooks (10 s).
	graceSeconds = 60
	// startingDeadline: a tick the controller missed by more is not run
	// (actctl never replays missed ticks) and it never stops scheduling
	// after 100 misses.
	startingDeadline = 300
	// taskOverhead is what one task takes in its Job beside its turn
	// (the agent's turnTimeout, `actctl task`'s default --timeout): the
	// cancel and kill grace, the clone and the backend's start.
	taskOverhead = 5 * 60
	// maxCronJobName is Kubernetes' limit for a CronJob's name (its Jobs
	// append 11 characters).
	maxCronJobName = 52
)

// cloneScript checks the repository out at $ACTCTL_REF into the
// workspace directory: a clone the first time, a fetch after. The URL and
// the ref come in the environment, after "--": git never reads them as
// options, whatever they hold. Over SSH ($ACTCTL_SSH_DIR, the mounted
// sshSecret) ssh takes a private copy of the key (the kubelet makes the
// mounted one readable by the pod's group, which ssh refuses), removed
// on exit, and trusts only the Secret's known_hosts.
const cloneScript = `set -eu
w=` + WorkspaceDir + `
if [ -n "${ACTCTL_SSH_DIR:-}" ]; then
  k=$(mktemp)
  trap 'rm -f "$k"' EXIT
  cat "$ACTCTL_SSH_DIR/ssh-privatekey" > "$k"
  export GIT_SSH_COMMAND="ssh -i $k -o IdentitiesOnly=yes -o UserKnownHostsFile=$ACTCTL_SSH_DIR/known_hosts -o StrictHostKeyChecking=yes"
fi
if [ -d "$w/.git" ]; then
  git -C "$w" fetch --depth 1 origin -- "$ACTCTL_REF"
  git -C "$w" checkout --force --detach FETCH_HEAD
else
  git clone --depth 1 --branch "$ACTCTL_REF" -- "$ACTCTL_REPO" "$w"
fi
`

// kube holds what every Kubernetes document of one workspace shares.
type kube struct {
	cfg    *schema.Config
	k      *schema.DeployKubernetes
	repo   schema.DeployRepo
	ws     string // WorkspaceName
	now    time.Time
	keys   []string           // the StatefulSet's: the resident agents' secrets
	all    []*schema.Resolved // the agents on Kubernetes
	labels map[string]string
}

func renderKubernetes(cfg *schema.Config, o Options) ([]File, error) {
	k := cfg.Deploy.Kubernetes
	kb := &kube{cfg: cfg, k: k, now: o.Now}
	switch {
	case k.Repo != nil:
		kb.repo = *k.Repo
	case o.Repo != nil:
		kb.repo = *o.Repo
	default:
		return nil, errors.New("no repository for the pods to clone: give deploy.kubernetes.repo {url, ref}, or add a git remote \"origin\" to the workspace's repository")
	}
	if schema.IsSSHURL(kb.repo.URL) && kb.repo.SSHSecret == "" {
		return nil, fmt.Errorf("the pods would clone %q over SSH with no key and no known_hosts: give deploy.kubernetes.repo {url, ref, sshSecret} (docs/deploy.md), or an https URL", kb.repo.URL)
	}
	if kb.ws = WorkspaceName(k.Name, kb.repo.URL); kb.ws == "" {
		return nil, fmt.Errorf("no name for the workspace in the cluster in the repository URL %q: give deploy.kubernetes.name", kb.repo.URL)
	}
	kb.labels = map[string]string{
		"app.kubernetes.io/name":       "actctl",
		"app.kubernetes.io/instance":   kb.ws,
		"app.kubernetes.io/managed-by": "actctl",
	}
	all, some := agentsOn(cfg, schema.TargetKubernetes)
	var resident, cron []*schema.Resolved
	for _, r := range all {
		if r.Agent.KubeShape() == schema.ShapeCron {
			cron = append(cron, r)
		} else {
			resident = append(resident, r)
		}
	}
	kb.keys = secretKeys(cfg, resident) // a cron employee's are its Jobs' only
	kb.all = all
	ws, err := kb.workspace(resident, len(cron) > 0 || some)
	if err != nil {
		return nil, err
	}
	files := []File{{Path: kb.path("workspace.yaml"), Content: ws}}
	resources := []string{"workspace.yaml"}
	for _, r := range cron {
		b, err := kb.cronJobs(r)
		if err != nil {
			return nil, err
		}
		name := "cron-" + r.Name + ".yaml"
		files = append(files, File{Path: kb.path(name), Content: b})
		resources = append(resources, name)
	}
	df, err := dockerfile(cfg, k)
	if err != nil {
		return nil, err
	}
	files = append(files, File{Path: kb.path("Dockerfile"), Content: df})
	kz, err := yamlDocs(kustomization{APIVersion: "kustomize.config.k8s.io/v1beta1", Kind: "Kustomization", Namespace: k.Namespace, Resources: resources})
	if err != nil {
		return nil, err
	}
	return append(files, File{Path: kb.path("kustomization.yaml"), Content: kz}), nil
}

func (kb *kube) path(name string) string { return path.Join(path.Clean(kb.k.Dir), name) }

func (kb *kube) name() string { return "actctl-" + kb.ws }

func (kb *kube) meta(name string, extra map[string]string) meta {
	labels := map[string]string{}
	for k, v := range kb.labels {
		labels[k] = v
	}
	for k, v := range extra {
		labels[k] = v
	}
	return meta{Name: name, Namespace: kb.k.Namespace, Labels: labels}
}

// workspace renders the ServiceAccount, the NetworkPolicy when one is
// asked for, and for resident agents the
// headless Service and the StatefulSet running `actctl up --frozen`
// (serving the workspace's webhooks on WebhookPort, exposed by the
// Service, their secrets from the Secret, when it declares some)
// (naming the resident agents when some others run as CronJobs or on
// another engine).
func (kb *kube) workspace(resident []*schema.Resolved, named bool) ([]byte, error) {
	no := false
	docs := []any{object{APIVersion: "v1", Kind: "ServiceAccount", Metadata: kb.meta(kb.name(), nil), AutomountServiceAccountToken: &no}}
	docs = append(docs, kb.networkPolicy(kb.all)...)
	if len(resident) == 0 {
		return yamlDocs(docs...)
	}
	args := []string{"-C", WorkspaceDir, "up", "--frozen"}
	keys, svc, ports := kb.keys, serviceSpec{ClusterIP: "None"}, []containerPort(nil)
	if hooks := kb.cfg.Webhooks; len(hooks) > 0 {
		args = append(args, "--webhooks", "0.0.0.0:"+strconv.Itoa(WebhookPort))
		ports = []containerPort{{Name: "webhooks", ContainerPort: WebhookPort}}
		svc.Ports = []servicePort{{Name: "webhooks", Port: WebhookPort, TargetPort: "webhooks"}}
		keys = webhookKeys(keys, hooks)
	}
	if named {
		for _, r := range resident {
			args = append(args, r.Name)
		}
	}
	sel := map[string]string{"app.kubernetes.io/name": "actctl", "app.kubernetes.io/instance": kb.ws}
	pm := meta{Labels: kb.labels, Annotations: map[string]string{"actctl.dev/config-digest": ConfigDigest(kb.cfg)}}
	if len(keys) > 0 {
		pm.Annotations["actctl.dev/secret-keys"] = strings.Join(keys, ",")
	}
	up := container{Name: "up", Command: []string{"actctl"}, Args: args, ReadinessProbe: &probe{
		Exec:          execAction{Command: []string{"actctl", "-C", WorkspaceDir, ReadyCommand}},
		PeriodSeconds: 10, TimeoutSeconds: 5, FailureThreshold: 3,
	}}
	up.Ports = ports
	pod := kb.pod(up, keys, kb.k.Resources, resident, volume{Name: "tmp", EmptyDir: &struct{}{}})
	sts := statefulSetSpec{
		ServiceName: kb.name(), Replicas: 1, Selector: selector{MatchLabels: sel},
		Template:             podTemplate{Metadata: pm, Spec: pod},
		VolumeClaimTemplates: []claimObject{{Metadata: meta{Name: "data"}, Spec: kb.claim("ReadWriteOnce")}},
	}
	docs = append(docs,
		object{APIVersion: "v1", Kind: "Service", Metadata: kb.meta(kb.name(), nil), Spec: serviceSpec{ClusterIP: svc.ClusterIP, Selector: sel, Ports: svc.Ports}},
		object{APIVersion: "apps/v1", Kind: "StatefulSet", Metadata: kb.meta(kb.name(), nil), Spec: sts})
	return yamlDocs(docs...)
}

// sshDir is where the clone container mounts deploy.kubernetes.repo's
// sshSecret; the main container never sees the key.
const sshDir = "/etc/actctl/ssh"

// WebhookPort is the port the pod's `up --webhooks` listens on and its
// Service exposes (docs/deploy.md, "Kubernetes").
const WebhookPort = 8787

// webhookKeys is keys with each webhook's secretEnv added, sorted.
func webhookKeys(keys []string, hooks map[string]schema.Webhook) []string {
	out := slices.Clone(keys)
	for _, h := range hooks {
		if !slices.Contains(out, h.SecretEnv) {
			out = append(out, h.SecretEnv)
		}
	}
	slices.Sort(out)
	return out
}

func (kb *kube) claim(mode string) claimSpec {
	return claimSpec{AccessModes: []string{mode}, StorageClassName: kb.k.Storage.Class, Resources: resources{Requests: map[string]string{"storage": kb.k.Storage.Size}}}
}

// pod is the pod spec around main: the clone first (which also trusts
// the directories of the agents trusted ahead, trustScript), the data volume
// (a claim template's "data", unless vols name another) and /tmp; the
// main container gets keys from the Secret; both get res (the clone
// runs before main: the pod's own need is the larger of the two).
func (kb *kube) pod(main container, keys []string, res schema.Resources, trusted []*schema.Resolved, vols ...volume) podSpec {
	mounts := []volumeMount{{Name: "data", MountPath: dataDir}, {Name: "tmp", MountPath: "/tmp"}}
	env := func(more ...envVar) []envVar {
		return append([]envVar{{Name: "HOME", Value: homeDir}, {Name: "ACTANT_HOME", Value: actantHome}}, more...)
	}
	sec := containerSecurity{ReadOnlyRootFilesystem: true, Capabilities: capabilities{Drop: []string{"ALL"}}}
	clone := container{
		Name: "clone", Image: kb.k.Image, Command: []string{"sh", "-c", cloneScript + trustScript(kb.cfg, schema.TargetKubernetes, trusted, func(r *schema.Resolved) string { return podDir(kb.cfg, r) })},
		Env:          env(envVar{Name: "ACTCTL_REPO", Value: kb.repo.URL}, envVar{Name: "ACTCTL_REF", Value: kb.repo.Ref}),
		VolumeMounts: mounts, SecurityContext: sec,
	}
	if sec := kb.repo.SSHSecret; sec != "" {
		clone.Env = append(clone.Env, envVar{Name: "ACTCTL_SSH_DIR", Value: sshDir})
		clone.VolumeMounts = append(slices.Clone(mounts), volumeMount{Name: "ssh", MountPath: sshDir, ReadOnly: true})
		vols = append(vols, volume{Name: "ssh", Secret: &secretVolume{SecretName: sec, DefaultMode: 0o400}})
	}
	clone.Resources = containerResourcesOf(res)
	main.Image, main.VolumeMounts, main.SecurityContext, main.Resources = kb.k.Image, mounts, sec, clone.Resources
	main.Env = env()
	for _, k := range keys {
		main.Env = append(main.Env, envVar{Name: k, ValueFrom: &envSource{SecretKeyRef: secretKeyRef{Name: kb.k.Secret, Key: k}}})
	}
	return podSpec{
		ServiceAccountName: kb.name(), RuntimeClassName: kb.k.RuntimeClassName, TerminationGracePeriodSeconds: graceSeconds,
		SecurityContext: podSecurity{RunAsNonRoot: true, RunAsUser: uid, RunAsGroup: uid, FSGroup: uid, FSGroupChangePolicy: "OnRootMismatch", SeccompProfile: seccompProfile{Type: "RuntimeDefault"}},
		InitContainers:  []container{clone}, Containers: []container{main}, Volumes: vols,
	}
}

// cronJobs renders an employee of shape cron: its ReadWriteOncePod
// claim (one pod at a time: its tasks serialise, its .heartbeat and
// logs persist) and a CronJob per schedule entry running `actctl task`.
func (kb *kube) cronJobs(r *schema.Resolved) ([]byte, error) {
	entries, ds := kb.cfg.TargetSchedule(r.Name, schema.TargetKubernetes, kb.now)
	if errs := ds.Errors(); len(errs) > 0 {
		return nil, errs
	}
	claim := kname(maxCronJobName, kb.name(), r.Name)
	agent := map[string]string{"actctl.dev/agent": dnsLabel(r.Name, 63, "agent")}
	docs := []any{object{APIVersion: "v1", Kind: "PersistentVolumeClaim", Metadata: kb.meta(claim, agent), Spec: kb.claim("ReadWriteOncePod")}}
	for _, e := range entries {
		args := []string{"-C", WorkspaceDir, "task", r.Name, "--source", e.Source, "--if-busy", "wait", "--frozen"}
		main := container{Name: "task", Command: []string{"actctl"}, Args: args, TerminationMessagePolicy: "FallbackToLogsOnError"}
		pod := kb.pod(main, secretKeys(kb.cfg, []*schema.Resolved{r}), kb.k.ResourcesFor(r.Agent), []*schema.Resolved{r}, volume{Name: "data", PersistentVolumeClaim: &claimRef{ClaimName: claim}}, volume{Name: "tmp", EmptyDir: &struct{}{}})
		pod.RestartPolicy = "Never"
		pod.Containers[0].Env = append(pod.Containers[0].Env, envVar{Name: "ACTCTL_TERMINATION_LOG", Value: "/dev/termination-log"})
		pm := meta{Labels: withAgent(kb.labels, agent)}
		spec := cronJobSpec{
			Schedule: e.Pattern, TimeZone: e.Timezone, ConcurrencyPolicy: "Forbid", StartingDeadlineSeconds: startingDeadline,
			SuccessfulJobsHistoryLimit: 3, FailedJobsHistoryLimit: 3,
			JobTemplate: jobTemplate{Metadata: pm, Spec: jobSpec{BackoffLimit: 0, ActiveDeadlineSeconds: jobDeadline(len(entries), r.Liveness().TurnTimeout),
				TTLSecondsAfterFinished: 86400, Template: podTemplate{Metadata: pm, Spec: pod}}},
		}
		name := kname(maxCronJobName, kb.name(), r.Name, strings.ReplaceAll(e.Source, ":", "-"))
		docs = append(docs, object{APIVersion: "batch/v1", Kind: "CronJob", Metadata: kb.meta(name, agent), Spec: spec})
	}
	return yamlDocs(docs...)
}

// jobDeadline bounds a Job of an employee with n schedule entries: its
// pod may wait Pending for the shared ReadWriteOncePod claim while the
// task of each other entry runs (at most one each: Forbid), then runs
// its own; a Job stuck longer (a claim never bound, a node gone) fails,
// and its CronJob's next tick runs. turn is the agent's turn deadline.
func jobDeadline(n int, turn time.Duration) int { return n * (int(turn.Seconds()) + taskOverhead) }

// containerResourcesOf is r as a container's resources; a field r does
// not give is left out.
func containerResourcesOf(r schema.Resources) containerResources {
	list := func(l schema.ResourceList) map[string]string {
		m := map[string]string{}
		if l.CPU != "" {
			m["cpu"] = l.CPU
		}
		if l.Memory != "" {
			m["memory"] = l.Memory
		}
		return m
	}
	return containerResources{Requests: list(r.Requests), Limits: list(r.Limits)}
}

func withAgent(labels, agent map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range labels {
		out[k] = v
	}
	for k, v := range agent {
		out[k] = v
	}
	return out
}

// kname joins parts with "-" into a DNS-1123 name of at most n
// characters; a longer one is cut and ends in a digest of the whole, so
// two names never meet.
func kname(n int, parts ...string) string {
	s := dnsLabel(strings.Join(parts, "-"), 253, "actctl")
	if len(s) <= n {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return strings.TrimRight(s[:n-9], "-") + "-" + hex.EncodeToString(sum[:])[:8]
}
