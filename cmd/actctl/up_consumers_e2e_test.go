package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/control"
)

// TestPromptServiceSessionMCP: a prompt to a service runs in a new session
// on its warm process with the agent's MCP servers, as its primary session
// has them (the new session had none: `mcp []`).
func TestPromptServiceSessionMCP(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, "")+`
mcpServers: fs: {command: "fs-one"}
mcpServers: docs: {command: "docs-two"}
templates: svc: {backend: "scripted", archetype: "service", mcpServers: ["fs", "docs"]}
agents: api: template: "svc"
`)
	p := startUp(t, root, home)
	p.started("api")
	r := actctl(t, root, home, "prompt", "api", "-p", "session")
	if r.Code != 0 {
		t.Fatalf("prompt: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	_, mcp, _ := strings.Cut(r.Stdout, " mcp ")
	if !strings.Contains(mcp, "fs-one") || !strings.Contains(mcp, "docs-two") {
		t.Fatalf("the prompt's session has mcp %q, want fs-one and docs-two\n%s", strings.TrimSpace(mcp), r.Stdout)
	}
}

// TestPromptStalledClientFreesAgent: a prompt client that stops reading
// its socket (`actctl prompt api -p ... | less` left unscrolled) does not
// freeze the warm agent: a second prompt to the same service completes,
// and the stalled client is disconnected, told why, while the agent's
// process lives on. (Its frames were written on the agent's read loop: the
// second prompt hung at session/new.) The deadlines below only turn a hang
// into a failure.
func TestPromptStalledClientFreesAgent(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, "")+`
templates: svc: {backend: "scripted", archetype: "service"}
agents: api: template: "svc"
`)
	p := startUp(t, root, home)
	pid := p.started("api")
	hang := time.Now().Add(2 * time.Minute)

	// The stalled client: it reads up to the flood's first chunk, so the
	// flood is under way, then reads nothing more.
	conn, err := net.Dial("unix", control.SocketPath(root))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetReadDeadline(hang); err != nil {
		t.Fatal(err)
	}
	req, _ := json.Marshal(control.Request{Op: control.OpPrompt, Agent: "api", Text: "flood 8000", Wait: true})
	if _, err := conn.Write(append(req, '\n')); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(conn)
	for {
		var f frameJSON
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("the flood's first chunk: %v\n%s", err, p.stderr())
		}
		if f.Kind == "message" && strings.Contains(string(f.Data), "xxxxxxxx") {
			break
		}
	}

	ctx, cancel := context.WithDeadline(context.Background(), hang)
	defer cancel()
	cmd := exec.CommandContext(ctx, actctlBin, "prompt", "api", "-p", "session")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "session ") {
		t.Fatalf("second prompt while a client is stalled: %v\n%s\nup:\n%s", err, out, p.stderr())
	}

	// Once its queue overflowed, the stalled client reads again: what
	// waited for it was dropped for a final frame saying why it was
	// disconnected.
	p.waitLine(`up: api: task \d+ cancelled: the client stopped reading its output`)
	var last frameJSON
	for {
		var f frameJSON
		if err := dec.Decode(&f); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("read the stalled client's frames: %v", err)
			}
			break
		}
		last = f
	}
	if !last.Done || !strings.Contains(last.Error, "stopped reading") {
		t.Fatalf("the stalled client's last frame %+v, want done with why it was disconnected", last)
	}
	if st := upStatus(t, root, home)["api"]; st.Process == nil || st.Process.PID != pid || st.Process.Status != "running" {
		t.Fatalf("api after the stalled client: %+v, want running pid %d\n%s", st.Process, pid, p.stderr())
	}
}

// frameJSON is a control frame as the socket carries it.
type frameJSON struct {
	Kind  string          `json:"kind"`
	Data  json.RawMessage `json:"data"`
	Done  bool            `json:"done"`
	Error string          `json:"error"`
}
