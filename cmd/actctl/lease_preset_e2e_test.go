package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// TestLeasePresetE2E: through `proxy --lease`, an editor that offers
// writes and terminals never gets a readonly service's write or command,
// nor a standard one's command: actctl answers them with its refusal (an
// editor that was asked would leave the turn waiting here, as this one
// answers nothing), and nothing is written (issue #30 item 6).
func TestLeasePresetE2E(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, "")+`
templates: {
	ro: {backend: "scripted", archetype: "service", permissions: "readonly"}
	st: {backend: "scripted", archetype: "service", permissions: "standard"}
}
agents: {
	ro: template: "ro"
	st: template: "st"
}
`)
	p := startUp(t, root, home, "ro", "st")
	for range 2 { // in either order
		p.waitLine(`up: (ro|st): process:start pid`)
	}
	project := t.TempDir()
	notes := filepath.Join(project, "notes.txt")
	for agent, prompts := range map[string]map[string]string{
		"ro": {"write " + notes + " pwned": `"message":"actctl refuses fs/write_text_file: this agent's permissions`, "term touch " + notes: `"message":"actctl refuses terminal/create: this agent's permissions`},
		"st": {"term touch " + notes: `"message":"actctl refuses terminal/create: this agent's permissions`},
	} {
		e := startProxy(t, root, home, agent, "--lease")
		caps := acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true}
		if m := e.call(0, acp.AgentMethodInitialize, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber, ClientCapabilities: caps}); m["error"] != nil {
			t.Fatalf("initialize: %s", m["error"])
		}
		var s acp.NewSessionResponse
		if err := json.Unmarshal(e.call(1, acp.AgentMethodSessionNew, acp.NewSessionRequest{Cwd: project, McpServers: []acp.McpServer{}})["result"], &s); err != nil {
			t.Fatal(err)
		}
		id := 2
		for prompt, want := range prompts {
			said, lines := e.promptText(id, s.SessionId, prompt)
			id++
			if !strings.Contains(said, want) {
				t.Errorf("%s: %q: the agent heard %q, want %q", agent, prompt, said, want)
			}
			for _, l := range lines {
				if strings.Contains(l, `"method":"fs/write_text_file"`) || strings.Contains(l, `"method":"terminal/create"`) {
					t.Errorf("%s: the editor was asked: %s", agent, l)
				}
			}
		}
		e.close()
	}
	if _, err := os.Stat(notes); err == nil {
		t.Errorf("%s written", notes)
	}
	p.stop()
}
