package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// TestLeaseResumeFromNewProcess: a client that runs `proxy --lease` from
// a new process each time (acpx restarting its queue process) and sets no
// ACTCTL_LEASE_CLIENT gets its idle session back by the id it saved,
// with the conversation it had; a client declaring another name does not.
func TestLeaseResumeFromNewProcess(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home, "api")
	p.started("api")
	viaShell := func() *acpClient {
		// The shell is the proxy's parent: a new one for each client.
		return startLeaseCmd(t, exec.Command("sh", "-c", `"$0" proxy api --lease; exit $?`, actctlBin), root, home)
	}
	a := viaShell()
	resp, _ := exchange(a, 1, "session/new", `{"cwd":"`+t.TempDir()+`","mcpServers":[]}`, nil)
	var s acp.NewSessionResponse
	if err := json.Unmarshal(resp["result"], &s); err != nil || s.SessionId == "" {
		t.Fatalf("session/new: %s", resp)
	}
	sid := string(s.SessionId)
	if resp, _ := exchange(a, 2, "session/prompt", `{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"hello"}]}`, nil); resp["error"] != nil {
		t.Fatalf("prompt: %s", resp)
	}
	a.close()
	load := `{"sessionId":"` + sid + `","cwd":"/","mcpServers":[]}`
	named := startLease(t, root, home, "api", "ACTCTL_LEASE_CLIENT=other-editor")
	if resp, _ := exchange(named, 1, "session/load", load, nil); !strings.Contains(string(resp["error"]), "unknown session") {
		t.Errorf("session/load by a client of another name: %s", resp)
	}
	back := viaShell()
	// up sees the first proxy's connection end on its own: until then the
	// session is still that client's.
	for id := 1; ; id++ {
		resp, _ = exchange(back, id, "session/load", load, nil)
		if resp["error"] == nil || !strings.Contains(string(resp["error"]), "leased by another client") || id == 1000 {
			break
		}
	}
	if resp["error"] != nil {
		t.Fatalf("session/load by the same user from a new process: %s", resp)
	}
	resp, lines := exchange(back, 2000, "session/prompt", `{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"session"}]}`, nil)
	if resp["error"] != nil || !strings.Contains(chunks(lines), "turn 2") {
		t.Errorf("prompt after load: %s %q", resp, chunks(lines))
	}
	back.close()
}
