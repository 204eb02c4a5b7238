package main

import (
	"encoding/json"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// promptText sends session/prompt and returns the text of the agent's
// message chunks up to its answer, and every line the proxy wrote
// meanwhile.
func (c *acpClient) promptText(id int, sid acp.SessionId, text string) (said string, lines []string) {
	c.t.Helper()
	var out strings.Builder
	c.callSeeing(id, acp.AgentMethodSessionPrompt, acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock(text)}}, func(line []byte) {
		lines = append(lines, string(line))
		var m struct {
			Method string                  `json:"method"`
			Params acp.SessionNotification `json:"params"`
		}
		_ = json.Unmarshal(line, &m)
		if u := m.Params.Update.AgentMessageChunk; m.Method == acp.ClientMethodSessionUpdate && u != nil && u.Content.Text != nil {
			out.WriteString(u.Content.Text.Text)
		}
	})
	return out.String(), lines
}

// TestProxySessionMode: `proxy` puts each session in the preset's ACP
// mode as run, chat, up and leases do: the agent is set to it (it says
// so), the editor's answer to session/new carries it, and the proxy's own
// session/set_mode is never seen by the editor; without permissions the
// agent's mode stays; an agent that does not offer the mode is warned
// about once (issue #32 item 8).
func TestProxySessionMode(t *testing.T) {
	root, home := modesWorkspace(t, true)
	for agent, mode := range map[string]string{"reader": "plan", "helper": "acceptEdits", "boss": "bypassPermissions", "plain": "default"} {
		e := startProxy(t, root, home, agent)
		e.initialize()
		var s acp.NewSessionResponse
		m := e.call(1, acp.AgentMethodSessionNew, acp.NewSessionRequest{Cwd: root, McpServers: []acp.McpServer{}})
		if err := json.Unmarshal(m["result"], &s); err != nil || s.Modes == nil || string(s.Modes.CurrentModeId) != mode {
			t.Errorf("proxy %s: session/new answered %s, want mode %s", agent, m["result"], mode)
			continue
		}
		said, lines := e.promptText(2, s.SessionId, "mode")
		if said != "mode "+mode+"\n" {
			t.Errorf("proxy %s: the agent says %q, want mode %s\n%s", agent, said, mode, e.stderr)
		}
		for _, l := range lines {
			if strings.Contains(l, "actctl-proxy-set-mode") {
				t.Errorf("proxy %s: the editor saw the proxy's own request: %s", agent, l)
			}
		}
		e.close()
	}

	root, home = modesWorkspace(t, false)
	e := startProxy(t, root, home, "helper")
	e.initialize()
	e.newSession(1, root)
	e.newSession(2, root)
	e.close()
	if n := strings.Count(e.stderr.String(), `warning: the agent offers no session mode "acceptEdits" (it offers ask, code): its sessions run in its mode "ask"`); n != 1 {
		t.Errorf("%d warnings, want one:\n%s", n, e.stderr)
	}
}
