package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/testutil"
)

// TestSDKClientThroughActctlProxy: the SDK's example client starts
// `actctl proxy AGENT -C ROOT` as its agent (as Zed would), and actctl
// starts the SDK's example agent as the backend: a full turn, with the
// permission allowed and then rejected, tool call before permission.
func TestSDKClientThroughActctlProxy(t *testing.T) {
	bin := testutil.SDKExamples(t)
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, root, map[string]string{
		"actant.cue": `package actant
backends: sdk: {
	modes: ["acp"]
	acp: command: "` + filepath.Join(bin, "agent") + `"
	files: instructions: ["AGENTS.md"]
}
templates: t: backend: "sdk"
agents: helper: template: "t"
`,
		"AGENTS.md": "# My own agents file\n",
	})
	for _, tc := range []struct{ choice, want string }{
		{"1", "Perfect! I've successfully updated the configuration."},
		{"2", "I understand you prefer not to make that change."},
	} {
		cmd := exec.Command(filepath.Join(bin, "client"), actctlBin, "proxy", "helper", "-C", root)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "ACTANT_HOME="+home)
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
				t.Fatalf("option %s: client: %v\n%s\n%s", tc.choice, err, &stdout, &stderr)
			}
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("option %s: client did not finish\n%s\n%s", tc.choice, &stdout, &stderr)
		}
		out := stdout.String()
		for _, w := range []string{"Connected to agent", "Created session", "Permission requested", tc.want, "Agent completed"} {
			if !strings.Contains(out, w) {
				t.Errorf("option %s: client output lacks %q:\n%s\nstderr:\n%s", tc.choice, w, out, &stderr)
			}
		}
		if i, j := strings.Index(out, "🔧"), strings.Index(out, "Permission requested"); i < 0 || j < i {
			t.Errorf("option %s: tool call not before the permission request:\n%s", tc.choice, out)
		}
	}
	if !hasText(filepath.Join(root, "AGENTS.md"), "# My own agents file\n") || !hasText(filepath.Join(root, "AGENTS.md"), "BEGIN actctl agent=helper") {
		t.Errorf("AGENTS.md not materialized beside the user's text")
	}
}
