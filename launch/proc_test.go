//go:build unix

package launch

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// guard is a failure guard for reads that end only when a process dies:
// a hang becomes a failure naming what did not come.
const guard = 30 * time.Second

// TestSuperviseStopOnEOF: a backend that ends on stdin EOF is reaped
// within its grace; its stderr reaches Spec.Stderr and the tail.
func TestSuperviseStopOnEOF(t *testing.T) {
	var copyOf strings.Builder
	p, err := Supervise(Spec{Command: "sh", Args: []string{"-c", "cat >/dev/null; echo first >&2; echo '  last  ' >&2"}, Stderr: &lockedBuilder{b: &copyOf}, TailSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Stop(context.Background(), StopPolicy{Ask: AskEOF, Grace: time.Hour}) {
		t.Fatal("Stop: the backend did not exit on EOF")
	}
	p.Drain(time.Now().Add(guard))
	if got := copyOf.String(); got != "first\n  last  \n" {
		t.Errorf("stderr copy %q", got)
	}
	if raw, s := p.Tail().Raw(), p.Tail().String(); raw != " last  \n" || s != "last" {
		t.Errorf("tail %q, trimmed %q", raw, s)
	}
	if st := p.State(); st == nil || !st.Success() {
		t.Errorf("state %v", st)
	}
}

// TestSuperviseStopKillsWhatIgnoresTerm: a group that ignores SIGTERM is
// killed after the grace, and Stop says it did not exit by itself.
func TestSuperviseStopKillsWhatIgnoresTerm(t *testing.T) {
	p, err := Supervise(Spec{Command: "sh", Args: []string{"-c", `trap "" TERM; echo ready; exec sleep 1000`}})
	if err != nil {
		t.Fatal(err)
	}
	readLine(t, p, "ready")
	if p.Stop(context.Background(), StopPolicy{Ask: AskTerm, Grace: 0}) {
		t.Fatal("Stop: a process deaf to SIGTERM exited within no grace")
	}
	ws, _ := p.State().Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("state %v, want killed", p.State())
	}
}

// TestSuperviseKillsGroupAfterExit: what the leader left behind dies with
// it: the orphan holding stdout is killed, so stdout ends.
func TestSuperviseKillsGroupAfterExit(t *testing.T) {
	p, err := Supervise(Spec{Command: "sh", Args: []string{"-c", "sleep 1000 & echo started"}})
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Stdout.SetReadDeadline(time.Now().Add(guard))
	out, err := io.ReadAll(p.Stdout)
	if err != nil {
		t.Fatalf("stdout did not end (the orphan lives): %v", err)
	}
	if string(out) != "started\n" {
		t.Errorf("stdout %q", out)
	}
	if err := p.Wait(); err != nil {
		t.Errorf("Wait: %v", err)
	}
}

// TestSuperviseHelperContext: a helper's output is collected and its
// group is killed when its context ends (a hook's timeout).
func TestSuperviseHelperContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &signalWriter{first: make(chan struct{})}
	p, err := Supervise(Spec{Command: "sh", Args: []string{"-c", "echo hi; exec sleep 1000"}, Output: out, Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	<-out.first
	cancel()
	if err := p.Wait(); err == nil || err.Error() != "signal: killed" {
		t.Errorf("Wait: %v, want signal: killed", err)
	}
	if got := out.String(); got != "hi\n" {
		t.Errorf("output %q", got)
	}
}

// TestSuperviseStartError: the one start error, with the install hint
// unless the directory is the problem.
func TestSuperviseStartError(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec Spec
		want string
	}{
		{"command", Spec{Command: "actctl-no-such-command", Install: "npm i -g x"},
			`backend "actctl-no-such-command" could not be started: exec: "actctl-no-such-command": executable file not found in $PATH; install it: npm i -g x`},
		{"no hint", Spec{Command: "actctl-no-such-command"},
			`backend "actctl-no-such-command" could not be started: exec: "actctl-no-such-command": executable file not found in $PATH`},
		{"helper", Spec{Command: "actctl-no-such-command", Output: io.Discard},
			`backend "actctl-no-such-command" could not be started: exec: "actctl-no-such-command": executable file not found in $PATH`},
		{"dir", Spec{Command: "sh", Install: "npm i -g x", Dir: "/nonexistent-actctl-dir"},
			`backend "sh" could not be started: process directory: stat /nonexistent-actctl-dir: no such file or directory`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Supervise(tc.spec)
			var se *StartError
			if !errors.As(err, &se) || err.Error() != tc.want {
				t.Errorf("error %v (%T),\nwant %s", err, err, tc.want)
			}
		})
	}
	if InstallHint("") != "" || InstallHint("brew install x") != "; is it installed? brew install x" {
		t.Error("InstallHint")
	}
}

func readLine(t *testing.T, p *Proc, want string) {
	t.Helper()
	_ = p.Stdout.SetReadDeadline(time.Now().Add(guard))
	line, err := bufio.NewReader(p.Stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != want {
		t.Fatalf("stdout %q, %v; want %q", line, err, want)
	}
}

type lockedBuilder struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// signalWriter collects output and closes first on the first write.
type signalWriter struct {
	mu    sync.Mutex
	b     strings.Builder
	first chan struct{}
	once  sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.once.Do(func() { close(w.first) })
	return w.b.Write(p)
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestSuperviseHelperFiles: a helper's stdout and stderr go to files of
// their own, given to it as they are.
func TestSuperviseHelperFiles(t *testing.T) {
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	errOut, err := os.Create(filepath.Join(dir, "err"))
	if err != nil {
		t.Fatal(err)
	}
	defer errOut.Close()
	p, err := Supervise(Spec{Command: "sh", Args: []string{"-c", "echo o; echo e >&2"}, Output: out, ErrOutput: errOut})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"out": "o\n", "err": "e\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("%s: %q, want %q", name, b, want)
		}
	}
}

// TestSignalGroupRefusesNonLeaders: a pid below 2 is never taken for a
// group to signal (kill(2) reads -1 as every process, 0 as our own
// group). Only signal 0, which delivers nothing, is asked for, and only
// for pid 0.
func TestSignalGroupRefusesNonLeaders(t *testing.T) {
	if err := SignalGroup(0, 0); err == nil || !strings.Contains(err.Error(), "refusing to signal process group 0") {
		t.Errorf("SignalGroup(0) = %v, want refused", err)
	}
}
