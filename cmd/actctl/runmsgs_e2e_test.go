package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/acptestagent"
)

// msgWorkspace is a workspace with agent helper on the scripted backend,
// env (CUE fields) added to the backend's environment.
func msgWorkspace(t *testing.T, env string) (root, home string) {
	t.Helper()
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, "package actant\n"+scriptedBackend(t, env)+`
backends: missing: {
	modes: ["acp"]
	acp: command: "actctl-no-such-backend"
	files: instructions: ["MISSING.md"]
}
templates: std: backend: "scripted"
templates: broken: backend: "missing"
agents: helper: template: "std"
agents: ghost: {template: "broken", workDir: "ghost"}
`)
	if err := os.MkdirAll(filepath.Join(root, "ghost"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root, home
}

// lastSummary decodes the last line of a run -o json output.
func lastSummary(t *testing.T, out string) runSummary {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var s runSummary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil || s.Type != "summary" {
		t.Fatalf("no summary at the end of:\n%s", out)
	}
	return s
}

// TestRunAgentErrorWords: an agent's error data is printed as the
// agent's words, never a Go map, and an auth error names the agent's
// authMethods from initialize (else those its data lists), in text and in
// -o json's summary (issue #22 item 16).
func TestRunAgentErrorWords(t *testing.T) {
	root, home := msgWorkspace(t, acptestagent.AuthMethodsVar+`: "1"`)
	for _, tc := range []struct {
		prompt string
		want   []string
	}{
		{"autherror-data", []string{"the turn failed: Authentication required: " + acptestagent.LoginHint,
			"log in with one of the agent's authMethods: Log in with the test agent (test-login); API key (test-key, set TEST_API_KEY)"}},
		{"error-data", []string{"the turn failed: Internal error: " + acptestagent.ErrorDetails}},
	} {
		r := actctl(t, root, home, "run", "helper", "-p", tc.prompt)
		for _, w := range tc.want {
			if r.Code != 1 || !strings.Contains(r.Stderr, w) {
				t.Errorf("run %s: exit %d, stderr lacks %q:\n%s", tc.prompt, r.Code, w, r.Stderr)
			}
		}
		if strings.Contains(r.Stderr, "map[") || strings.Contains(r.Stderr, "data-login") {
			t.Errorf("run %s: stderr shows the data as Go, or the data's methods beside initialize's:\n%s", tc.prompt, r.Stderr)
		}
		r = actctl(t, root, home, "-o", "json", "run", "helper", "-p", tc.prompt)
		if s := lastSummary(t, r.Stdout); r.Code != 1 || s.ExitCode != 1 || !strings.Contains(s.Error, tc.want[0]) {
			t.Errorf("run -o json %s: exit %d, summary %+v", tc.prompt, r.Code, s)
		}
	}
	// No authMethods in initialize: the ones the error's data lists.
	root, home = msgWorkspace(t, "")
	r := actctl(t, root, home, "run", "helper", "-p", "autherror-data")
	if r.Code != 1 || !strings.Contains(r.Stderr, "authMethods: Log in (data) (data-login)") || strings.Contains(r.Stderr, "map[") {
		t.Errorf("authMethods from the data: exit %d:\n%s", r.Code, r.Stderr)
	}
}

// TestRunJSONSummaryNoSession: run -o json ends with a summary giving the
// exit code and the error when no session started (a backend that is not
// installed, an agent that is not declared); the undeclared one writes
// nothing, and nothing is left running (no backend ever started) (issue
// #22 item 16).
func TestRunJSONSummaryNoSession(t *testing.T) {
	root, home := msgWorkspace(t, "")
	for _, tc := range []struct {
		agent string
		code  int
		msg   string
	}{
		{"nobody", 1, `"nobody"`},
		{"ghost", 1, `backend "actctl-no-such-backend" could not be started`},
	} {
		r := actctl(t, root, home, "-o", "json", "run", tc.agent, "-p", "hello")
		s := lastSummary(t, r.Stdout)
		if r.Code != tc.code || s.ExitCode != tc.code || s.Agent != tc.agent || !strings.Contains(s.Error, tc.msg) || s.StopReason != "" {
			t.Errorf("run %s: exit %d, summary %+v (want exit %d, error %q)", tc.agent, r.Code, s, tc.code, tc.msg)
		}
		if !strings.Contains(r.Stderr, tc.msg) {
			t.Errorf("run %s: stderr %q lacks %q", tc.agent, r.Stderr, tc.msg)
		}
		if got := listFiles(t, root); tc.agent == "nobody" && (len(got) != 1 || got[0] != "actant.cue") {
			t.Errorf("an undeclared agent wrote files: %v", got)
		}
	}
}

// TestChatGoesOnAfterErrorAnswer: a turn the agent answers with an error
// is reported and chat takes the next line in the same session, instead
// of ending (issue #22 item 16).
func TestChatGoesOnAfterErrorAnswer(t *testing.T) {
	root, home := msgWorkspace(t, "")
	cmd := exec.Command(actctlBin, "chat", "helper")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	cmd.Stdin = strings.NewReader("session\nerror-data\nsession\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chat: %v\n%s\n%s", err, out, stderr.String())
	}
	if !strings.Contains(stderr.String(), "actctl: chat: backend") || !strings.Contains(stderr.String(), acptestagent.ErrorDetails) {
		t.Errorf("the error answer is not reported:\n%s", stderr.String())
	}
	if !strings.Contains(string(out), " turn 1 ") || !strings.Contains(string(out), " turn 3 ") {
		t.Errorf("chat did not go on in the same session after the error:\n%s", out)
	}
}
