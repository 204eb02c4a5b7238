package deploy

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/actctl/actctl/schema"
)

// TestNetworkPolicy: with deploy.kubernetes.networkPolicy, one policy
// selects every pod of the workspace (the StatefulSet's and the Jobs'),
// denies by default both ways, lets out DNS and TCP to the cidrs on the
// ports the config names (443, the MCP server's URL's 8080, the extra
// 5432; 22 for an SSH repository), and lets in only the webhook port;
// every pod runs under runtimeClassName. Without networkPolicy, none.
func TestNetworkPolicy(t *testing.T) {
	cfg := loadTeam(t)
	outs, err := Render(cfg, Options{Now: goldenNow})
	if err != nil {
		t.Fatal(err)
	}
	d := decodeKube(t, outs[0])
	if len(d.policies) != 1 {
		t.Fatalf("%d NetworkPolicies, want 1", len(d.policies))
	}
	np := d.policies[0].Spec
	sel, err := metav1.LabelSelectorAsSelector(&np.PodSelector)
	if err != nil {
		t.Fatal(err)
	}
	pods := map[string]corev1.PodTemplateSpec{"statefulset": d.sets[0].Spec.Template}
	for _, c := range d.crons {
		pods[c.Name] = c.Spec.JobTemplate.Spec.Template
	}
	for what, p := range pods {
		if !sel.Matches(labels.Set(p.Labels)) {
			t.Errorf("%s: the policy does not select its pod (%v)", what, p.Labels)
		}
		if p.Spec.RuntimeClassName == nil || *p.Spec.RuntimeClassName != "gvisor" {
			t.Errorf("%s: runtimeClassName %v, want gvisor", what, p.Spec.RuntimeClassName)
		}
	}
	if !slices.Equal(np.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}) {
		t.Errorf("policyTypes %v", np.PolicyTypes)
	}
	if len(np.Ingress) != 1 || len(np.Ingress[0].From) != 0 || ports(np.Ingress[0].Ports) != "TCP/8787" {
		t.Errorf("ingress %+v, want the webhook port only", np.Ingress)
	}
	if len(np.Egress) != 2 || len(np.Egress[0].To) != 0 || ports(np.Egress[0].Ports) != "UDP/53 TCP/53" {
		t.Fatalf("egress %+v, want DNS first", np.Egress)
	}
	if got := ports(np.Egress[1].Ports); got != "TCP/443 TCP/5432 TCP/8080" {
		t.Errorf("egress ports %s", got)
	}
	if to := np.Egress[1].To; len(to) != 2 || to[0].IPBlock.CIDR != "0.0.0.0/0" || to[1].IPBlock.CIDR != "::/0" {
		t.Errorf("egress to %+v", to)
	}
	cfg.Deploy.Kubernetes.Repo = &schema.DeployRepo{URL: "git@github.com:acme/team.git", Ref: "main", SSHSecret: "key"}
	if outs, err = Render(cfg, Options{Now: goldenNow}); err != nil {
		t.Fatal(err)
	}
	if got := ports(decodeKube(t, outs[0]).policies[0].Spec.Egress[1].Ports); got != "TCP/22 TCP/443 TCP/5432 TCP/8080" {
		t.Errorf("egress ports over SSH %s", got)
	}
	cfg.Deploy.Kubernetes.NetworkPolicy, cfg.Deploy.Kubernetes.RuntimeClassName = nil, ""
	if outs, err = Render(cfg, Options{Now: goldenNow}); err != nil {
		t.Fatal(err)
	}
	d = decodeKube(t, outs[0])
	if len(d.policies) != 0 || d.sets[0].Spec.Template.Spec.RuntimeClassName != nil {
		t.Errorf("without the knobs: %d policies, runtimeClassName %v", len(d.policies), d.sets[0].Spec.Template.Spec.RuntimeClassName)
	}
}

// ports writes policy ports as "PROTO/port ...".
func ports(ps []networkingv1.NetworkPolicyPort) string {
	s := ""
	for i, p := range ps {
		if i > 0 {
			s += " "
		}
		s += string(*p.Protocol) + "/" + p.Port.String()
	}
	return s
}
