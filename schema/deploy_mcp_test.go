package schema

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPInstall: an MCP server's install is one command, refused at its
// field otherwise and on a remote server; a local server an agent on
// Kubernetes or GitHub Actions uses without an install, whose command
// neither the image nor the runner holds, is warned about at the server,
// naming the command and where it must be provided; one with an install,
// one the base holds (npx), or one run on systemd alone is not.
func TestMCPInstall(t *testing.T) {
	const base = `package actant
deploy: {github: {actctl: "v1.0.0"}, systemd: {}, kubernetes: {namespace: "a", image: "i@sha256:0", secret: "s", repo: url: "https://x/y"}}
mcpServers: gh: {SERVER}
templates: emp: {backend: "claude-code", archetype: "employee", mcpServers: ["gh"], schedule: heartbeat: {interval: "30m", prompt: "look"}}
agents: e: {template: "emp", deploy: engines: [ENGINES]}
agents: d: {template: "emp", deploy: engines: ["systemd"]}
`
	for _, tc := range []struct{ server, engines, err, warn string }{
		{`command: "github-mcp-server"`, `"kubernetes", "github"`, ``,
			`actant.cue:3:13: warning: mcpServers.gh: MCP server "gh" runs "github-mcp-server", which no install provides: the image (deploy.kubernetes) and the workflow's runner (deploy.github) must provide it, or the server does not start there; give mcpServers.gh.install`},
		{`command: "github-mcp-server"`, `"github"`, ``, `the workflow's runner (deploy.github) must provide it`},
		{`command: "github-mcp-server"`, `"systemd"`, ``, ``},
		{`command: "npx", args: ["-y", "@x/server"]`, `"kubernetes"`, ``, ``},
		{`command: "github-mcp-server", install: "npm install -g gh-mcp"`, `"kubernetes", "github"`, ``, ``},
		{`command: "github-mcp-server", install: "curl -fsSL https://x | sh"`, `"kubernetes"`, `mcpServers.gh.install: MCP server "gh": install "curl -fsSL https://x | sh" is not one command: it holds '|' outside quotes`, ``},
		{`url: "https://x/mcp", install: "npm install -g x"`, `"kubernetes"`, `mcpServers.gh.install: MCP server "gh" is remote (url): it has nothing to install`, ``},
	} {
		src := strings.NewReplacer("SERVER", tc.server, "ENGINES", tc.engines).Replace(base)
		cfg, err := LoadDir(writeWorkspace(t, map[string]string{"actant.cue": src}), filepath.Join(t.TempDir(), "home"))
		if tc.err != "" {
			var ds Diagnostics
			if !errors.As(err, &ds) || len(ds.Errors()) != 1 || !strings.Contains(ds.Errors()[0].String(), tc.err) {
				t.Errorf("%+v: %v, want one error %s", tc, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		var got []string
		for _, w := range cfg.Warnings {
			if strings.Contains(w.String(), "MCP server") {
				got = append(got, w.String())
			}
		}
		if all := strings.Join(got, "\n"); (tc.warn == "") != (all == "") || !strings.Contains(all, tc.warn) {
			t.Errorf("%+v: warnings %q, want %q", tc, all, tc.warn)
		}
	}
}

// TestBaseCommand: a command the recipe's runtime image (node on Debian
// slim, with git, ssh and curl) and GitHub's runners both hold, by name
// or under /bin or /usr/bin; jq, which the slim image lacks, and a path
// elsewhere are not.
func TestBaseCommand(t *testing.T) {
	for cmd, want := range map[string]bool{"npx": true, "/usr/bin/git": true, "/bin/sh": true, "sh": true, "jq": false, "/opt/x/git": false, "github-mcp-server": false, "./npx": false} {
		if got := BaseCommand(cmd); got != want {
			t.Errorf("BaseCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}
