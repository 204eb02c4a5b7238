package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/coder/acp-go-sdk"
)

// permissionWarnings are the permission warning lines of a proxy's stderr.
func permissionWarnings(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "warning:") && strings.Contains(l, "permissions") {
			out = append(out, l)
		}
	}
	return out
}

// TestProxyWarnsOnce: a proxy warns about the agent it serves only, once,
// positioned: a declared agent at its declaration, a per-project copy at
// the declared agent's, a -t agent at its template's.
func TestProxyWarnsOnce(t *testing.T) {
	root, home, _ := proxyWorkspace(t)
	project := t.TempDir()
	for _, tt := range []struct {
		dir  string
		args []string
		want string // regexp of the one warning
	}{
		{root, []string{"helper", "-C", root}, `^actctl: .*/actant\.cue:23:2: warning: agents\.helper: permissions`},
		{project, []string{"helper", "-C", root}, `^actctl: .*/actant\.cue:23:2: warning: agents\."helper-p[0-9a-f]{8}": permissions`},
		{project, []string{"scratch", "-t", "tool", "-C", root}, `^actctl: .*/actant\.cue:16:2: warning: agents\.scratch: permissions`},
		{project, []string{"builder", "-C", root}, `^actctl: .*/actant\.cue:24:2: warning: agents\.builder: permissions`},
	} {
		c := startProxy(t, tt.dir, home, tt.args...)
		c.initialize()
		c.close()
		ws := permissionWarnings(c.stderr.String())
		if len(ws) != 1 || !regexp.MustCompile(tt.want).MatchString(ws[0]) {
			t.Errorf("proxy %v warned:\n%s\nwant one line matching %s", tt.args, strings.Join(ws, "\n"), tt.want)
		}
	}
}

// TestProxyLateInitialize: a proxy that cannot serve says so once on
// stderr, and a client that sends initialize only after that (here: after
// the proxy said it waits) still gets the reason as the answer.
func TestProxyLateInitialize(t *testing.T) {
	root, home, _ := proxyWorkspace(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"ghost", "-C", root}, `backend "actctl-no-such-backend" could not be started`},
		{[]string{"nobody", "-C", root}, `unknown agent "nobody"`},
		{[]string{"x", "-t", "tol", "-C", root}, `unknown template "tol"`},
	} {
		c := startProxy(t, root, home, tt.args...)
		if !c.stderr.WaitFor("for the client's initialize") {
			t.Fatalf("%v: the proxy never said it waits; stderr:\n%s", tt.args, c.stderr)
		}
		m := c.call(0, acp.AgentMethodInitialize, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
		if !strings.Contains(string(m["error"]), strings.ReplaceAll(tt.want, `"`, `\"`)) {
			t.Errorf("%v: initialize answered %s", tt.args, m)
		}
		c.in.Close()
		if err := c.cmd.Wait(); err == nil {
			t.Errorf("%v: exit 0", tt.args)
		}
		if n := strings.Count(c.stderr.String(), tt.want); n != 1 {
			t.Errorf("%v: the error is printed %d times:\n%s", tt.args, n, c.stderr)
		}
	}
}
