//go:build unix

package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestUpRefusesLinkedRunDir: `up` refuses a .actant, a .actant/run or an
// up.lock that is a symbolic link (another user's, as far as actctl can
// tell) instead of putting its lock and socket where it points; nothing
// is written there and no up is left running.
func TestUpRefusesLinkedRunDir(t *testing.T) {
	for _, c := range []struct{ name, link string }{
		{"actant", ".actant"},
		{"run", ".actant/run"},
		{"lock", ".actant/run/up.lock"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, home := upWorkspace(t)
			elsewhere := filepath.Join(t.TempDir(), "elsewhere")
			if c.name == "lock" {
				mkdirs(t, filepath.Join(root, ".actant/run"), 0o700)
				writeFiles(t, filepath.Dir(elsewhere), map[string]string{"elsewhere": "theirs\n"})
			} else {
				mkdirs(t, filepath.Dir(filepath.Join(root, c.link)), 0o700)
				mkdirs(t, elsewhere, 0o755)
			}
			if err := os.Symlink(elsewhere, filepath.Join(root, c.link)); err != nil {
				t.Fatal(err)
			}
			// The old up went on through the link and ran: it is stopped
			// once it says where it listens.
			p := startUp(t, root, home)
			m := p.waitLine(`refusing|control socket`)
			want := "refusing " + filepath.Join(root, c.link) + ": it is a symbolic link"
			if m[0] != "control socket" {
				err := p.cmd.Wait()
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
					t.Errorf("up: %v, want exit 1", err)
				}
			}
			if !strings.Contains(p.stderr(), want) {
				t.Fatalf("up: want %q\n%s", want, p.stderr())
			}
			if strings.Contains(p.stderr(), "process:start") {
				t.Errorf("a refused up started agents:\n%s", p.stderr())
			}
			if c.name == "lock" {
				if b, _ := os.ReadFile(elsewhere); string(b) != "theirs\n" {
					t.Errorf("the link's target was written: %q", b)
				}
				return
			}
			if got := listFiles(t, elsewhere); len(got) != 0 {
				t.Errorf("up wrote through the link: %v", got)
			}
		})
	}
}

// TestClientRefusesForeignSocket: prompt, start and stop refuse a socket
// that is a link (to another user's listener) or a run directory open to
// others, before they connect: the listener gets no connection, so the
// prompt's text reaches nobody.
func TestClientRefusesForeignSocket(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"link", "up.sock: it is a symbolic link"},
		{"open-dir", "run: its mode is 0707"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, home := upWorkspace(t)
			run := filepath.Join(root, ".actant", "run")
			mkdirs(t, run, 0o700)
			theirs := filepath.Join(t.TempDir(), "s")
			sock := filepath.Join(run, "up.sock")
			if c.name == "link" {
				if err := os.Symlink(theirs, sock); err != nil {
					t.Fatal(err)
				}
			} else {
				theirs = sock
				if err := os.Chmod(run, 0o707); err != nil { // group bits of the user's own group are accepted
					t.Fatal(err)
				}
			}
			ln, err := net.Listen("unix", theirs)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			heard := listen(ln)
			for _, args := range [][]string{{"prompt", "api", "-p", "the secret plan"}, {"start", "api"}, {"stop", "api"}} {
				r := actctl(t, root, home, args...)
				if r.Code != 1 || !strings.Contains(r.Stderr, c.want) || !strings.Contains(r.Stderr, "refusing") {
					t.Errorf("%s: %d, want 1 and %q\n%s", args[0], r.Code, c.want, r.Stderr)
				}
			}
			if got := heard(theirs); len(got) != 0 {
				t.Errorf("the foreign socket heard %q", got)
			}
		})
	}
}

// listen serves ln as another user's listener would: it reads each
// connection's first line and hangs up. The returned function connects
// once more (to path), with a marker line, and returns the lines heard
// before it: connections are accepted in order, so every client that
// connected before has been heard.
func listen(ln net.Listener) func(path string) []string {
	var heard []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(conn).ReadString('\n')
			conn.Close()
			if line == "marker\n" {
				return
			}
			heard = append(heard, line)
		}
	}()
	return func(path string) []string {
		conn, err := net.Dial("unix", path)
		if err == nil {
			_, _ = conn.Write([]byte("marker\n"))
			conn.Close()
		}
		<-done
		return heard
	}
}

// mkdirs creates dir and its parents, dir itself with mode perm.
func mkdirs(t *testing.T, dir string, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(dir, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, perm); err != nil {
		t.Fatal(err)
	}
}

// TestUpStopsCleanly: a prompt ended by SIGTERM exits as run does
// (128+15, "interrupted"), not 1 with "context canceled"; a restart that
// waits for a turn when up gets SIGTERM says that up is shutting down,
// not that it went away; and the agent whose stubborn turn up had to
// kill on its way out is logged as stopped, not crashed.
func TestUpStopsCleanly(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home, "--turn-grace", "1h")
	for seen := map[string]bool{}; len(seen) < 2; { // in either order
		seen[p.waitLine(`up: (api|triage): process:start`)[1]] = true
	}

	prompt, stderr := startPrompt(t, root, home, "api", "stream")
	if err := prompt.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := prompt.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Errorf("prompt after SIGTERM: %v, want exit %d\n%s", err, 128+int(syscall.SIGTERM), stderr)
	}
	if s := stderr.String(); !strings.Contains(s, "interrupted") || strings.Contains(s, "context canceled") {
		t.Errorf("prompt after SIGTERM said:\n%s", s)
	}

	stubborn, _ := startPrompt(t, root, home, "triage", "stubborn")
	defer func() { // ended with up; killed when a failure left it waiting
		_ = stubborn.Process.Kill()
		_ = stubborn.Wait()
	}()
	restart := exec.Command(actctlBin, "restart", "triage")
	restart.Dir, restart.Env = root, append(os.Environ(), "ACTANT_HOME="+home)
	var out strings.Builder
	restart.Stdout, restart.Stderr = &out, &out
	if err := restart.Start(); err != nil {
		t.Fatal(err)
	}
	p.waitLine(`triage: restart: waiting for the running turn to end`)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = restart.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(out.String(), "actctl up is shutting down") || strings.Contains(out.String(), "went away") {
		t.Errorf("restart during up's SIGTERM: %v\n%s", err, out.String())
	}
	p.waitLine(`up: stopped`)
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("up: %v", err)
	}
	if s := p.stderr(); strings.Contains(s, "process:crash") || strings.Contains(s, "pid 0") {
		t.Errorf("up's log at shutdown:\n%s", s)
	}
}

// startPrompt starts `actctl prompt AGENT -p TEXT` and returns once the
// test agent says it streams.
func startPrompt(t *testing.T, root, home, agent, text string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd, stderr, _ := startPromptLine(t, root, home, agent, text, `streaming pid=`)
	return cmd, stderr
}

// startPromptLine starts `actctl prompt AGENT -p TEXT` and returns once a
// line of its output matches re, with re's submatches.
func startPromptLine(t *testing.T, root, home, agent, text, re string) (*exec.Cmd, *strings.Builder, []string) {
	t.Helper()
	rx := regexp.MustCompile(re)
	cmd := exec.Command(actctlBin, "prompt", agent, "-p", text)
	cmd.Dir, cmd.Env = root, append(os.Environ(), "ACTANT_HOME="+home)
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if m := rx.FindStringSubmatch(sc.Text()); m != nil {
			go func() {
				for sc.Scan() {
				}
			}()
			return cmd, stderr, m
		}
	}
	cmd.Wait()
	t.Fatalf("prompt %s %s: no line %q\n%s", agent, text, re, stderr)
	return nil, nil, nil
}

// TestUpStartBound: a backend that never answers initialize fails to
// start once up's start bound has passed (here 1s): up logs the crash
// naming the request, and `prompt` and `start` (which waits for a new
// start) return with that error instead of waiting forever.
func TestUpStartBound(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, `ACTCTL_TEST_HANG: "initialize"`)+`
templates: svc: {backend: "scripted", archetype: "service", launchMode: "acp-background", restart: "never"}
agents: api: template: "svc"
`)
	p := startUp(t, root, home, "--start-timeout", "1s")
	want := "initialize: no answer within 1s, the start bound"
	// (A prompt sent while the start is under way: up's TestStartBound.)
	p.waitLine(`api: process:crash \(crashed\): ` + regexp.QuoteMeta(want))
	r := actctl(t, root, home, "prompt", "api", "-p", "hello")
	if r.Code != 1 || !strings.Contains(r.Stderr, want) {
		t.Errorf("prompt: %d, want 1 and %q\n%s", r.Code, want, r.Stderr)
	}
	r = actctl(t, root, home, "start", "api")
	if r.Code != 1 || !strings.Contains(r.Stderr, "agent api did not start") || !strings.Contains(r.Stderr, want) {
		t.Errorf("start: %d, want 1 and %q\n%s", r.Code, want, r.Stderr)
	}
}

// TestUpRestartBound: `restart` of an employee whose turn never ends (the
// agent ignores session/cancel) waits the turn grace (here 1s), cancels
// the turn, kills the process once the grace has passed too, and
// restarts it; the prompt waiting for that turn fails saying why, and
// the killed process is logged as stopped, not crashed.
func TestUpRestartBound(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home, "--turn-grace", "1s", "triage")
	p.started("triage")
	prompt, stderr := startPrompt(t, root, home, "triage", "stubborn")
	r := actctl(t, root, home, "restart", "triage")
	if r.Code != 0 || !strings.Contains(r.Stdout, "triage: running pid") {
		t.Errorf("restart: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	err := prompt.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "restart: the turn did not end within 1s") {
		t.Errorf("the stubborn turn's prompt: %v\n%s", err, stderr)
	}
	p.waitLine(`triage: restart: the running turn did not end within 1s: cancelling it`)
	p.waitLine(`triage: process:stop pid`)
	p.started("triage")
	if s := p.stderr(); strings.Contains(s, "process:crash") {
		t.Errorf("up's log:\n%s", s)
	}
}
