//go:build unix

package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/testutil"
)

// proxyProcess is the proxy running as a real subprocess (this test binary
// in the "proxy" role), for tests that signal or SIGKILL it.
type proxyProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *testutil.Buffer
	exited chan error
}

func startProxyProcess(t *testing.T, po proxyRoleOptions) *proxyProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	opts, _ := json.Marshal(po)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envRole+"=proxy", envProxyOpts+"="+string(opts))
	p := &proxyProcess{cmd: cmd, stderr: &testutil.Buffer{}, exited: make(chan error, 1)}
	cmd.Stderr = p.stderr
	p.stdin, _ = cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	p.stdout = bufio.NewReader(out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
		p.exited <- nil
	})
	return p
}

func (p *proxyProcess) call(t *testing.T, line string) rpcMsg {
	t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		t.Fatal(err)
	}
	type res struct {
		l   []byte
		err error
	}
	ch := make(chan res, 1)
	go func() {
		l, err := p.stdout.ReadBytes('\n')
		ch <- res{l, err}
	}()
	select {
	case r := <-ch:
		var m rpcMsg
		if r.err != nil || json.Unmarshal(r.l, &m) != nil {
			t.Fatalf("reading proxy: %q %v; stderr:\n%s", r.l, r.err, p.stderr)
		}
		return m
	case <-time.After(deadline):
		t.Fatalf("no answer from proxy; stderr:\n%s", p.stderr)
	}
	return rpcMsg{}
}

func (p *proxyProcess) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-p.exited:
		p.exited <- err
		return err
	case <-time.After(deadline):
		t.Fatalf("proxy process did not exit; stderr:\n%s", p.stderr)
	}
	return nil
}

// SIGINT, SIGTERM and SIGHUP to the proxy process (wired as the CLI will:
// signal.NotifyContext with Signals) kill the backend's whole process
// group, grandchildren included, and the proxy exits non-zero.
func TestSignalsKillGroup(t *testing.T) {
	exe, _ := os.Executable()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "backend.pid")
			p := startProxyProcess(t, proxyRoleOptions{
				Command:    exe,
				Env:        append(os.Environ(), envRole+"=agent", envAgentDir+"="+dir, envAgentMode+"=ignore-eof"),
				ProcessCwd: dir,
				GraceMS:    3600_000,
				PidFile:    pidFile,
			})
			p.call(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
			p.call(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
			p.call(t, prompt("3", "fork"))
			pids := append(readPids(t, filepath.Join(dir, "pids")), readPids(t, pidFile)...)
			defer killAll(pids)
			for _, pid := range pids {
				if !alive(pid) {
					t.Fatalf("process %d not running before the signal", pid)
				}
			}
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := p.wait(t)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Errorf("proxy exit: %v, want exit status 1; stderr:\n%s", err, p.stderr)
			}
			if !strings.Contains(p.stderr.String(), "interrupted") {
				t.Errorf("stderr does not report the interruption:\n%s", p.stderr)
			}
			defer func() {
				if t.Failed() {
					t.Logf("proxy stderr:\n%s", p.stderr)
				}
			}()
			requireGone(t, pids...)
		})
	}
}

// The SDK's example client launches "the proxy" as its agent, and the
// proxy spawns the SDK's example agent: a full turn, with the permission
// allowed and rejected. The client ends by SIGKILLing its agent (the
// proxy); the example agent must not outlive it.
func TestSDKExampleClientThroughProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("the example agent's turn takes about 6 seconds")
	}
	bin := testutil.SDKExamples(t)
	exe, _ := os.Executable()
	for _, tc := range []struct {
		choice, want string
	}{
		{"1", "Perfect! I've successfully updated the configuration."},
		{"2", "I understand you prefer not to make that change."},
	} {
		t.Run("option"+tc.choice, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "backend.pid")
			opts, _ := json.Marshal(proxyRoleOptions{
				Command:    filepath.Join(bin, "agent"),
				ProcessCwd: dir,
				SessionCwd: "workspace",
				Workspace:  dir,
				PidFile:    pidFile,
			})
			cmd := exec.Command(filepath.Join(bin, "client"), exe)
			cmd.Env = append(os.Environ(), envRole+"=proxy", envProxyOpts+"="+string(opts))
			cmd.Stdin = strings.NewReader(tc.choice + "\n")
			var stdout, stderr testutil.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("example client: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
				}
			case <-time.After(2 * deadline):
				_ = cmd.Process.Kill()
				t.Fatalf("example client did not finish\nstdout:\n%s\nstderr:\n%s", &stdout, &stderr)
			}
			out := stdout.String()
			for _, want := range []string{"Connected to agent", "Created session", "Permission requested: Modifying critical configuration file", tc.want, "Agent completed"} {
				if !strings.Contains(out, want) {
					t.Errorf("client output lacks %q:\n%s\nstderr:\n%s", want, out, &stderr)
				}
			}
			if i, j := strings.Index(out, "Reading project files"), strings.Index(out, "Permission requested"); i < 0 || j < i {
				t.Errorf("tool call and permission out of order:\n%s", out)
			}
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(string(bytes.TrimSpace(b)))
			requireGone(t, pid)
		})
	}
}

// If the proxy itself is SIGKILLed (no chance to clean up), the kernel
// kills the backend (parent-death signal, Linux). Children the backend
// started are outside this guarantee; see the package notes.
func TestProxySIGKILLTakesBackendDown(t *testing.T) {
	exe, _ := os.Executable()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "backend.pid")
	p := startProxyProcess(t, proxyRoleOptions{
		Command:    exe,
		Env:        append(os.Environ(), envRole+"=agent", envAgentDir+"="+dir, envAgentMode+"=ignore-eof"),
		ProcessCwd: dir,
		PidFile:    pidFile,
	})
	p.call(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	pids := readPids(t, pidFile)
	defer killAll(pids)
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.wait(t)
	requireGone(t, pids...)
}
