package rpcpeer

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/actctl/actctl/internal/lineframe"
)

// TestReadCwd: which requests carry a session cwd, what is refused (and
// why), and the rewrite of "workspace", which changes only the cwd's
// bytes.
func TestReadCwd(t *testing.T) {
	const ws = "/ws/a&b"
	for _, tc := range []struct {
		line     string
		carries  bool
		problem  string
		path     string
		rewrites string // the line under "workspace" ("": unchanged)
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`, true, "", "/p",
			`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/ws/a&b","mcpServers":[]}}`},
		{`{"id":1,"method":"session/load","params":{"cwd" : "/p","cwd":"/q"}}`, true, "", "/q",
			`{"id":1,"method":"session/load","params":{"cwd" : "/ws/a&b","cwd":"/ws/a&b"}}`},
		{`{"id":1,"method":"session/resume","params":{"cwd":"rel"}}`, true, `cwd must be an absolute path, got "rel"`, "", ""},
		{`{"id":1,"method":"session/fork","params":{"sessionId":"s"}}`, true, "cwd is required and must be an absolute path", "", ""},
		{`{"id":1,"method":"session/new","params":{"cwd":42}}`, true, "cwd must be a string holding an absolute path", "", ""},
		{`{"id":1,"method":"session/new"}`, true, "params must be an object with an absolute cwd", "", ""},
		{`{"id":1,"method":"session/new","params":{"cwd":"/abs","cwd":""}}`, true, `cwd must be an absolute path, got ""`, "", ""},
		{`{"id":1,"method":"session/list","params":{}}`, true, "", "", ""},
		{`{"id":1,"method":"session/list"}`, true, "", "", ""},
		{`{"id":1,"method":"session/list","params":{"cwd":null}}`, true, "", "", ""},
		{`{"id":1,"method":"session/list","params":[]}`, true, "params must be an object with an absolute cwd", "", ""},
		{`{"id":1,"method":"session/list","params":{"cwd":"/p"}}`, true, "", "/p", `{"id":1,"method":"session/list","params":{"cwd":"/ws/a&b"}}`},
		{`{"id":1,"method":"session/prompt","params":{"cwd":"rel"}}`, false, "", "", ""},
	} {
		env := lineframe.Parse([]byte(tc.line))
		required, ok := CwdMethod(&env)
		if ok != tc.carries {
			t.Errorf("CwdMethod(%s) = %v, want %v", tc.line, ok, tc.carries)
		}
		if !ok {
			continue
		}
		c, problem := ReadCwd([]byte(tc.line), &env, required)
		if problem != tc.problem || c.Path != tc.path {
			t.Errorf("ReadCwd(%s) = %q, %q; want %q, %q", tc.line, c.Path, problem, tc.path, tc.problem)
		}
		if got := string((CwdPolicy{}).Apply([]byte(tc.line), c)); got != tc.line {
			t.Errorf("policy client rewrote %s to %s", tc.line, got)
		}
		want := tc.rewrites
		if want == "" {
			want = tc.line
		}
		if got := string((CwdPolicy{Workspace: ws}).Apply([]byte(tc.line), c)); got != want {
			t.Errorf("policy workspace: %s\n got %s\nwant %s", tc.line, got, want)
		}
	}
	if got := (CwdPolicy{}).Session("/p"); got != "/p" {
		t.Errorf("client policy: session cwd %q", got)
	}
	if got := (CwdPolicy{Workspace: ws}).Session("/p"); got != ws {
		t.Errorf("workspace policy: session cwd %q", got)
	}
}

// FuzzCwdPolicy: under "workspace" a request ReadCwd accepts stays one
// valid message whose cwd is the workspace, and the bytes outside the cwd
// values are the original's.
func FuzzCwdPolicy(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`), true)
	f.Add([]byte(`{"id":1,"method":"session/list","params":{"cwd":"/p","cwd":null}}`), false)
	f.Fuzz(func(t *testing.T, line []byte, required bool) {
		env := lineframe.Parse(line)
		if !env.Valid || env.Kind != lineframe.KindRequest {
			return
		}
		c, problem := ReadCwd(line, &env, required)
		if problem != "" {
			return
		}
		out := (CwdPolicy{Workspace: "/ws"}).Apply(line, c)
		oenv := lineframe.Parse(out)
		if !oenv.Valid || oenv.Kind != lineframe.KindRequest || !bytes.Equal(oenv.ID, env.ID) {
			t.Fatalf("Apply(%q) = %q: not the same request", line, out)
		}
		grew := 0
		for _, s := range c.spans {
			grew += len(`"/ws"`) - (s.End - s.Start)
		}
		if len(out)-len(line) != grew {
			t.Fatalf("Apply(%q) = %q: bytes outside the cwd values changed", line, out)
		}
		if oenv.Params.Empty() {
			return
		}
		lineframe.ScanObject(out, oenv.Params.Start, func(key []byte, vs, ve int) {
			if v := string(out[vs:ve]); string(key) == "cwd" && v != `"/ws"` && v != "null" {
				t.Fatalf("Apply(%q) = %q: a cwd %s left", line, out, v)
			}
		})
	})
}

// TestCwdPolicyAddClient: under "workspace+client" the session cwd
// becomes the workspace and the client's cwd joins additionalDirectories
// (appended to the request's own, added when absent, never twice); every
// other byte stays (issue #32 item 9).
func TestCwdPolicyAddClient(t *testing.T) {
	p := CwdPolicy{Workspace: "/inst/dev", AddClient: true}
	for _, c := range []struct{ in, want string }{
		{`{"id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`,
			`{"id":1,"method":"session/new","params":{"additionalDirectories":["/p"],"cwd":"/inst/dev","mcpServers":[]}}`},
		{`{"id":1,"method":"session/new","params":{ "cwd" : "/p", "additionalDirectories": ["/x"] }}`,
			`{"id":1,"method":"session/new","params":{ "cwd" : "/inst/dev", "additionalDirectories": ["/x","/p"] }}`},
		{`{"id":1,"method":"session/new","params":{"additionalDirectories":[],"cwd":"/p"}}`,
			`{"id":1,"method":"session/new","params":{"additionalDirectories":["/p"],"cwd":"/inst/dev"}}`},
		{`{"id":1,"method":"session/load","params":{"sessionId":"s","cwd":"/p","additionalDirectories":["/p"]}}`,
			`{"id":1,"method":"session/load","params":{"sessionId":"s","cwd":"/inst/dev","additionalDirectories":["/p"]}}`},
		{`{"id":1,"method":"session/new","params":{"cwd":"/inst/dev"}}`,
			`{"id":1,"method":"session/new","params":{"cwd":"/inst/dev"}}`},
		{`{"id":1,"method":"session/new","params":{"cwd":"/p","additionalDirectories":"odd"}}`,
			`{"id":1,"method":"session/new","params":{"cwd":"/inst/dev","additionalDirectories":"odd"}}`},
	} {
		line := []byte(c.in)
		env := lineframe.Parse(line)
		cwd, problem := ReadCwd(line, &env, true)
		if problem != "" {
			t.Fatalf("%s: %s", c.in, problem)
		}
		if got := string(p.Apply(line, cwd)); got != c.want {
			t.Errorf("Apply(%s)\n = %s\nwant %s", c.in, got, c.want)
		}
	}
}

// FuzzCwdPolicyAddClient: whatever the request, the rewritten one is the
// same request, still valid JSON, with the workspace as cwd and the
// client's cwd among additionalDirectories when that member is an array.
func FuzzCwdPolicyAddClient(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`))
	f.Add([]byte(`{"id":2,"method":"session/new","params":{"additionalDirectories":["/a"],"cwd":"/p"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		env := lineframe.Parse(line)
		if !env.Valid || env.Kind != lineframe.KindRequest {
			return
		}
		c, problem := ReadCwd(line, &env, true)
		if problem != "" {
			return
		}
		out := (CwdPolicy{Workspace: "/ws", AddClient: true}).Apply(line, c)
		oenv := lineframe.Parse(out)
		if !oenv.Valid || oenv.Kind != lineframe.KindRequest || !bytes.Equal(oenv.ID, env.ID) || !json.Valid(out) {
			t.Fatalf("Apply(%q) = %q: not the same valid request", line, out)
		}
		var params struct {
			Cwd  string          `json:"cwd"`
			Dirs json.RawMessage `json:"additionalDirectories"`
		}
		if json.Unmarshal(out[oenv.Params.Start:oenv.Params.End], &params) != nil || params.Cwd != "/ws" {
			t.Fatalf("Apply(%q) = %q: cwd %q", line, out, params.Cwd)
		}
		var dirs []string
		if json.Unmarshal(params.Dirs, &dirs) == nil && c.Path != "/ws" && !slices.Contains(dirs, c.Path) {
			t.Fatalf("Apply(%q) = %q: %s not among additionalDirectories", line, out, c.Path)
		}
	})
}
