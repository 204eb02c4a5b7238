package rpcpeer

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
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
	// params is where the params object starts; dirs the last
	// "additionalDirectories" member's value, when there is one.
	params int
	dirs   lineframe.Span
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
	c.params = p.Start
	lineframe.ScanObject(line, p.Start, func(key []byte, vs, ve int) {
		if string(key) == "additionalDirectories" {
			c.dirs = lineframe.Span{Start: vs, End: ve}
		}
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
// directory, and with AddClient ("workspace+client", where the agent takes
// additionalDirectories) the client's cwd joins the request's
// additionalDirectories: the agent works as itself in its workspace on
// the client's project.
type CwdPolicy struct {
	Workspace string
	AddClient bool
}

// Session is the cwd the agent gets for the client's cwd.
func (p CwdPolicy) Session(client string) string {
	if p.Workspace != "" {
		return p.Workspace
	}
	return client
}

// Apply is line, whose cwd ReadCwd read as c, with the cwd the agent gets
// (line itself when that is the client's). Only the bytes of the cwd
// values change, and with AddClient those of additionalDirectories: the
// client's cwd appended to its array (unless listed already, or it is
// the workspace), or the member added first in params.
func (p CwdPolicy) Apply(line []byte, c Cwd) []byte {
	if p.Workspace == "" || len(c.spans) == 0 {
		return line
	}
	ws := JSONString(p.Workspace)
	edits := make([]edit, 0, len(c.spans)+1)
	for _, s := range c.spans {
		edits = append(edits, edit{s, ws})
	}
	if p.AddClient && c.Path != p.Workspace {
		if e, ok := addDirectory(line, c, c.Path); ok {
			edits = append(edits, e)
		}
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.at.Start - b.at.Start })
	out := make([]byte, 0, len(line)+len(ws)+len(c.Path)+32)
	prev := 0
	for _, e := range edits {
		out = append(out, line[prev:e.at.Start]...)
		out = append(out, e.text...)
		prev = e.at.End
	}
	return append(out, line[prev:]...)
}

// edit replaces the bytes at with text.
type edit struct {
	at   lineframe.Span
	text []byte
}

// addDirectory is the edit that puts dir into the request's
// additionalDirectories: before the closing bracket of its array, or a
// new member right after the params' opening brace. ok is false when
// dir is listed already or the member is not an array (the request is
// then left to the agent as it is).
func addDirectory(line []byte, c Cwd, dir string) (edit, bool) {
	d := JSONString(dir)
	if c.dirs.Empty() {
		text := append(append([]byte(`"additionalDirectories":[`), d...), ']')
		if next := lineframe.SkipWS(line, c.params+1); next < len(line) && line[next] != '}' {
			text = append(text, ',')
		}
		return edit{lineframe.Span{Start: c.params + 1, End: c.params + 1}, text}, true
	}
	var dirs []string
	if line[c.dirs.Start] != '[' || json.Unmarshal(line[c.dirs.Start:c.dirs.End], &dirs) != nil || slices.Contains(dirs, dir) {
		return edit{}, false
	}
	end := c.dirs.End - 1 // the closing bracket
	if len(dirs) > 0 {
		d = append([]byte{','}, d...)
	}
	return edit{lineframe.Span{Start: end, End: end}, d}, true
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

// NoDirectoriesNote is what the relays and the ACP client say, once, when
// an agent whose sessionCwd is "workspace+client" does not take
// additionalDirectories: its sessions then work in the client's project
// (docs/runtime.md, "An employee reached from an editor").
const NoDirectoriesNote = `the backend does not take additionalDirectories: its sessions work in the client's project, where it may not read the agent's own instructions and settings (sessionCwd "workspace+client")`
