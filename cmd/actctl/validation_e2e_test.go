package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/zed"
)

// TestIDEOnlyAgent: a Cursor tool agent is valid and offers open only;
// a custom backend given an acp command is valid; `actctl zed` leaves the
// Cursor agent out, and `actctl proxy` on it (declared, or created with -t)
// answers the editor's initialize with an error naming what it supports,
// exits 1 and writes nothing.
func TestIDEOnlyAgent(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"actant.cue": validHeader + `
backends: custom: {acp: command: "my-acp", files: instructions: ["MINE.md"]}
templates: ide: backend: "cursor"
templates: mine: backend: "custom"
agents: ed: template: "ide"
agents: me: {template: "mine", workDir: "sub"}
`})
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := actctl(t, dir, home, "validate"); r.Code != 0 {
		t.Fatalf("validate: exit %d: %s", r.Code, r.Stderr)
	}
	z := actctl(t, dir, home, "zed")
	var out struct {
		AgentServers map[string]zed.Entry `json:"agent_servers"`
	}
	if err := json.Unmarshal([]byte(z.Stdout), &out); err != nil {
		t.Fatalf("zed: %v: %s %s", err, z.Stdout, z.Stderr)
	}
	if _, ok := out.AgentServers["ed"]; ok {
		t.Errorf("zed lists the IDE-only agent: %s", z.Stdout)
	}
	if _, ok := out.AgentServers["me"]; !ok {
		t.Errorf("zed leaves out the custom ACP agent: %s", z.Stdout)
	}
	for _, args := range [][]string{{"proxy", "ed"}, {"proxy", "fresh", "-t", "ide"}} {
		cmd := exec.Command(actctlBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n")
		stdout, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("%v: %v, want exit 1", args, err)
		}
		var resp struct {
			ID    int `json:"id"`
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(stdout, &resp); err != nil || resp.ID != 1 {
			t.Fatalf("%v: initialize not answered with an error: %q", args, stdout)
		}
		for _, w := range []string{"does not offer proxy", `backend "cursor" has no acp command (it supports open)`, "actctl open"} {
			if !strings.Contains(resp.Error.Message, w) {
				t.Errorf("%v: error lacks %q: %s", args, w, resp.Error.Message)
			}
		}
	}
	if got := listFiles(t, dir); len(got) != 1 {
		t.Errorf("proxy wrote files: %v", got)
	}
}

// A backend writing actant.cue and aliased workDirs are
// testdata/script/apply_protected_target.txtar and apply_aliased_workdirs.txtar.
