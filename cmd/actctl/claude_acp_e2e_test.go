//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/testutil"
)

// claudeACPVersion is the claude-agent-acp adapter the test below runs;
// .ci/run installs it (docs/testing-runtime.md, "The real Claude adapter").
const claudeACPVersion = "0.101.0"

// claudeACP is the adapter's command: $ACTCTL_CLAUDE_ACP, else where
// .ci/run installs it; "" when neither exists.
func claudeACP() string {
	if p := os.Getenv("ACTCTL_CLAUDE_ACP"); p != "" {
		return p
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	p := filepath.Join(cache, "actctl-npm", "claude-agent-acp@"+claudeACPVersion, "node_modules", ".bin", "claude-agent-acp")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// TestEmployeeStaysItselfClaude: an employee reached from an editor
// through `actctl proxy` is itself, with the real claude-agent-acp,
// offline (no key, no model): the session reads the instance's
// .claude/settings.json (the model and mode the employee's template set),
// not the project's, because the instance is the session cwd and the
// project one of its additionalDirectories. The same agent under
// sessionCwd "client" reads the project's (the adapter's defaults): the
// check tells the two apart. What needs a model turn (CLAUDE.md read,
// transcripts under the instance's key) is not seen here (issue #32
// item 9).
func TestEmployeeStaysItselfClaude(t *testing.T) {
	acp := claudeACP()
	if acp == "" {
		testutil.Missing(t, "claude-agent-acp@%s is not installed: .ci/run installs it with npm, or set ACTCTL_CLAUDE_ACP (docs/testing-runtime.md)", claudeACPVersion)
	}
	for _, c := range []struct {
		name, policy, model, mode string
	}{{"workspace+client", "", "haiku", "plan"}, {"client", `archetypes: employee: sessionCwd: "client"`, "default", ""}} {
		t.Run(c.name, func(t *testing.T) {
			ws, proj, home, userHome := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "actant"), t.TempDir()
			writeFiles(t, ws, map[string]string{"actant.cue": fmt.Sprintf(`package actant

backends: "claude-code": acp: command: %q
templates: emp: {
	backend: "claude-code", archetype: "employee", permissions: "readonly"
	settings: "claude-code": model: "haiku"
	schedule: heartbeat: {interval: "1h", prompt: "check"}
}
agents: rel: template: "emp"
%s
`, acp, c.policy)})
			if r := actctl(t, ws, home, "apply"); r.Code != 0 {
				t.Fatalf("apply: %d %s", r.Code, r.Stderr)
			}
			got := claudeSession(t, ws, proj, home, userHome)
			if got["model"] != c.model || c.mode != "" && got["mode"] != c.mode {
				t.Errorf("session options %v, want model %q mode %q", got, c.model, c.mode)
			}
		})
	}
}

// claudeSession runs `actctl proxy rel` from proj, initializes and opens
// a session in proj, and returns the session's config options (id ->
// current value) from the answer to session/new.
func claudeSession(t *testing.T, ws, proj, home, userHome string) map[string]string {
	t.Helper()
	cmd := exec.Command(actctlBin, "-C", ws, "proxy", "rel")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "HOME="+userHome, "IS_SANDBOX=1", "NO_COLOR=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if _, ok := testutil.Within(done); !ok {
			cmd.Process.Kill()
			t.Errorf("proxy did not end after stdin closed:\n%s", stderr.String())
		}
	}()
	lines := bufio.NewScanner(out)
	lines.Buffer(nil, 1<<24)
	answer := func(id int) json.RawMessage {
		for lines.Scan() {
			var m struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(lines.Bytes(), &m) == nil && m.ID != nil && *m.ID == id {
				if m.Error != nil {
					t.Fatalf("request %d: %s\n%s", id, m.Error, stderr.String())
				}
				return m.Result
			}
		}
		t.Fatalf("no answer to request %d:\n%s", id, stderr.String())
		return nil
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	answer(1)
	p, _ := json.Marshal(proj)
	fmt.Fprintf(in, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%s,"mcpServers":[]}}`+"\n", p)
	var res struct {
		ConfigOptions []struct {
			ID           string `json:"id"`
			CurrentValue string `json:"currentValue"`
		} `json:"configOptions"`
	}
	if err := json.Unmarshal(answer(2), &res); err != nil {
		t.Fatal(err)
	}
	opts := map[string]string{}
	for _, o := range res.ConfigOptions {
		opts[o.ID] = o.CurrentValue
	}
	return opts
}
