//go:build unix

package hub

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSSHKeyFileNotAPipe: auth.sshKeyFile naming a named pipe is refused
// by name instead of blocking the load forever (issue #20 item 21); a
// regression hangs until go test's -timeout.
func TestSSHKeyFileNotAPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "id_ed25519")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if _, err := readSSHKey(p, ""); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("readSSHKey(pipe) = %v", err)
	}
}
