//go:build linux

package realengines

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestSystemdSecretsFilePaths runs the rendered unit under the real user
// manager for workspaces whose paths hold "-", spaces and non-ASCII
// letters: the file docs/deploy.md tells the user to create
// (~/.config/actctl/<the workspace's path>.env) is the one systemd loads,
// and actctl gets the path back whole (a stub actctl reports both).
func TestSystemdSecretsFilePaths(t *testing.T) {
	requireTier(t)
	ctx, cancel := context.WithTimeout(t.Context(), guard)
	defer cancel()
	scratch := t.TempDir()
	m := startUserManager(t, ctx, scratch)
	home := filepath.Join(scratch, "home")
	ws := filepath.Join(scratch, "ws")
	writeFile(t, ws, "actant.cue", "package actant\n\n"+scriptedBackend(t)+`
deploy: systemd: {}
templates: emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "hello"}}
agents: triage: template: "emp"
`)
	run(t, ctx, ws, m.env, actctlBin(t), "apply")
	units, _ := filepath.Glob(filepath.Join(ws, "deploy", "systemd", "*@.service"))
	if len(units) != 1 {
		t.Fatalf("apply rendered %d template units: %v", len(units), units)
	}
	m.systemctl(t, ctx, "link", units[0])
	fifo := filepath.Join(home, "report")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// The unit runs `actctl` from ~/go/bin: a stub that reports its key
	// and its first two arguments.
	writeFile(t, home, "go/bin/actctl", "#!/bin/sh\nprintf '%s|%s|%s\\n' \"$ANTHROPIC_API_KEY\" \"$1\" \"$2\" > "+fifo+"\n")
	if err := os.Chmod(filepath.Join(home, "go", "bin", "actctl"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, path := range []string{"/srv/my-agents", "/srv/my agents/x", "/srv/agénts-ü"} {
		key := "key-" + strconv.Itoa(i)
		writeFile(t, "/", filepath.Join(home, ".config", "actctl", path+".env"), "ANTHROPIC_API_KEY="+key+"\n")
		instance := strings.TrimSpace(run(t, ctx, "", m.env, "systemd-escape", "--path", path))
		unit := strings.TrimSuffix(filepath.Base(units[0]), "@.service") + "@" + instance + ".service"
		m.systemctl(t, ctx, "start", unit)
		if got, want := readReport(t, ctx, fifo), key+"|-C|"+path; got != want {
			t.Errorf("%s: the stub actctl got %q, want %q (%s)", path, got, want, m.show(t, ctx, unit, "EnvironmentFiles"))
		}
		m.systemctl(t, ctx, "stop", unit)
	}
}

// readReport reads one line the stub writes to fifo; a stub that never
// runs fails the test at ctx's deadline rather than hanging it.
func readReport(t *testing.T, ctx context.Context, fifo string) string {
	t.Helper()
	line := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			line <- err.Error()
			return
		}
		defer f.Close()
		s, _ := bufio.NewReader(f).ReadString('\n')
		line <- strings.TrimSuffix(s, "\n")
	}()
	select {
	case s := <-line:
		return s
	case <-ctx.Done():
		t.Fatal("the unit's actctl never ran")
		return ""
	}
}
