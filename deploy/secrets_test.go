package deploy

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestKubernetesSecretsScoped: each pod takes from the Secret only what
// the agents it runs name: the StatefulSet's up the resident agents'
// keys (and the workspace's: deploy.secretKeys, the webhooks'), never a
// cron-shaped employee's; each CronJob's task its employee's; the clone
// container none.
func TestKubernetesSecretsScoped(t *testing.T) {
	d := decodeKube(t, renderTeam(t)[0])
	secrets := func(c corev1.Container) string {
		var names []string
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				names = append(names, e.Name)
			}
		}
		slices.Sort(names)
		return strings.Join(names, ",")
	}
	pod := d.sets[0].Spec.Template.Spec
	if got := secrets(pod.Containers[0]); got != "ANTHROPIC_API_KEY,ISSUES_WEBHOOK_SECRET" {
		t.Errorf("the StatefulSet's up takes %s, want the resident agents' and the workspace's only", got)
	}
	if got := d.sets[0].Spec.Template.Annotations["actctl.dev/secret-keys"]; got != "ANTHROPIC_API_KEY,ISSUES_WEBHOOK_SECRET" {
		t.Errorf("the StatefulSet's annotation lists %s", got)
	}
	for _, cj := range d.crons {
		pod := cj.Spec.JobTemplate.Spec.Template.Spec
		if got := secrets(pod.Containers[0]); got != "ANTHROPIC_API_KEY,GITHUB_TOKEN,TRACKER_TOKEN" {
			t.Errorf("%s: the task takes %s, want triage's", cj.Name, got)
		}
		if got := secrets(pod.InitContainers[0]); got != "" {
			t.Errorf("%s: the clone takes %s", cj.Name, got)
		}
	}
	if got := secrets(pod.InitContainers[0]); got != "" {
		t.Errorf("the StatefulSet's clone takes %s", got)
	}
}
