package acptestagent

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	acp "github.com/coder/acp-go-sdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func init() {
	// delegate NAME [NAME...]   an agent whose tool starts its MCP servers
	//                   with an environment of its own, as Codex does
	//                   (only the variables a server lists): it starts
	//                   the "actctl" server of the .mcp.json in its
	//                   process's directory with PATH and HOME alone,
	//                   calls run_agent {agent: NAME, prompt: "delegate
	//                   <the other names>"} and says "delegate NAME:
	//                   <the reply>", or "delegate NAME: error: <text>"
	//                   for a tool error; without a NAME, "delegate: done"
	register("delegate", delegate)
}

func delegate(t *Turn) (acp.StopReason, error) {
	if len(t.Words) < 2 {
		t.Say("delegate: done")
		return acp.StopReasonEndTurn, nil
	}
	name, rest := t.Words[1], append([]string{"delegate"}, t.Words[2:]...)
	reply, err := callRunAgent(t, name, strings.Join(rest, " "))
	if err != nil {
		t.Say(fmt.Sprintf("delegate %s: error: %v", name, err))
	} else {
		t.Say(fmt.Sprintf("delegate %s: %s", name, reply))
	}
	return acp.StopReasonEndTurn, nil
}

// callRunAgent runs agent with prompt through the actctl MCP server of the
// .mcp.json in the working directory, started with a bare environment.
func callRunAgent(t *Turn, agent, prompt string) (string, error) {
	b, err := os.ReadFile(".mcp.json")
	if err != nil {
		return "", err
	}
	var f struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return "", fmt.Errorf(".mcp.json: %w", err)
	}
	s, ok := f.MCPServers["actctl"]
	if !ok {
		return "", fmt.Errorf(".mcp.json has no actctl server")
	}
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "acptestagent", Version: "v0"}, nil).Connect(t.TCtx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return "", fmt.Errorf("start %s: %w", filepath.Base(s.Command), err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.TCtx, &mcp.CallToolParams{Name: "run_agent", Arguments: map[string]any{"agent": agent, "prompt": prompt}})
	if err != nil {
		return "", err
	}
	if res.IsError {
		var text []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		return "", fmt.Errorf("%s", strings.Join(text, "\n"))
	}
	var out struct {
		Reply string `json:"reply"`
	}
	sc, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(sc, &out); err != nil {
		return "", err
	}
	return out.Reply, nil
}
