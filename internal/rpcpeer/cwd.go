package rpcpeer

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/lineframe"
)

// The session cwd rule (README, "Editors: ACP proxy and Zed"): ACP requires the
// cwd of a session to be an absolute path, and a relay refuses a request
// whose cwd is missing (where required), not a string or relative, with
// Invalid params, before it reaches the agent: an agent given a relative
// cwd would resolve it against its processCwd, a directory the client
// never chose. Under the archetype's sessionCwd "workspace" the cwd the
// agent gets is the workspace (CwdPolicy); only the bytes of the value
// change.

// CwdMethod reports whether a request carries a session cwd (ok) and
// whether that cwd is required: session/new, load and resume and the
// unstable session/fork require one; session/list takes an optional cwd
// filter, rewritten too so that a client listing its project's sessions
// finds the ones the agent ran in the workspace.
func CwdMethod(env *lineframe.Envelope) (required, ok bool) {
	switch {
	case env.MethodIs(acp.AgentMethodSessionNew), env.MethodIs(acp.AgentMethodSessionLoad),
		env.MethodIs(acp.AgentMethodSessionResume), env.MethodIs(acp.AgentMethodSessionFork):
		return true, true
	case env.MethodIs(acp.AgentMethodSessionList):
		return false, true
	}
	return false, false
}

// Cwd is the session cwd of a request, as ReadCwd found it.
type Cwd struct {
	// Path is the client's cwd; "" when an optional one is absent.
	Path  string
	spans []lineframe.Span // every "cwd" member of params (duplicates too)
}

// ReadCwd checks params.cwd of a request line (env its envelope):
// required, or optional (absent or null). problem is the reason a request
// breaks the rule ("" when it does not), for InvalidParams.
func ReadCwd(line []byte, env *lineframe.Envelope, required bool) (c Cwd, problem string) {
	p := env.Params
	if p.Empty() || line[p.Start] != '{' {
		if required || !p.Empty() {
			return c, "params must be an object with an absolute cwd"
		}
		return c, ""
	}
	lineframe.ScanObject(line, p.Start, func(key []byte, vs, ve int) {
		if string(key) != "cwd" || problem != "" {
			return
		}
		if !required && string(line[vs:ve]) == "null" {
			return // an optional filter, explicitly absent
		}
		var s string
		if line[vs] != '"' || json.Unmarshal(line[vs:ve], &s) != nil {
			problem = "cwd must be a string holding an absolute path"
			return
		}
		if !filepath.IsAbs(s) {
			problem = fmt.Sprintf("cwd must be an absolute path, got %q", s)
			return
		}
		c.spans = append(c.spans, lineframe.Span{Start: vs, End: ve})
		c.Path = s
	})
	if problem == "" && len(c.spans) == 0 && required {
		problem = "cwd is required and must be an absolute path"
	}
	if problem != "" {
		return Cwd{}, problem
	}
	return c, ""
}

// CwdPolicy is the archetype's sessionCwd policy as a relay applies it:
// with Workspace "" ("client") the client's cwd reaches the agent as it
// is; else ("workspace") every session cwd becomes Workspace, an absolute
// directory.
type CwdPolicy struct{ Workspace string }

// Session is the cwd the agent gets for the client's cwd.
func (p CwdPolicy) Session(client string) string {
	if p.Workspace != "" {
		return p.Workspace
	}
	return client
}

// Apply is line, whose cwd ReadCwd read as c, with the cwd the agent gets
// (line itself when that is the client's).
func (p CwdPolicy) Apply(line []byte, c Cwd) []byte {
	if p.Workspace == "" || len(c.spans) == 0 {
		return line
	}
	ws := JSONString(p.Workspace)
	out := make([]byte, 0, len(line)+len(ws))
	prev := 0
	for _, s := range c.spans {
		out = append(out, line[prev:s.Start]...)
		out = append(out, ws...)
		prev = s.End
	}
	return append(out, line[prev:]...)
}

// JSONString encodes s as a JSON string token without HTML escaping (a
// path with & or < stays readable in logs and transcripts).
func JSONString(s string) []byte {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return []byte(strings.TrimSuffix(b.String(), "\n"))
}
