package proxy

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionModeSet: with Options.Mode, the backend's answer to
// session/new is held while the proxy puts the session in the mode
// (session/set_mode, answered to the proxy alone); the client then gets
// the answer, byte for byte but for currentModeId, followed by the update
// the backend sent about the session meanwhile. An agent that refuses the
// mode leaves the session in its own, with one warning; its answer still
// reaches the client (issue #32 item 8).
func TestSessionModeSet(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		modes := []string{"modes"}
		want := `"currentModeId":"plan"`
		if refuse {
			modes, want = append(modes, "refuse-mode"), `"currentModeId":"default"`
		}
		o, dir := agentOptions(t, modes...)
		o.Mode = "plan"
		c := startClient(t, context.Background(), o, dir)
		c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
		c.recvMsg()
		c.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + jsonStr(dir) + `,"mcpServers":[]}}`)
		answer, update := c.recv(), c.recv()
		wantAnswer := `{"jsonrpc":"2.0","id":2,"result":{"sessionId":"sess-1","modes":{` + want + `,"availableModes":[{"id":"default","name":"Default"},{"id":"plan","name":"Plan"}]},"_meta":{"x":1}}}` + "\n"
		if string(answer) != wantAnswer || !strings.Contains(string(update), "available_commands_update") {
			t.Errorf("refuse %v: the client got\n%s%s\nwant\n%s then the update", refuse, answer, update, wantAnswer)
		}
		c.send(prompt("3", "hello"))
		if m, l := c.recvMsg(); string(m.ID) != "3" {
			t.Errorf("refuse %v: after the mode, the prompt got %s", refuse, l)
		}
		c.in.Close()
		for _, l := range c.rest() {
			if strings.Contains(string(l), "set-mode") {
				t.Errorf("refuse %v: the client saw %s", refuse, l)
			}
		}
		c.wait()
		recv := transcript(t, filepath.Join(dir, "recv.jsonl"))
		setMode := 0
		for _, l := range recv {
			if s := string(l); strings.Contains(s, `"method":"session/set_mode"`) && strings.Contains(s, `"modeId":"plan"`) && strings.Contains(s, `"sessionId":"sess-1"`) {
				setMode++
			}
		}
		warned := strings.Count(c.stderr.String(), `warning: the agent did not take session mode "plan"`)
		if setMode != 1 || warned != map[bool]int{false: 0, true: 1}[refuse] {
			t.Errorf("refuse %v: %d set_mode sent, %d warnings:\n%s", refuse, setMode, warned, c.stderr)
		}
	}
}
