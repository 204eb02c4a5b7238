package main

import (
	"strings"
	"testing"
)

// TestKubeFlagsHelp: --help gives the defaults the --kube flags really
// take (docs/runtime.md, "Remote control"): the namespace and the pod's
// name come from deploy.kubernetes when the workspace declares it.
func TestKubeFlagsHelp(t *testing.T) {
	r := actctl(t, t.TempDir(), "", "--help")
	for _, want := range []string{
		"with --kube: the pod's NAMESPACE (default: deploy.kubernetes.namespace, else the context's)",
		"with --kube: the POD (default: actctl-WORKSPACE-0, WORKSPACE deploy.kubernetes.name, else the root directory's name)",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("--help does not say %q:\n%s", want, r.Stdout)
		}
	}
}
