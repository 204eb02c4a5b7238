package acpclient

import (
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/model"
)

// TestRulesMatch: the agent's allow, deny and ask rules in Claude Code's
// vocabulary are matched against a request's tool call (its kind, and
// its command, path or address), and the most specific rule wins: an
// argument before a bare tool name, a longer literal argument before a
// shorter one, deny before ask before allow at equal specificity.
func TestRulesMatch(t *testing.T) {
	r := RulesOf(model.Permissions{
		Allow: []string{"Bash(git status:*)", "Bash(npm run *)", "Read", "Edit(src/**)", "WebFetch(domain:*.example.com)", "mcp__tracker"},
		Deny:  []string{"Bash(rm:*)", "Read(.env)", "Edit(//etc/**)", "Bash(npm run deploy*)"},
		Ask:   []string{"Bash", "Bash(git push:*)", "Edit", "Edit(src/gen/**)", "Task"},
	})
	const cwd = "/w"
	for _, tc := range []struct {
		name string
		in   ToolInput
		want string
	}{
		{"prefix allow", ToolInput{Kind: acp.ToolKindExecute, Command: "git status --short"}, "allow Bash(git status:*)"},
		{"prefix is a word", ToolInput{Kind: acp.ToolKindExecute, Command: "git statusx"}, "ask Bash"},
		{"deny prefix", ToolInput{Kind: acp.ToolKindExecute, Command: "rm -rf /"}, "deny Bash(rm:*)"},
		{"ask prefix", ToolInput{Kind: acp.ToolKindExecute, Command: "git push origin main"}, "ask Bash(git push:*)"},
		{"longer literal wins", ToolInput{Kind: acp.ToolKindExecute, Command: "npm run deploy prod"}, "deny Bash(npm run deploy*)"},
		{"wildcard", ToolInput{Kind: acp.ToolKindExecute, Command: "npm run test"}, "allow Bash(npm run *)"},
		{"command from the title", ToolInput{Kind: acp.ToolKindExecute, Title: "`rm x`"}, "deny Bash(rm:*)"},
		{"bare tool", ToolInput{Kind: acp.ToolKindExecute, Command: "ls"}, "ask Bash"},
		{"read anywhere", ToolInput{Kind: acp.ToolKindRead, Path: "/w/a/b.go", Cwd: cwd}, "allow Read"},
		{"read covers search", ToolInput{Kind: acp.ToolKindSearch, Path: "/w", Cwd: cwd}, "allow Read"},
		{"no slash: any depth", ToolInput{Kind: acp.ToolKindRead, Path: "/w/deep/.env", Cwd: cwd}, "deny Read(.env)"},
		{"edit below src", ToolInput{Kind: acp.ToolKindEdit, Path: "/w/src/a/b.go", Cwd: cwd}, "allow Edit(src/**)"},
		{"deeper pattern wins", ToolInput{Kind: acp.ToolKindEdit, Path: "/w/src/gen/x.go", Cwd: cwd}, "ask Edit(src/gen/**)"},
		{"edit elsewhere", ToolInput{Kind: acp.ToolKindEdit, Path: "/w/docs/x.md", Cwd: cwd}, "ask Edit"},
		{"edit covers delete", ToolInput{Kind: acp.ToolKindDelete, Path: "/w/docs/x.md", Cwd: cwd}, "ask Edit"},
		{"absolute", ToolInput{Kind: acp.ToolKindEdit, Path: "/etc/passwd", Cwd: cwd}, "deny Edit(//etc/**)"},
		{"domain", ToolInput{Kind: acp.ToolKindFetch, URL: "https://docs.example.com/x"}, "allow WebFetch(domain:*.example.com)"},
		{"other domain", ToolInput{Kind: acp.ToolKindFetch, URL: "https://example.org/x"}, ""},
		{"mcp server", ToolInput{Kind: acp.ToolKindOther, Title: "mcp__tracker__create_issue"}, "allow mcp__tracker"},
		{"a tool by its title", ToolInput{Kind: acp.ToolKindOther, Title: "Task explore"}, "ask Task"},
		{"no rule", ToolInput{Kind: acp.ToolKindThink, Title: "think"}, ""},
	} {
		if got := r.Match(tc.in); got.Rule != tc.want {
			t.Errorf("%s: %+v matched %q, want %q", tc.name, tc.in, got.Rule, tc.want)
		}
	}
	if m := RulesOf(model.Permissions{Preset: model.PresetStandard}).Match(ToolInput{Kind: acp.ToolKindExecute, Command: "ls"}); m.Verdict != "" {
		t.Errorf("a preset has no rules: %+v", m)
	}
}

// TestInputOf: the request's rawInput gives the command and the path (a
// relative one made absolute in the session's cwd), else its first
// location.
func TestInputOf(t *testing.T) {
	in := InputOf(ToolCall{Kind: acp.ToolKindExecute}, acp.ToolCallUpdate{RawInput: map[string]any{"command": []any{"git", "push"}}}, "/w")
	if in.Command != "git push" {
		t.Errorf("command %q", in.Command)
	}
	in = InputOf(ToolCall{Kind: acp.ToolKindEdit}, acp.ToolCallUpdate{RawInput: map[string]any{"path": "src/a.go"}}, "/w")
	if in.Path != "/w/src/a.go" {
		t.Errorf("path %q", in.Path)
	}
	in = InputOf(ToolCall{Kind: acp.ToolKindRead}, acp.ToolCallUpdate{Locations: []acp.ToolCallLocation{{Path: "/x/y"}}}, "/w")
	if in.Path != "/x/y" {
		t.Errorf("location %q", in.Path)
	}
}
