//go:build linux

package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestUpNamesTheFileLimit: `actctl up` started with few file handles
// (RLIMIT_NOFILE lowered by the shell that execs it, soft and hard: no
// root needed) runs the services it has room for and refuses the others
// with a line naming the limit and how to raise it (no install hint, no
// "restart up once that task ended"); it does not abort, and stops
// cleanly on SIGTERM (docs/runtime.md, "Limits").
func TestUpNamesTheFileLimit(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	var cfg strings.Builder
	cfg.WriteString("package actant\n" + scriptedBackend(t, "") + "\n")
	cfg.WriteString(`templates: svc: {backend: "scripted", archetype: "service"}` + "\n")
	for i := range 12 {
		fmt.Fprintf(&cfg, "agents: \"svc-%d\": template: \"svc\"\n", i)
	}
	writeConfigTB(t, root, cfg.String())
	sh := exec.Command("/bin/sh", "-c", `ulimit -n `+fmt.Sprint(upFileLimit)+` && exec "$0" "$@"`, actctlBin, "up", "--grace", "2s")
	p := runUp(t, sh, root, home)
	refused := p.waitLine(`(svc-\d+): process:crash \(backoff\): (.*)`)
	if msg := refused[2]; !strings.Contains(msg, "the open files limit (RLIMIT_NOFILE") ||
		!strings.Contains(msg, "raise it: ulimit -n") || strings.Contains(msg, "install") {
		t.Errorf("refused %s: %q", refused[1], msg)
	}
	if !strings.Contains(p.stderr(), "process:start") {
		p.waitLine(`svc-\d+: process:start pid \d+`)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("up after SIGTERM: %v\n%s", err, p.stderr())
	}
	if s := p.stderr(); strings.Contains(s, "task ended") || strings.Contains(s, "pthread_create") {
		t.Errorf("stderr:\n%s", s)
	}
}

// upFileLimit leaves actctl up room for its own descriptors and a few
// agents, not for twelve.
const upFileLimit = 80
