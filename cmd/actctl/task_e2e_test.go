//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/tasklog"
)

// taskWorkspace declares employee triage (a heartbeat, two cron entries),
// tool agent helper, run hooks logging every task event to events.log and
// a prompt hook (which task skips). The scripted agent logs its prompts to
// prompts.log.
func taskWorkspace(t *testing.T) (root, home string) {
	t.Helper()
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	logEvent := `run: {command: "sh", args: ["-c", "printf '%s\\n' \"$ACTCTL_EVENT\" >> events.log"]}`
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, `ACTCTL_TEST_PROMPT_LOG: "`+filepath.Join(root, "prompts.log")+`"`)+`
templates: {
	emp: {backend: "scripted", archetype: "employee", schedule: {
		heartbeat: {interval: "30m", prompt: "check the queue"}
		cron: [{pattern: "0 9 * * 7", prompt: "hello"}, {pattern: "@weekly", prompt: "refuse"}]
	}}
	tl: {backend: "scripted"}
}
agents: {
	triage: template: "emp"
	helper: template: "tl"
}
hooks: "hb": {on: "heartbeat:tick", `+logEvent+`}
hooks: "cron": {on: "cron:tick", `+logEvent+`}
hooks: "done": {on: "task:done", `+logEvent+`}
hooks: "failed": {on: "task:failed", `+logEvent+`}
hooks: "tell": {on: "task:done", agents: ["triage"], prompt: {agent: "helper", text: "triage finished"}}
`)
	return root, home
}

// taskLogs returns triage's summary lines and task file names.
func taskLogs(t *testing.T, home string) ([]tasklog.Summary, []string) {
	t.Helper()
	dir := filepath.Join(home, "instances", "triage", "logs")
	sums, err := tasklog.Summaries(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(tasklog.TasksDir(dir))
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return sums, names
}

// TestTaskHeartbeatCronAndLog: the default source is the heartbeat (its
// fixed prompt, .heartbeat seeded once and never overwritten), --source
// and --schedule pick cron entries, the task log is up's (file names,
// summary lines, ids continuing), run hooks get the tick and task events,
// prompt hooks are skipped with one warning.
func TestTaskHeartbeatCronAndLog(t *testing.T) {
	root, home := taskWorkspace(t)
	r := actctl(t, root, home, "task", "triage")
	if r.Code != 0 {
		t.Fatalf("heartbeat task: exit %d\n%s", r.Code, r.Stderr)
	}
	if n := strings.Count(r.Stderr, "prompt hooks need actctl up and are skipped: tell"); n != 1 {
		t.Errorf("want one warning of the skipped prompt hook, got %d:\n%s", n, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "actctl: task 1 of triage (heartbeat): end_turn, exit 0") {
		t.Errorf("no summary line:\n%s", r.Stderr)
	}
	hb := filepath.Join(home, "instances", "triage", schedule.HeartbeatFile)
	if b, err := os.ReadFile(hb); err != nil || string(b) != "check the queue" {
		t.Fatalf(".heartbeat: %q, %v", b, err)
	}
	if err := os.WriteFile(hb, []byte("the agent's own state"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := actctl(t, root, home, "task", "triage", "--source", "cron:0"); r.Code != 0 || r.Stdout != "Hello from the test agent.\n" {
		t.Fatalf("cron:0: exit %d %q\n%s", r.Code, r.Stdout, r.Stderr)
	}
	// GitHub's github.event.schedule: 7 is 0, @weekly is 0 0 * * 0.
	if r := actctl(t, root, home, "task", "triage", "--schedule", "0 9 * * 0"); r.Code != 0 {
		t.Fatalf("--schedule: exit %d\n%s", r.Code, r.Stderr)
	}
	if r := actctl(t, root, home, "task", "triage", "--schedule", "0 0 * * 0"); r.Code != 3 {
		t.Fatalf("--schedule @weekly (refuse): exit %d, want 3\n%s", r.Code, r.Stderr)
	}
	if b, _ := os.ReadFile(hb); string(b) != "the agent's own state" {
		t.Errorf(".heartbeat overwritten: %q", b)
	}
	sums, names := taskLogs(t, home)
	want := []struct {
		kind, source, stop string
	}{{"heartbeat", "heartbeat", "end_turn"}, {"cron", "cron[0]", "end_turn"}, {"cron", "cron[0]", "end_turn"}, {"cron", "cron[1]", "refusal"}}
	if len(sums) != len(want) || len(names) != len(want) {
		t.Fatalf("summaries %+v, files %v; want %d", sums, names, len(want))
	}
	file := regexp.MustCompile(`^\d{8}T\d{6}Z-(\d+)\.jsonl$`)
	for i, w := range want {
		s := sums[i]
		if s.Task != uint64(i+1) || s.Kind != w.kind || s.Source != w.source || s.StopReason != w.stop || s.Log != "tasks/"+names[i] {
			t.Errorf("summary %d: %+v, want task %d %+v", i, s, i+1, w)
		}
		if m := file.FindStringSubmatch(names[i]); m == nil || m[1] != strconv.Itoa(i+1) {
			t.Errorf("task file %q", names[i])
		}
	}
	if sums[0].Prompt != schedule.HeartbeatPrompt[:tasklog.PromptMax] {
		t.Errorf("heartbeat prompt %q", sums[0].Prompt)
	}
	events, _ := os.ReadFile(filepath.Join(root, "events.log"))
	for _, e := range []string{`"name":"heartbeat:tick","agent":"triage"`, `"name":"cron:tick","agent":"triage"`,
		`"name":"task:done","agent":"triage"`, `"name":"task:failed","agent":"triage"`, `"source":"cron[1]"`} {
		if !strings.Contains(string(events), e) {
			t.Errorf("events.log lacks %s:\n%s", e, events)
		}
	}
	if n := strings.Count(string(events), "\n"); n != 8 {
		t.Errorf("want 8 events (a tick and an end per task), got %d:\n%s", n, events)
	}
	// up's own logs command reads them.
	if r := actctl(t, root, home, "logs", "triage"); r.Code != 0 || strings.Count(r.Stdout, "\n") != 4 ||
		!regexp.MustCompile(`#4\s+cron\(cron\[1\]\)\s+error: the turn ended: refusal`).MatchString(r.Stdout) {
		t.Errorf("logs: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestTaskExitCodes: run's exit codes, and the refusals, each writing
// nothing.
func TestTaskExitCodes(t *testing.T) {
	root, home := taskWorkspace(t)
	for _, tc := range []struct {
		args []string
		code int
		diag string
	}{
		{[]string{"task", "helper"}, 2, "task: agent helper has archetype \"tool\": task runs an employee's tasks; for one turn with it use `actctl run helper -p TEXT`"},
		{[]string{"task", "nobody"}, 1, `unknown agent "nobody"`},
		{[]string{"task"}, 2, "task: want one AGENT"},
		{[]string{"task", "triage", "--if-busy", "later"}, 2, `--if-busy "later": want wait or skip`},
		{[]string{"task", "triage", "--source", "cron:2"}, 2, "--source cron:2: the agent has 2 cron entries; give --source heartbeat | cron:0 | cron:1 | manual (with -p TEXT)"},
		{[]string{"task", "triage", "--source", "nightly"}, 2, "--source nightly: unknown source"},
		{[]string{"task", "triage", "--source", "heartbeat", "--schedule", "@daily"}, 2, "--source and --schedule exclude each other"},
		{[]string{"task", "triage", "-p", "x", "--schedule", "@daily"}, 2, "drop --schedule"},
		{[]string{"task", "triage", "-p", "x", "--source", "cron:0"}, 2, "-p and --prompt-file make a manual task: drop --source cron:0"},
		{[]string{"task", "triage", "--schedule", "*/5 * * * *"}, 2, `--schedule "*/5 * * * *" matches none of the agent's schedule entries: heartbeat every 30m0s (*/30 * * * *), cron:0 "0 9 * * 7", cron:1 "@weekly"`},
		{[]string{"task", "triage", "--schedule", "0 9 * *"}, 2, "got 4 fields"},
		{[]string{"task", "triage", "-p", "x", "--prompt-file", "f"}, 2, "task: -p and --prompt-file exclude each other"},
		{[]string{"task", "triage", "--prompt-file", "no-such-file"}, 1, "task: prompt file: open no-such-file"},
		{[]string{"task", "triage", "-p", " "}, 2, "task: the prompt is empty"},
	} {
		r := actctl(t, root, home, tc.args...)
		if r.Code != tc.code || !strings.Contains(r.Stderr, tc.diag) {
			t.Errorf("%v: exit %d (want %d)\n%s(want %q)", tc.args, r.Code, tc.code, r.Stderr, tc.diag)
		}
	}
	assertNotWritten(t, root, "refused tasks", ".actant", "events.log", "prompts.log")
	assertNotWritten(t, home, "refused tasks", "instances")

	for _, tc := range []struct {
		prompt, timeout string
		code            int
		diag            string
	}{
		{"hello", "30m", 0, ""},
		{"refuse", "30m", 3, "the agent refused"},
		{"maxtokens", "30m", 4, "max_tokens"},
		{"perm execute", "30m", 5, "every permission request (1) was denied"},
		{"crash", "30m", 1, "crashing on purpose"},
		// the turn never ends: whatever the timeout hits, it is 124
		{"stream", "1s", 124, "timed out after 1s"},
	} {
		r := actctl(t, root, home, "task", "triage", "-p", tc.prompt, "--timeout", tc.timeout, "--grace", "1s")
		if r.Code != tc.code || !strings.Contains(r.Stderr, tc.diag) {
			t.Errorf("-p %s: exit %d (want %d)\n%s(want %q)", tc.prompt, r.Code, tc.code, r.Stderr, tc.diag)
		}
	}
	sums, _ := taskLogs(t, home)
	if len(sums) != 6 || sums[5].Source != "manual" || sums[5].Kind != "prompt" || sums[0].Error != "" || sums[1].Error == "" {
		t.Errorf("summaries: %+v", sums)
	}
}

// taskProc is a running `actctl task` whose stdout and stderr are read
// line by line.
type taskProc struct {
	cmd   *exec.Cmd
	lines chan string // stdout and stderr, as they come
}

func startTask(t *testing.T, root, home string, args ...string) *taskProc {
	t.Helper()
	cmd := exec.Command(actctlBin, append([]string{"task"}, args...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	p := &taskProc{cmd: cmd, lines: make(chan string, 100)}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errp, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for _, r := range []io.Reader{out, errp} {
		go func() {
			sc := bufio.NewScanner(r)
			for sc.Scan() {
				p.lines <- sc.Text()
			}
		}()
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return p
}

// waitLine waits for a line containing s.
func (p *taskProc) waitLine(t *testing.T, s string) {
	t.Helper()
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case l := <-p.lines:
			if strings.Contains(l, s) {
				return
			}
		case <-deadline.C:
			t.Fatalf("no line %q from task", s)
		}
	}
}

// TestTaskLockWaitAndSkip: while a task of triage runs (one that waits
// for a file), --if-busy skip exits 0 saying it coalesced and runs
// nothing, and --if-busy wait says it waits and runs once the first
// ended: ids 1 and 2, one after the other.
func TestTaskLockWaitAndSkip(t *testing.T) {
	root, home := taskWorkspace(t)
	gate := filepath.Join(root, "go")
	first := startTask(t, root, home, "triage", "-p", "wait "+gate)
	first.waitLine(t, "waiting") // the agent's text: the lock is held
	r := actctl(t, root, home, "task", "triage", "--if-busy", "skip", "-p", "hello")
	if r.Code != 0 || !strings.Contains(r.Stderr, "agent triage is busy: actctl task (pid "+strconv.Itoa(first.cmd.Process.Pid)+") holds it: this task coalesced into the running one (--if-busy skip)") {
		t.Fatalf("skip: exit %d\n%s", r.Code, r.Stderr)
	}
	// The timeout covers the wait: the first never ends before the gate.
	if r := actctl(t, root, home, "task", "triage", "--timeout", "1s", "-p", "hello"); r.Code != 124 || !strings.Contains(r.Stderr, "task: timed out after 1s") {
		t.Fatalf("timeout while waiting: exit %d\n%s", r.Code, r.Stderr)
	}
	second := startTask(t, root, home, "triage", "-p", "hello")
	second.waitLine(t, "waiting for its task to end (--if-busy wait)")
	if sums, _ := taskLogs(t, home); len(sums) != 0 {
		t.Fatalf("a task ended while the first runs: %+v", sums)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := first.cmd.Wait(); err != nil {
		t.Fatalf("first: %v", err)
	}
	second.waitLine(t, "Hello from the test agent.")
	if err := second.cmd.Wait(); err != nil {
		t.Fatalf("second: %v", err)
	}
	sums, _ := taskLogs(t, home)
	if len(sums) != 2 || sums[0].Task != 1 || sums[0].Prompt != "wait "+gate || sums[1].Task != 2 || sums[1].Prompt != "hello" {
		t.Fatalf("summaries: %+v", sums)
	}
	// time is when a task ended, started when it started (docs/json.md).
	if sums[1].Started.Before(sums[0].Time) {
		t.Errorf("the second task started before the first ended: %+v", sums)
	}
}

// TestTaskRefusedWhileUp: up holds the lock of the employee it runs: a
// task is refused naming up's pid, and runs once up stopped, its id after
// the task up ran.
func TestTaskRefusedWhileUp(t *testing.T) {
	root, home := taskWorkspace(t)
	p := startUp(t, root, home, "triage")
	p.started("triage")
	r := actctl(t, root, home, "task", "triage", "-p", "hello")
	want := "agent triage is busy: actctl up (pid " + strconv.Itoa(p.cmd.Process.Pid) + ") holds it: its tasks run there; queue one with `actctl prompt triage`, or stop that up"
	if r.Code != 1 || !strings.Contains(r.Stderr, want) {
		t.Fatalf("task under up: exit %d\n%s(want %q)", r.Code, r.Stderr, want)
	}
	if sums, _ := taskLogs(t, home); len(sums) != 0 {
		t.Errorf("a task ran: %+v", sums)
	}
	if r := actctl(t, root, home, "prompt", "triage", "-p", "hello"); r.Code != 0 {
		t.Fatalf("prompt: exit %d\n%s", r.Code, r.Stderr)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("up: %v\n%s", err, p.stderr())
	}
	if r := actctl(t, root, home, "task", "triage", "-p", "hello"); r.Code != 0 {
		t.Fatalf("task after up: exit %d\n%s", r.Code, r.Stderr)
	}
	// The ids continue after up's task.
	if sums, _ := taskLogs(t, home); len(sums) != 2 || sums[0].Task != 1 || sums[0].Source != "cli" || sums[1].Task != 2 || sums[1].Source != "manual" {
		t.Errorf("summaries: %+v", sums)
	}
}

// TestTaskSummaryFiles: the summary goes to $ACTCTL_TERMINATION_LOG (the
// -o json object, as documented in docs/json.md) and is appended to
// $GITHUB_STEP_SUMMARY as Markdown.
func TestTaskSummaryFiles(t *testing.T) {
	root, home := taskWorkspace(t)
	term, step := filepath.Join(t.TempDir(), "termination-log"), filepath.Join(t.TempDir(), "step.md")
	env := []string{"ACTCTL_TERMINATION_LOG=" + term, "GITHUB_STEP_SUMMARY=" + step}
	r := actctlEnv(t, root, home, env, "-o", "json", "task", "triage", "--source", "cron:0")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	last := lines[len(lines)-1]
	var v map[string]any
	if err := json.Unmarshal([]byte(last), &v); err != nil {
		t.Fatalf("last line: %v: %s", err, last)
	}
	checkDocumented(t, "task", v)
	if v["task"] != 1.0 || v["source"] != "cron[0]" || v["kind"] != "cron" || v["stopReason"] != "end_turn" || v["exitCode"] != 0.0 {
		t.Errorf("summary: %s", last)
	}
	if b, err := os.ReadFile(term); err != nil || string(b) != last+"\n" {
		t.Errorf("termination log: %q, %v; want %q", b, err, last)
	}
	r = actctlEnv(t, root, home, env, "task", "triage", "-p", "refuse")
	if r.Code != 3 {
		t.Fatalf("refuse: exit %d\n%s", r.Code, r.Stderr)
	}
	if b, _ := os.ReadFile(term); !strings.HasPrefix(string(b), "task 2 of triage (manual): refusal, exit 3, ") || !strings.HasSuffix(string(b), ": the agent refused\n") {
		t.Errorf("text termination log: %q", b)
	}
	b, _ := os.ReadFile(step)
	for _, s := range []string{"### actctl task triage #1 (cron[0])\n", "| end_turn | 0 |", "### actctl task triage #2 (manual)\n", "| refusal | 3 |", "```\nthe agent refused\n```"} {
		if !strings.Contains(string(b), s) {
			t.Errorf("step summary lacks %q:\n%s", s, b)
		}
	}
}

// TestUpLeavesARunningTask: an up started while a task of an employee
// runs does not run that employee (it says why) and runs the others.
func TestUpLeavesARunningTask(t *testing.T) {
	root, home := taskWorkspace(t)
	gate := filepath.Join(root, "go")
	task := startTask(t, root, home, "triage", "-p", "wait "+gate)
	task.waitLine(t, "waiting")
	p := startUp(t, root, home)
	p.waitLine(`up: triage: agent triage is busy: actctl task \(pid ` + strconv.Itoa(task.cmd.Process.Pid) + `\) holds it: up does not run it \(restart up once that task ended\)`)
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := task.cmd.Wait(); err != nil {
		t.Fatalf("task: %v", err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.waitLine(`up: stopped$`)
	if strings.Contains(p.stderr(), "triage: process:start") {
		t.Errorf("up ran triage:\n%s", p.stderr())
	}
}

// TestTaskFrozen: --frozen refuses a missing actant.lock, as up --frozen
// and apply --frozen do, before anything is written.
func TestTaskFrozen(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "hub")
	writeFiles(t, repo, map[string]string{
		"actant.json":      `{"name":"h","version":"1.0.0"}`,
		"prompts/sys.json": `{"name":"sys","content":"You review."}`,
	})
	hubGit(t, repo, "init", "-q", "-b", "main")
	hubGit(t, repo, "add", "-A")
	hubGit(t, repo, "commit", "-q", "-m", "one")
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, "")+`
hub: team: {url: "file://`+repo+`", ref: branch: "main"}
templates: emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "x"}}
agents: triage: template: "emp"
`)
	r := actctl(t, root, home, "task", "triage", "--frozen")
	if r.Code != 1 || !strings.Contains(r.Stderr, "actant.lock") {
		t.Fatalf("--frozen without a lock: exit %d\n%s", r.Code, r.Stderr)
	}
	assertNotWritten(t, root, "task --frozen", "actant.lock", ".actant")
	assertNotWritten(t, home, "task --frozen", "instances")
	if r := actctl(t, root, home, "task", "triage"); r.Code != 0 {
		t.Fatalf("task: exit %d\n%s", r.Code, r.Stderr)
	}
	if r := actctl(t, root, home, "task", "triage", "--frozen"); r.Code != 0 {
		t.Fatalf("--frozen with the lock: exit %d\n%s", r.Code, r.Stderr)
	}
}

// TestTaskSIGINT: SIGINT cancels the turn (exit 130), the task is logged
// as failed and task:failed fires, and the lock is free for the next one.
func TestTaskSIGINT(t *testing.T) {
	root, home := taskWorkspace(t)
	p := startTask(t, root, home, "triage", "-p", "stream", "--grace", "2s")
	p.waitLine(t, "streaming pid=")
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := p.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("task: %v, want exit 130", err)
	}
	sums, _ := taskLogs(t, home)
	if len(sums) != 1 || !strings.Contains(sums[0].Error, "interrupted") {
		t.Errorf("summaries: %+v", sums)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "events.log")); !strings.Contains(string(b), `"name":"task:failed"`) {
		t.Errorf("no task:failed:\n%s", b)
	}
	if r := actctl(t, root, home, "task", "triage", "--if-busy", "skip", "-p", "hello"); r.Code != 0 || strings.Contains(r.Stderr, "coalesced") {
		t.Errorf("after SIGINT: exit %d\n%s", r.Code, r.Stderr)
	}
}
