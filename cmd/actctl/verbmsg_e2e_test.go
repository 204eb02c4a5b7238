package main

import (
	"strings"
	"syscall"
	"testing"
)

// TestRunChatMessagesNameTheCommand: what agentprep says while preparing
// an agent for run or chat names that command, not proxy: a name -t
// cannot take, and the ephemeral copy a busy agent gets (issue #21 item
// 1).
func TestRunChatMessagesNameTheCommand(t *testing.T) {
	root, home := runWorkspace(t)
	for _, verb := range []string{"run", "chat"} {
		args := []string{verb, "-t", "inst", "Bad_Name"}
		if verb == "run" {
			args = append(args, "-p", "x")
		}
		r := actctl(t, root, home, args...) // chat's stdin: at its end
		if r.Code == 0 || !strings.Contains(r.Stderr, "actctl: "+verb+": ") || strings.Contains(r.Stderr, "proxy") {
			t.Errorf("%s -t with a bad name: exit %d, want a message naming %s\n%s", verb, r.Code, verb, r.Stderr)
		}
	}
	cmd, stderr, _, _ := startRun(t, root, home, "builder", "-p", "stream")
	defer func() {
		cmd.Process.Signal(syscall.SIGINT)
		if err := cmd.Wait(); err == nil {
			t.Errorf("first run: no error after SIGINT\n%s", stderr)
		}
	}()
	r := actctl(t, root, home, "run", "builder", "-p", "session")
	if want := "actctl: run: builder is served by a live process"; r.Code != 0 || !strings.Contains(r.Stderr, want) {
		t.Errorf("run of a busy agent: exit %d, want %q\n%s", r.Code, want, r.Stderr)
	}
	r = actctl(t, root, home, "chat", "builder")
	if want := "actctl: chat: builder is served by a live process"; !strings.Contains(r.Stderr, want) {
		t.Errorf("chat of a busy agent: exit %d, want %q\n%s", r.Code, want, r.Stderr)
	}
}
