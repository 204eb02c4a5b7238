//go:build unix

package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// floodProc is an actctl command whose agent runs the op flood-unread:
// it floods requests and never reads their answers, so that every write
// of actctl to it blocks, session/cancel included.
type floodProc struct {
	cmd     *exec.Cmd
	stderr  bytes.Buffer // read once exited
	exited  chan error
	pids    []int // the agent and its child
	flooded bool  // actctl started answering the flood
}

// startFlood starts actctl with args and the prompt "flood-unread FLOOD
// FIFO" (FLOOD: "N SIZE"), and returns once the agent told (through the
// FIFO) that actctl's first answer to it started, or actctl exited
// before.
func startFlood(t *testing.T, root, home, flood string, args ...string) *floodProc {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "flooded")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	p := &floodProc{cmd: exec.Command(actctlBin, append(args, "-p", "flood-unread "+flood+" "+fifo)...), exited: make(chan error, 1)}
	p.cmd.Dir = root
	p.cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	p.cmd.Stderr = &p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := make(chan []int, 1)
	go func() {
		re := regexp.MustCompile(`streaming pid=(\d+) child=(\d+)`)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil && len(pids) == 0 {
				a, _ := strconv.Atoi(m[1])
				b, _ := strconv.Atoi(m[2])
				pids <- []int{a, b}
			}
		}
		close(pids)
		p.exited <- p.cmd.Wait()
	}()
	p.pids = <-pids
	sig := openFIFO(t, fifo, p.exited)
	n, _ := sig.Read(make([]byte, 1))
	sig.Close()
	p.flooded = n == 1
	return p
}

// wait waits for actctl to exit (failing the test, after killing what it
// started, if it has not within a generous deadline) and returns its exit
// code.
func (p *floodProc) wait(t *testing.T) int {
	t.Helper()
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	select {
	case err := <-p.exited:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-deadline.C:
		_ = p.cmd.Process.Kill()
		for _, pid := range p.pids {
			killPid(pid)
		}
		<-p.exited
		t.Fatalf("%s: still running 60s on (flooded %v); stderr:\n%s", strings.Join(p.cmd.Args[1:3], " "), p.flooded, p.stderr.String())
		return 0
	}
}

// floodVerbs are the commands whose turn an agent that floods and never
// reads must not hang (taskWorkspace's agents).
var floodVerbs = [][]string{{"run", "helper"}, {"task", "triage"}}

// TestFloodUnreadTimeout: an agent that floods requests and never reads
// the answers (its stdin full, so the SDK's write lock is held by a write
// that never ends) does not keep `run` or `task` past --timeout: the
// cancel is not waited for, the group is killed after the grace, actctl
// exits 124 and neither the agent nor its child outlives it; task's lock
// is free for the next task. (issue #30 item 8)
func TestFloodUnreadTimeout(t *testing.T) {
	root, home := taskWorkspace(t)
	for _, verb := range floodVerbs {
		t.Run(verb[0], func(t *testing.T) {
			for timeout := 2 * time.Second; ; timeout *= 2 {
				p := startFlood(t, root, home, "2000 1024", append(verb, "--grace", "100ms", "--timeout", timeout.String())...)
				code := p.wait(t)
				if !p.flooded && code == exitTimeout && timeout < 30*time.Second {
					continue // the deadline came before the flood: a slow machine
				}
				if !p.flooded || code != exitTimeout || !strings.Contains(p.stderr.String(), "timed out") {
					t.Fatalf("flooded %v, exit %d, want %d\n%s", p.flooded, code, exitTimeout, p.stderr.String())
				}
				requireExited(t, verb[0]+" after the timeout", p.pids...)
				break
			}
		})
	}
	if r := actctl(t, root, home, "task", "triage", "--if-busy", "skip", "-p", "hello"); r.Code != 0 || strings.Contains(r.Stderr, "coalesced") {
		t.Errorf("the next task: exit %d\n%s", r.Code, r.Stderr)
	}
}

// TestFloodUnreadSIGTERM: SIGTERM ends `run` and `task` whose agent
// floods and never reads (exit 143) once the grace is over, and the agent
// and its child with them. Each of the agent's requests has an answer
// bigger than the pipe to it, so the signal comes once actctl's writer is
// certainly stuck. (issue #30 item 8)
func TestFloodUnreadSIGTERM(t *testing.T) {
	root, home := taskWorkspace(t)
	for _, verb := range floodVerbs {
		t.Run(verb[0], func(t *testing.T) {
			p := startFlood(t, root, home, "4 262144", append(verb, "--grace", "100ms")...)
			if !p.flooded {
				t.Fatalf("the agent did not flood: exit %d\n%s", p.wait(t), p.stderr.String())
			}
			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(t); code != 128+int(syscall.SIGTERM) {
				t.Errorf("exit %d, want %d\n%s", code, 128+int(syscall.SIGTERM), p.stderr.String())
			}
			requireExited(t, verb[0]+" after SIGTERM", p.pids...)
		})
	}
}
