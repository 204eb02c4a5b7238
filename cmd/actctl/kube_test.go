package main

import (
	"strings"
	"testing"
)

// TestWorkspaceName: the default pod's workspace name is a DNS-1123
// label short enough for a StatefulSet (docs/runtime.md, "Remote
// control").
func TestWorkspaceName(t *testing.T) {
	for _, tc := range []struct{ root, want string }{
		{"/src/agents", "agents"},
		{"/src/My_Team.Agents", "my-team-agents"},
		{"/src/--a  b--", "a-b"},
		{"/src/Ünïcode", "n-code"},
		{"/src/___", "workspace"},
		{"/", "workspace"},
		{"/src/" + strings.Repeat("a", 44) + "-bc", strings.Repeat("a", 44)},
		{"/src/" + strings.Repeat("x", 60), strings.Repeat("x", 45)},
	} {
		if got := workspaceName(tc.root); got != tc.want {
			t.Errorf("workspaceName(%q) = %q, want %q", tc.root, got, tc.want)
		}
	}
}
