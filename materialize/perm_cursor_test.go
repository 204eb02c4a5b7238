package materialize

import "testing"

// TestCursorToken: rules in Claude Code's syntax become Cursor CLI tokens
// (WebFetch(domain:d) -> WebFetch(d), mcp__srv__tool -> Mcp(srv:tool),
// Read(./src/**) -> Read(src/**), Bash(cmd:*) -> Shell(cmd)); Cursor's own
// tokens stay; what Cursor cannot say is refused with a reason where one
// helps (issue #23 item 2).
func TestCursorToken(t *testing.T) {
	cases := []struct{ in, want string }{
		{"WebFetch(domain:example.com)", "WebFetch(example.com)"},
		{"WebFetch(domain:*.github.com)", "WebFetch(*.github.com)"},
		{"WebFetch", "WebFetch(*)"},
		{"WebFetch(domain:)", ""},
		{"mcp__github__get_issue", "Mcp(github:get_issue)"},
		{"mcp__github", "Mcp(github:*)"},
		{"mcp__github__*", "Mcp(github:*)"},
		{"Read(./src/**)", "Read(src/**)"},
		{"Read(/docs/*.md)", "Read(docs/*.md)"},
		{"Read(//etc/hosts)", "Read(/etc/hosts)"},
		{"Read(~/notes/**)", "Read(~/notes/**)"},
		{"Read", "Read(**)"},
		{"Edit(./src/**)", "Write(src/**)"},
		{"Write(build/**)", "Write(build/**)"},
		{"MultiEdit", "Write(**)"},
		{"Bash", "Shell(*)"},
		{"Bash(rm:*)", "Shell(rm)"},
		{"Bash(make *)", "Shell(make)"},
		{"Bash(ls)", "Shell(ls)"},
		{"Bash(git push:*)", ""},
		{"Bash(npm run test)", ""},
		{"Shell(git)", "Shell(git)"},
		{"Mcp(fs:read)", "Mcp(fs:read)"},
		{"WebFetch(example.com)", "WebFetch(example.com)"},
		{"NotebookEdit", ""},
		{"Read(src", ""},
	}
	for _, c := range cases {
		if got, _ := cursorToken(c.in); got != c.want {
			t.Errorf("cursorToken(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
