//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/deploy"

	"github.com/actctl/actctl/internal/testutil"
	"github.com/actctl/actctl/tasklog"
	"github.com/actctl/actctl/up"
)

// fakeKubectl is a kubectl on PATH that appends its arguments to argv
// (one line a run) and its pid to pids, then runs what follows `--`
// locally, actctl being the binary under test: `kubectl exec -i POD --
// actctl control-relay -C DIR` becomes `actctl control-relay -C DIR` run
// here. With $FAKE_KUBECTL_FAIL set it writes that to stderr and exits 1,
// as kubectl does when the pod is not found.
type fakeKubectl struct {
	argv, pids string
}

const fakeKubectlScript = `#!/bin/sh
printf '%s\n' "$*" >> "$FAKE_KUBECTL_ARGV"
echo $$ >> "$FAKE_KUBECTL_PIDS"
if [ -n "$FAKE_KUBECTL_FAIL" ]; then
	printf 'unrelated first line\n%s\n' "$FAKE_KUBECTL_FAIL" >&2
	exit 1
fi
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done
shift 2
exec "$FAKE_KUBECTL_ACTCTL" "$@"
`

// installFakeKubectl puts a fakeKubectl first in PATH for the test.
func installFakeKubectl(t *testing.T) *fakeKubectl {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kubectl"), []byte(fakeKubectlScript), 0o755); err != nil {
		t.Fatal(err)
	}
	k := &fakeKubectl{argv: filepath.Join(dir, "argv"), pids: filepath.Join(dir, "pids")}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKE_KUBECTL_ARGV", k.argv)
	t.Setenv("FAKE_KUBECTL_PIDS", k.pids)
	t.Setenv("FAKE_KUBECTL_ACTCTL", actctlBin)
	t.Setenv("FAKE_KUBECTL_FAIL", "")
	return k
}

// calls is the argument lines of every kubectl run so far.
func (k *fakeKubectl) calls(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(k.argv)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// assertGone fails when a kubectl started so far (or the relay it became)
// is still alive: each was killed and reaped when its command ended.
func (k *fakeKubectl) assertGone(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(k.pids)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(s)
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("kubectl pid %d is still there after its command ended: %v", pid, err)
		}
	}
}

// TestKubeControl drives a workspace's up through `--kube`, kubectl being
// fakeKubectl: status, a prompt whose reply streams, logs (-f, --task),
// an interrupted prompt, stop, start and restart, a lease (proxy
// --lease), the argv kubectl got, and no kubectl left running.
func TestKubeControl(t *testing.T) {
	k := installFakeKubectl(t)
	root, home := upWorkspace(t)
	kube := []string{"--kube", "--kube-context", "prod", "--kube-namespace", "agents", "--kube-pod", "ws-0", "--kube-workdir", root}
	wantArgv := "--context prod -n agents exec -i ws-0 -- actctl control-relay -C " + root
	cwd := t.TempDir() // not the workspace: everything goes through kubectl

	// Without up: said plainly, about the pod (TestKubeNoUp).
	if r := actctl(t, cwd, home, append(kube, "start", "api")...); r.Code != 1 || !strings.Contains(r.Stderr, "no actctl up is running in pod ws-0") {
		t.Fatalf("start without up: %d\n%s", r.Code, r.Stderr)
	}

	p := startUp(t, root, home)
	for range 2 {
		p.waitLine(`up: (api|triage): process:start pid (\d+)`)
	}
	r := actctl(t, cwd, home, append(kube, "status", "-o", "json")...)
	var sts []up.AgentStatus
	if err := json.Unmarshal([]byte(r.Stdout), &sts); r.Code != 0 || err != nil || len(sts) != 2 || sts[0].Name != "api" || sts[0].State != "running" || sts[0].Pid == 0 {
		t.Fatalf("status --kube -o json: %d %v\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	if r := actctl(t, cwd, home, append(kube, "status", "api")...); r.Code != 0 || !strings.Contains(r.Stdout, "api   running pid "+strconv.Itoa(sts[0].Pid)) || strings.Contains(r.Stdout, "triage") {
		t.Fatalf("status --kube api: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	if r := actctl(t, cwd, home, append(kube, "logs", "api")...); r.Code != 0 || r.Stdout != "" || r.Stderr != "no tasks logged for api yet (tasks are logged by actctl up)\n" {
		t.Fatalf("logs --kube of an agent without tasks: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	kubePromptStreams(t, cwd, home, kube)
	kubeLogsTest(t, cwd, home, kube)
	kubePromptInterrupted(t, cwd, home, kube)

	if r := actctl(t, cwd, home, append(kube, "stop", "api")...); r.Code != 0 || r.Stdout != "api: stopped\n" {
		t.Fatalf("stop --kube: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = actctl(t, cwd, home, append(kube, "start", "api")...)
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "api: running pid ") {
		t.Fatalf("start --kube: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	p.started("api")
	r = actctl(t, cwd, home, append(kube, "restart", "api", "-o", "json")...)
	var st up.AgentStatus
	if err := json.Unmarshal([]byte(r.Stdout), &st); r.Code != 0 || err != nil || st.State != "running" {
		t.Fatalf("restart --kube -o json: %d %v\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	if pid := p.started("api"); pid != st.Pid {
		t.Fatalf("restart --kube: up started pid %d, the command said %d", pid, st.Pid)
	}
	pid := st.Pid

	// A lease through the relay: a session on the warm process.
	e := startActctl(t, cwd, home, append(kube, "proxy", "--lease", "api")...)
	e.initialize()
	m := e.call(1, acp.AgentMethodSessionNew, acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	var s acp.NewSessionResponse
	if err := json.Unmarshal(m["result"], &s); err != nil || !strings.HasPrefix(string(s.SessionId), "sess-"+strconv.Itoa(pid)+"-") {
		t.Fatalf("session/new through --kube on pid %d: %s", pid, m)
	}
	e.close()

	for i, c := range k.calls(t) {
		if c != wantArgv {
			t.Errorf("kubectl run %d got %q, want %q", i, c, wantArgv)
		}
	}
	k.assertGone(t)
}

// kubePromptStreams: a prompt's reply reaches the terminal while the
// turn still runs (the test agent waits for a file the test creates
// only once it has read "waiting").
func kubePromptStreams(t *testing.T, cwd, home string, kube []string) {
	t.Helper()
	gate := filepath.Join(t.TempDir(), "go")
	cmd := exec.Command(actctlBin, append(kube, "prompt", "triage", "-p", "wait "+gate)...)
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr testutil.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	var out []string
	for sc.Scan() && !strings.Contains(sc.Text(), "waiting") {
		out = append(out, sc.Text())
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := cmd.Wait(); err != nil || !strings.Contains(strings.Join(out, "\n"), "waited") {
		t.Fatalf("prompt --kube: %v\n%s\n%s", err, strings.Join(out, "\n"), stderr.String())
	}
}

// kubePromptInterrupted: SIGINT on a prompt to a service through the
// relay ends it with 130, and the pod's up cancels the turn (the relay
// closed the socket): its task is logged cancelled.
func kubePromptInterrupted(t *testing.T, cwd, home string, kube []string) {
	t.Helper()
	cmd := exec.Command(actctlBin, append(kube, "prompt", "api", "-p", "wait "+filepath.Join(t.TempDir(), "never"))...)
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr testutil.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && !strings.Contains(sc.Text(), "waiting") {
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 130 {
		t.Fatalf("prompt --kube after SIGINT: %v\n%s", err, stderr.String())
	}
	// Explicit synchronisation: follow api's task log until the line
	// comes (the deadline only keeps a broken build from hanging).
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var got tasklog.Summary
	path := filepath.Join(home, "instances", "api", "logs", "actctl.log")
	if err := tasklog.Follow(ctx, path, 0, func(l []byte) {
		if s, err := tasklog.ParseSummary(l); err == nil && strings.HasPrefix(s.Prompt, "wait ") {
			got = s
			cancel()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if got.StopReason != "cancelled" {
		t.Fatalf("the interrupted task: %+v", got)
	}
}

// kubeLogsTest: logs through the relay, the summary lines, one task's
// messages, and -f printing a task logged while it follows, ended by
// SIGINT (exit 0).
func kubeLogsTest(t *testing.T, cwd, home string, kube []string) {
	t.Helper()
	r := actctl(t, cwd, home, append(kube, "logs", "triage", "-o", "json")...)
	var last tasklog.Summary
	for l := range strings.Lines(r.Stdout) {
		if err := json.Unmarshal([]byte(l), &last); err != nil {
			t.Fatalf("logs --kube -o json: %v\n%s", err, r.Stdout)
		}
	}
	if r.Code != 0 || !strings.HasPrefix(last.Prompt, "wait ") || last.StopReason != "end_turn" {
		t.Fatalf("logs --kube -o json: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := actctl(t, cwd, home, append(kube, "logs", "triage")...); r.Code != 0 || !strings.Contains(r.Stdout, "#"+strconv.FormatUint(last.Task, 10)+" ") {
		t.Fatalf("logs --kube: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = actctl(t, cwd, home, append(kube, "logs", "triage", "--task", strconv.FormatUint(last.Task, 10))...)
	if r.Code != 0 || !strings.Contains(r.Stdout, "waited") {
		t.Fatalf("logs --kube --task: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	// A tool agent up holds on demand: its tasks are up's to show too.
	if r := actctl(t, cwd, home, append(kube, "logs", "helper")...); r.Code != 0 || r.Stderr != "no tasks logged for helper yet (tasks are logged by actctl up)\n" {
		t.Fatalf("logs --kube of an agent up holds on demand: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	// Ctrl-C at a terminal: SIGINT to the whole process group.
	cmd := exec.Command(actctlBin, append(kube, "logs", "-f", "triage", "-o", "json")...)
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr testutil.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	upTo := func(s string) {
		t.Helper()
		for sc.Scan() {
			if strings.Contains(sc.Text(), s) {
				return
			}
		}
		t.Fatalf("logs -f --kube ended before %s: %v\n%s", s, sc.Err(), stderr.String())
	}
	upTo(`"task":` + strconv.FormatUint(last.Task, 10) + ",")
	if r := actctl(t, cwd, home, append(kube, "prompt", "triage", "-p", "hello")...); r.Code != 0 {
		t.Fatalf("prompt --kube: %d\n%s", r.Code, r.Stderr)
	}
	upTo(`"prompt":"hello"`)
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil || stderr.String() != "" {
		t.Fatalf("logs -f --kube after SIGINT to its group: %v\n%s", err, stderr.String())
	}
}

// TestKubeBadInput: a failing kubectl, a missing one, --kube with a
// local-only command and --kube-* without --kube: each said with what to
// do, nothing written and nothing left running.
func TestKubeBadInput(t *testing.T) {
	k := installFakeKubectl(t)
	root, home := upWorkspace(t)
	before := listFiles(t, root)

	t.Setenv("FAKE_KUBECTL_FAIL", `Error from server (NotFound): pods "actctl-x-0" not found`)
	r := actctl(t, root, home, "--kube", "--kube-context", "prod", "--kube-pod", "actctl-x-0", "status")
	want := "actctl: kubectl exec failed (kubectl --context prod exec -i actctl-x-0 -- actctl control-relay -C " + deploy.WorkspaceDir + "): exit status 1: " +
		"unrelated first line\nError from server (NotFound): pods \"actctl-x-0\" not found; check the context, namespace and pod (--kube-context, --kube-namespace, --kube-pod) and that you may create pods/exec there\n"
	if r.Code != 1 || r.Stderr != want {
		t.Fatalf("failing kubectl: %d\n%s\nwant\n%s", r.Code, r.Stderr, want)
	}
	k.assertGone(t)
	t.Setenv("FAKE_KUBECTL_FAIL", "")

	for _, tc := range []struct {
		args []string
		path string // PATH, when not the fake's
		code int
		msg  string
	}{
		{[]string{"--kube", "status"}, "", 2, "actctl: --kube: the default pod is named after deploy.kubernetes.name, else the repository's remote \"origin\", and this workspace has neither: give --kube-pod\n"},
		{[]string{"--kube", "--kube-pod", "p", "prompt", "api", "-p", "hi"}, t.TempDir(), 1, "actctl: --kube needs kubectl: kubectl is not in PATH; install it (https://kubernetes.io/docs/tasks/tools/) or put it in PATH\n"},
		{[]string{"--kube", "apply"}, "", 2, "actctl: --kube: apply works on this machine only; --kube goes with status, logs, prompt, start, stop, restart and proxy --lease\n"},
		{[]string{"run", "api", "-p", "hi", "--kube"}, "", 2, "actctl: --kube: run works on this machine only; --kube goes with status, logs, prompt, start, stop, restart and proxy --lease\n"},
		{[]string{"--kube", "proxy", "api"}, "", 2, "actctl: proxy: --kube goes with --lease: a pod's warm agent\n"},
		{[]string{"--kube", "status", "--exit-code"}, "", 2, "actctl: status: --exit-code reports the files' sync status, which --kube does not show\n"},
		{[]string{"--kube-pod", "p", "status"}, "", 2, "actctl: --kube-pod goes with --kube\n"},
	} {
		env := []string{}
		if tc.path != "" {
			env = append(env, "PATH="+tc.path)
		}
		r := actctlEnv(t, root, home, env, tc.args...)
		if r.Code != tc.code || r.Stderr != tc.msg || r.Stdout != "" {
			t.Errorf("%v: %d\n%s%s\nwant %d %s", tc.args, r.Code, r.Stdout, r.Stderr, tc.code, tc.msg)
		}
	}
	// Outside a workspace the default pod has no name.
	nowhere := t.TempDir()
	r = actctl(t, nowhere, filepath.Join(nowhere, "home"), "--kube", "status")
	if r.Code != 1 || !strings.HasPrefix(r.Stderr, "actctl: --kube: the default pod is named after the workspace (or give --kube-pod): no actant.cue found") {
		t.Errorf("--kube outside a workspace: %d\n%s", r.Code, r.Stderr)
	}
	if got := listFiles(t, nowhere); len(got) != 0 {
		t.Errorf("--kube outside a workspace wrote %v", got)
	}
	if got := listFiles(t, root); strings.Join(got, " ") != strings.Join(before, " ") {
		t.Errorf("files changed: %v, were %v", got, before)
	}
	if n := len(k.calls(t)); n != 1 {
		t.Errorf("kubectl ran %d times, want once (the failing run)", n)
	}
}

// TestKubeDeployDefaults: with deploy.kubernetes in actant.cue, --kube
// reaches the pod apply's StatefulSet runs (its name) in its namespace;
// the flags win over both.
func TestKubeDeployDefaults(t *testing.T) {
	installFakeKubectl(t)
	root, home := upWorkspace(t)
	f, err := os.OpenFile(filepath.Join(root, "actant.cue"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, `deploy: kubernetes: {namespace: "agents", name: "team", image: "img@sha256:`+strings.Repeat("a", 64)+`", repo: {url: "https://example.com/r.git", ref: "main"}, storage: size: "1Gi", secret: "s"}`)
	f.Close()
	t.Setenv("FAKE_KUBECTL_FAIL", "no")
	for _, tc := range []struct {
		args []string
		argv string
	}{
		{nil, "kubectl -n agents exec -i actctl-team-0 --"},
		{[]string{"--kube-namespace", "ops", "--kube-pod", "p-0"}, "kubectl -n ops exec -i p-0 --"},
	} {
		r := actctl(t, root, home, append(append([]string{"--kube"}, tc.args...), "status")...)
		if r.Code != 1 || !strings.Contains(r.Stderr, "kubectl exec failed ("+tc.argv) {
			t.Errorf("--kube %v status: %d\n%s\nwant argv %s", tc.args, r.Code, r.Stderr, tc.argv)
		}
	}
}
