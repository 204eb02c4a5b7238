package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actctl/actctl/tasklog"
)

// bgPrompt is an `actctl prompt` running in the background whose stdout
// is read line by line.
type bgPrompt struct {
	cmd    *exec.Cmd
	lines  chan string
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan struct{}
}

func startBgPrompt(t *testing.T, root, home string, args ...string) *bgPrompt {
	t.Helper()
	cmd := exec.Command(actctlBin, append([]string{"prompt"}, args...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	p := &bgPrompt{cmd: cmd, lines: make(chan string, 1000), done: make(chan struct{})}
	cmd.Stderr = &p.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.stdout.WriteString(sc.Text() + "\n")
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return p
}

// waitFor waits for a stdout line containing s.
func (p *bgPrompt) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.NewTimer(60 * time.Second) // a bound on a hang, not a wait
	defer deadline.Stop()
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("prompt ended before %q:\n%s", s, p.stderr.String())
			}
			if strings.Contains(l, s) {
				return
			}
		case <-deadline.C:
			t.Fatalf("prompt printed no %q", s)
		}
	}
}

// wait waits for the prompt to exit and returns its exit code.
func (p *bgPrompt) wait(t *testing.T) int {
	t.Helper()
	for range p.lines {
	}
	<-p.done
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// TestPromptCutByShutdown: a prompt whose turn up's shutdown cancels
// says that up is shutting down and exits 1, for a service (it said "the
// agent cancelled the turn on its own") and an employee (it said `unknown
// stop reason ""`), in text and in -o json's summary (issue #22 item 16).
func TestPromptCutByShutdown(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home, "api", "triage")
	for range 2 {
		p.waitLine(`up: (api|triage): process:start pid \d+`)
	}
	svc := startBgPrompt(t, root, home, "api", "-p", "stream")
	emp := startBgPrompt(t, root, home, "-o", "json", "triage", "-p", "stream")
	svc.waitFor(t, "streaming pid=")
	emp.waitFor(t, "streaming pid=")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	const want = "actctl up is shutting down: the turn was cancelled"
	if code := svc.wait(t); code != 1 || !strings.Contains(svc.stderr.String(), want) {
		t.Errorf("service prompt: exit %d, want 1 and %q:\n%s", code, want, svc.stderr.String())
	}
	if s := svc.stderr.String(); strings.Contains(s, "on its own") || strings.Contains(s, "unknown stop reason") {
		t.Errorf("service prompt blames the agent:\n%s", s)
	}
	code := emp.wait(t)
	if s := lastSummary(t, emp.stdout.String()); code != 1 || s.ExitCode != 1 || !strings.Contains(s.Error, want) {
		t.Errorf("employee prompt -o json: exit %d, summary %+v, want exit 1 and %q\n%s", code, s, want, emp.stderr.String())
	}
	if s := emp.stderr.String(); !strings.Contains(s, want) || strings.Contains(s, "unknown stop reason") {
		t.Errorf("employee prompt's stderr, want %q:\n%s", want, s)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("up: %v\n%s", err, p.stderr())
	}
}

// promptAnswer is whether out holds the JSON-RPC answer to session/prompt
// (a result with a stop reason).
func promptAnswer(out string) bool {
	for _, l := range strings.Split(out, "\n") {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result struct {
				StopReason string `json:"stopReason"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(l), &m) == nil && m.ID != nil && m.Result.StopReason == "end_turn" {
			return true
		}
	}
	return false
}

// TestPromptLogsAnswer: `prompt -o json` and the task log hold the
// answer to session/prompt (its stopReason), as `run -o json` does, for
// a service (a new session on the warm process: the answer was left out)
// and an employee; and actctl.log's summary holds the task's start and
// end: `time` is its end, `started` its start, durationMs between them
// (`time` was the start) (issue #22 item 16).
func TestPromptLogsAnswer(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home, "api", "triage")
	for range 2 {
		p.waitLine(`up: (api|triage): process:start pid \d+`)
	}
	for _, agent := range []string{"api", "triage"} {
		r := actctl(t, root, home, "-o", "json", "prompt", agent, "-p", "hello")
		if r.Code != 0 || !promptAnswer(r.Stdout) {
			t.Errorf("prompt %s -o json: exit %d, no answer to session/prompt:\n%s%s", agent, r.Code, r.Stdout, r.Stderr)
		}
		task := lastSummary(t, r.Stdout)
		dir := filepath.Join(home, "instances", agent, "logs")
		sums, err := tasklog.Summaries(dir)
		if err != nil || len(sums) == 0 {
			t.Fatalf("%s: summaries %v, %v", agent, sums, err)
		}
		s := sums[len(sums)-1]
		b, err := os.ReadFile(filepath.Join(dir, s.Log))
		if err != nil || !promptAnswer(string(b)) {
			t.Errorf("%s: task log %s (%v) lacks the answer to session/prompt:\n%s", agent, s.Log, err, b)
		}
		if s.Started.IsZero() || s.Time.Sub(s.Started).Milliseconds() != s.DurationMs || s.DurationMs != task.DurationMs {
			t.Errorf("%s: summary started %v, time %v, durationMs %d (prompt's %d): want time = started + durationMs", agent, s.Started, s.Time, s.DurationMs, task.DurationMs)
		}
		line, _ := os.ReadFile(tasklog.SummaryPath(dir))
		if !bytes.Contains(line, []byte(`"started":"`)) {
			t.Errorf("%s: actctl.log has no started:\n%s", agent, line)
		}
	}
}

// TestProxyCopyOfUpAgentSaysLease: `proxy api` without --lease while up
// holds api still serves the editor (an ephemeral copy: its own process,
// as docs/runtime.md, "Session leases", has it), and says so in one stderr line naming
// `--lease`, which shares up's warm process instead; a copy of an agent
// another proxy holds names no --lease, which could not serve it (issue
// #22 item 16).
func TestProxyCopyOfUpAgentSaysLease(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home, "api")
	p.started("api")
	e := startProxy(t, root, home, "api")
	e.initialize()
	e.newSession(1, t.TempDir())
	e.close()
	const lease = "`actctl proxy api --lease` shares its warm process instead"
	if s := e.stderr.String(); strings.Count(s, "ephemeral copy") != 1 || strings.Count(s, lease) != 1 || !strings.Contains(s, "api is held by actctl up") {
		t.Errorf("proxy api without --lease while up holds it: want one line naming up and %q:\n%s", lease, s)
	}
	first := startProxy(t, root, home, "helper")
	first.initialize()
	second := startProxy(t, root, home, "helper")
	second.initialize()
	second.close()
	first.close()
	if s := second.stderr.String(); !strings.Contains(s, "ephemeral copy") || strings.Contains(s, "--lease") || strings.Contains(s, "actctl up") {
		t.Errorf("copy of an agent another proxy holds: want no --lease:\n%s", s)
	}
}
