package main

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestChatLeaseAsksOnTerminal: `chat` leasing a warm agent on a
// terminal puts the agent's permission request to the person (the lease
// routes it to chat), whose answer is the agent's.
func TestChatLeaseAsksOnTerminal(t *testing.T) {
	root, home := chatWorkspace(t)
	p := startUp(t, root, home, "api")
	p.started("api")
	m, s := openPTY(t)
	cmd := exec.Command(actctlBin, "chat", "api")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s, s, s
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// The terminal's output so far; changed is signalled on every byte,
	// closed at its end.
	var mu sync.Mutex
	var seen strings.Builder
	changed, ended := make(chan struct{}, 1), make(chan struct{})
	go func() {
		defer close(ended)
		r := bufio.NewReader(m)
		for {
			c, err := r.ReadByte()
			if err != nil {
				return
			}
			mu.Lock()
			seen.WriteByte(c)
			mu.Unlock()
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	}()
	// waitFor reads the terminal until it shows want (the test's bound:
	// a minute, for a chat that never asks).
	waitFor := func(want string) {
		t.Helper()
		deadline := time.NewTimer(time.Minute)
		defer deadline.Stop()
		for {
			mu.Lock()
			ok := strings.Contains(seen.String(), want)
			mu.Unlock()
			if ok {
				return
			}
			select {
			case <-changed:
			case <-ended:
				mu.Lock()
				ok := strings.Contains(seen.String(), want)
				mu.Unlock()
				if !ok {
					t.Fatalf("chat ended before %q:\n%s", want, seen.String())
				}
				return
			case <-deadline.C:
				t.Fatalf("the terminal never showed %q", want)
			}
		}
	}
	waitFor("runs under actctl up")
	if _, err := m.WriteString("perm execute\n"); err != nil {
		t.Fatal(err)
	}
	waitFor("allow Tool of kind execute (execute)? [y/n/always] ")
	if _, err := m.WriteString("y\n"); err != nil {
		t.Fatal(err)
	}
	waitFor("permission: yes")
	if _, err := m.WriteString("\x04"); err != nil { // end of input: the chat ends
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("chat: %v", err)
	}
}
