package up

import (
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/launch"
)

// TestDigestCoversLaunch: every part of what the process is started with
// changes the digest; the install hint (a message) does not.
func TestDigestCoversLaunch(t *testing.T) {
	base := func() acpclient.Options {
		return acpclient.Options{Launch: launch.Launch{Command: "agent", Args: []string{"--acp"}, Env: map[string]string{"K": "v"}, Cwd: "/w", Workspace: "/w"},
			ClientCwd: "/w", Rule: acpclient.AllowReads, Mode: "ask", Preset: acpclient.AllowReads,
			MCPServers: []acp.McpServer{{Stdio: &acp.McpServerStdio{Name: "fs", Command: "fs", Args: []string{}, Env: []acp.EnvVariable{}}}}}
	}
	want := Digest(base(), "sched")
	for name, change := range map[string]func(*acpclient.Options){
		"command":    func(o *acpclient.Options) { o.Launch.Command = "other" },
		"args":       func(o *acpclient.Options) { o.Launch.Args = nil },
		"env":        func(o *acpclient.Options) { o.Launch.Env = map[string]string{"K": "w"} },
		"cwd":        func(o *acpclient.Options) { o.Launch.Cwd = "/x" },
		"sessionCwd": func(o *acpclient.Options) { o.Launch.SessionCwd = "workspace" },
		"mcp":        func(o *acpclient.Options) { o.MCPServers[0].Stdio.Command = "fs2" },
		"mcp env": func(o *acpclient.Options) {
			o.MCPServers[0].Stdio.Env = []acp.EnvVariable{{Name: "T", Value: "1"}}
		},
		"rule":   func(o *acpclient.Options) { o.Rule = acpclient.AllowAll },
		"mode":   func(o *acpclient.Options) { o.Mode = "code" },
		"preset": func(o *acpclient.Options) { o.Preset = acpclient.AllowAll },
	} {
		o := base()
		change(&o)
		if Digest(o, "sched") == want {
			t.Errorf("%s: the digest did not change", name)
		}
	}
	o := base()
	o.Launch.Install = "npm i -g agent"
	if Digest(o, "sched") != want {
		t.Error("the install hint changed the digest")
	}
	if Digest(base(), "other sched") == want {
		t.Error("extra did not change the digest")
	}
}
