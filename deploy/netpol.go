package deploy

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/actctl/actctl/schema"
)

// networkPolicy is the workspace's NetworkPolicy when deploy.kubernetes
// gives networkPolicy (docs/deploy.md, "Network policy"): every pod of
// the workspace (the StatefulSet's and the Jobs') may resolve names
// (port 53) and open TCP connections to the policy's cidrs on the ports
// of egressPorts, and nothing else; it accepts connections only on the
// webhook port, when the workspace serves webhooks.
func (kb *kube) networkPolicy(rs []*schema.Resolved) []any {
	np := kb.k.NetworkPolicy
	if np == nil {
		return nil
	}
	dns := []policyPort{{Protocol: "UDP", Port: 53}, {Protocol: "TCP", Port: 53}}
	var to []peer
	for _, c := range np.CIDRs {
		to = append(to, peer{IPBlock: ipBlock{CIDR: c}})
	}
	var tcp []policyPort
	for _, p := range egressPorts(kb.cfg, kb.repo.URL, rs, np.Ports) {
		tcp = append(tcp, policyPort{Protocol: "TCP", Port: p})
	}
	spec := networkPolicySpec{
		PodSelector: selector{MatchLabels: map[string]string{"app.kubernetes.io/name": "actctl", "app.kubernetes.io/instance": kb.ws}},
		PolicyTypes: []string{"Ingress", "Egress"},
		Egress:      []egressRule{{Ports: dns}, {To: to, Ports: tcp}},
	}
	if len(kb.cfg.Webhooks) > 0 {
		spec.Ingress = []policyRule{{Ports: []policyPort{{Protocol: "TCP", Port: WebhookPort}}}}
	}
	return []any{object{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy", Metadata: kb.meta(kb.name(), nil), Spec: spec}}
}

// egressPorts are the TCP ports the pods need, sorted: 443 (the
// backends' APIs, the package registries), the repository's URL's (22
// over SSH), the URLs' of the MCP servers the agents rs use, and extra.
func egressPorts(cfg *schema.Config, repoURL string, rs []*schema.Resolved, extra []int) []int {
	ports := append([]int{443, urlPort(repoURL)}, extra...)
	for _, r := range rs {
		for _, name := range r.Template.MCPServers {
			if s, ok := cfg.MCPServers[name]; ok && s.URL != "" {
				ports = append(ports, urlPort(s.URL))
			}
		}
	}
	slices.Sort(ports)
	return slices.DeleteFunc(slices.Compact(ports), func(p int) bool { return p <= 0 })
}

// urlPort is the TCP port a URL connects to: its own, else its scheme's
// (22 for ssh:// and the scp-like user@host:path); 0 when unknown.
func urlPort(u string) int {
	if schema.IsSSHURL(u) && !strings.Contains(u, "://") {
		return 22
	}
	p, err := url.Parse(u)
	if err != nil {
		return 0
	}
	if n, err := strconv.Atoi(p.Port()); err == nil {
		return n
	}
	switch p.Scheme {
	case "https", "wss":
		return 443
	case "http", "ws":
		return 80
	case "ssh", "git+ssh":
		return 22
	case "git":
		return 9418
	}
	return 0
}
