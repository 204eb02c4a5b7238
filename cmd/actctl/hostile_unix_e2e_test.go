//go:build unix

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/actctl/actctl/acpclient"
)

// TestSlowStdoutBackpressures: a reader of actctl's stdout that lags does
// not fail a healthy agent that floods it with notifications (the SDK's
// queue of 1,024 made it "backend exited during the turn"): the agent is
// slowed down instead, and every chunk arrives, in order. The test reads
// actctl's stdout only when the agent's own write would block (op
// note-flood), so stdout is slow for as long as the agent can go on
// without actctl reading. (issue #20 item 15)
func TestSlowStdoutBackpressures(t *testing.T) {
	root, home := hostileWorkspace(t, "")
	sigPath := filepath.Join(t.TempDir(), "blocked")
	if err := syscall.Mkfifo(sigPath, 0o600); err != nil {
		t.Fatal(err)
	}
	const n, size = 3000, 1000
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdoutR.Close()
	cmd := exec.Command(actctlBin, "run", "std", "-p", fmt.Sprintf("note-flood %d %d %s", n, size, sigPath))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdoutW, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdoutW.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	sig := openFIFO(t, sigPath, exited)
	var out bytes.Buffer
	buf := make([]byte, 64<<10)
	for one := make([]byte, 1); ; {
		if _, err := sig.Read(one); err != nil {
			break // the agent sent everything (or died)
		}
		k, err := stdoutR.Read(buf)
		out.Write(buf[:k])
		if err != nil {
			break
		}
	}
	sig.Close()
	io.Copy(&out, stdoutR)
	err = <-exited
	if err != nil || !strings.Contains(out.String(), fmt.Sprintf("note-flood: sent %d\n", n)) {
		t.Fatalf("run: %v\nstderr: %s\nstdout ends: %q", err, stderr.String(), tailOf(out.String(), 300))
	}
	want := make([]string, n)
	pad := strings.Repeat("x", size)
	for i := range want {
		want[i] = fmt.Sprintf("%05d %s", i, pad)
	}
	if got := strings.Split(strings.TrimSuffix(out.String(), fmt.Sprintf("\nnote-flood: sent %d\n", n)), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the chunks did not all arrive in order: %d lines", len(got))
	}
}

// openFIFO opens the FIFO p for reading; if actctl exits before the
// agent opened it for writing, the test opens it for writing itself so
// that the open returns (and reads end at once).
func openFIFO(t *testing.T, p string, exited chan error) *os.File {
	t.Helper()
	opened := make(chan *os.File, 1)
	go func() {
		f, err := os.Open(p)
		if err != nil {
			t.Error(err)
		}
		opened <- f
	}()
	select {
	case f := <-opened:
		return f
	case err := <-exited:
		exited <- err
		if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		return <-opened
	}
}

func tailOf(s string, n int) string { return s[max(0, len(s)-n):] }

// TestRequestFloodBounded: an agent's requests in flight are bounded:
// with MaxPendingRequests of them waiting (terminal/wait_for_exit of a
// terminal that runs on), the next one is answered at once with an error
// saying so, and actctl goes on working (the terminal is released, the
// turn ends normally). Before, every request got a goroutine (and its
// memory) for as long as it waited. (issue #20 item 14)
func TestRequestFloodBounded(t *testing.T) {
	root, home := hostileWorkspace(t, "")
	r := actctl(t, root, home, "run", "all", "-p", "request-flood "+strconv.Itoa(acpclient.MaxPendingRequests+40))
	if r.Code != 0 || !strings.Contains(r.Stdout, "probe: ") {
		t.Fatalf("exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if want := fmt.Sprintf("too many of this agent's requests are in flight (at most %d", acpclient.MaxPendingRequests); !strings.Contains(r.Stdout, want) {
		t.Errorf("the request past the bound was answered: %s", r.Stdout)
	}
}
