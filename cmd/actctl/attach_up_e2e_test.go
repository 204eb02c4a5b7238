//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAttachDetachRefusedWhileUp: one agent, one process: `attach` and
// `detach` of an agent an `actctl up` runs (a service, an employee) are
// refused as `task` is, naming up's pid, and its record stays as up
// wrote it; once up stopped they work.
func TestAttachDetachRefusedWhileUp(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home)
	for seen := map[string]bool{}; len(seen) < 2; { // in either order
		seen[p.waitLine(`up: (api|triage): process:start pid`)[1]] = true
	}
	other := exec.Command("sleep", "1000") // the test's own process
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	records := map[string]string{}
	for _, a := range []string{"api", "triage"} {
		records[a] = filepath.Join(home, "instances", a, ".actant.json")
	}
	before := map[string][]byte{}
	for a, rec := range records {
		before[a] = mustRead(t, rec)
	}
	busy := "agent %s is busy: actctl up (pid " + strconv.Itoa(p.cmd.Process.Pid) + ") holds it"
	for _, tc := range []struct{ agent, verb string }{
		{"api", "attach"}, {"triage", "detach"}, {"api", "detach"},
	} {
		args := []string{tc.verb, tc.agent}
		if tc.verb == "attach" {
			args = append(args, "--pid", strconv.Itoa(other.Process.Pid))
		}
		r := actctl(t, root, home, args...)
		want := tc.verb + ": " + strings.Replace(busy, "%s", tc.agent, 1)
		if r.Code != 1 || !strings.Contains(r.Stderr, want) {
			t.Errorf("%s %s under up: exit %d, want 1 and %q:\n%s", tc.verb, tc.agent, r.Code, want, r.Stderr)
		}
		if after := mustRead(t, records[tc.agent]); !bytes.Equal(after, before[tc.agent]) {
			t.Errorf("%s %s rewrote up's record:\n%s\nwas:\n%s", tc.verb, tc.agent, after, before[tc.agent])
		}
	}
	p.stop()
	if r := actctl(t, root, home, "attach", "api", "--pid", strconv.Itoa(other.Process.Pid)); r.Code != 0 {
		t.Errorf("attach after up stopped: exit %d\n%s", r.Code, r.Stderr)
	}
	if r := actctl(t, root, home, "detach", "api"); r.Code != 0 {
		t.Errorf("detach after up stopped: exit %d\n%s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(records["api"]); err != nil {
		t.Error(err)
	}
}
