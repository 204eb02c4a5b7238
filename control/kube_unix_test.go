//go:build unix

package control

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kubectlScript writes an executable shell script standing for kubectl.
func kubectlScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubectl")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConnectKubeFailures: what a kubectl that does not reach a relay
// gives: its failure with the end of its stderr, a silent end, or
// something that is no relay's hello.
func TestConnectKubeFailures(t *testing.T) {
	long := strings.Repeat("x", 3000)
	for _, tc := range []struct {
		name, script, want string
	}{
		{"fails", "printf '" + long + "\\nforbidden: pods/exec\\n' >&2; exit 3",
			"kubectl exec failed (kubectl -n ns exec -i p -- actctl control-relay -C /w): exit status 3: " + long[:maxTail-len("\nforbidden: pods/exec\n")] + "\nforbidden: pods/exec; " + kubectlHint},
		{"silent", "exit 0",
			"kubectl -n ns exec -i p -- actctl control-relay -C /w: ended before the pod's actctl answered: EOF; " + kubectlHint},
		{"not a relay", "echo 'OCI runtime exec failed'; cat >/dev/null",
			`kubectl -n ns exec -i p -- actctl control-relay -C /w: the pod's actctl did not answer as a control relay: "OCI runtime exec failed"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := Kube{Kubectl: kubectlScript(t, tc.script), Namespace: "ns", Pod: "p", Workdir: "/w"}
			_, err := Connect(context.Background(), Target{Kube: &k})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Connect = %v\nwant %s", err, tc.want)
			}
			var ke *KubectlError
			if errors.As(err, &ke) != (tc.name == "fails") {
				t.Errorf("a *KubectlError: %v", errors.As(err, &ke))
			}
		})
	}
}

// TestConnectKubeMissing: no kubectl is an install hint.
func TestConnectKubeMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Connect(context.Background(), Target{Kube: &Kube{Pod: "p", Workdir: "/w"}})
	if err == nil || !strings.HasPrefix(err.Error(), "--kube needs kubectl: kubectl is not in PATH; install it") {
		t.Fatalf("Connect = %v", err)
	}
}
