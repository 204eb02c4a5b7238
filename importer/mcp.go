package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"

	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// mcpSrc is an MCP server taken into the config, and where it was found.
type mcpSrc struct {
	s     schema.MCPServer
	found string
}

// readObject reads a JSON object file, keeping numbers as written, or a
// TOML file (.toml); ok is false only when there is no such file.
func (p *Plan) readObject(rel string) (map[string]any, bool, error) {
	data, err := p.read(rel)
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err // present, and said why it is not read
	}
	if strings.HasSuffix(rel, ".toml") {
		var m map[string]any
		if err := toml.Unmarshal(data, &m); err != nil {
			return nil, true, fmt.Errorf("not TOML: %v", err)
		}
		return m, true, nil
	}
	// Comments and trailing commas are allowed, as apply allows them.
	std, err := hujson.Standardize(bytes.Clone(data))
	if err != nil {
		return nil, true, fmt.Errorf("not a JSON object: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(std))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, true, fmt.Errorf("not a JSON object: %v", err)
	}
	return m, true, nil
}

// scanMCP takes the servers of a's MCP file that apply writes back
// exactly as they are.
func (p *Plan) scanMCP(a *agent) error {
	f := a.b.MCP
	if f == nil {
		return nil
	}
	m, ok, err := p.readObject(f.Path)
	fileItem := Item{Backend: a.b.Name, Kind: "mcp", Path: f.Path}
	switch {
	case !ok:
		return nil
	case err != nil:
		p.leave(fileItem, "%v", err)
		return nil
	}
	if other, ok := p.claimFor(a, f.Path); !ok {
		p.leave(fileItem, "%s", sameAs(other))
		return nil
	}
	if f.Path != a.b.Settings {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if k != f.Key {
				p.leave(Item{Backend: a.b.Name, Kind: "mcp", Name: k, Path: f.Path}, "key %q is not %q; left as it is", k, f.Key)
			}
		}
	}
	servers, ok := m[f.Key].(map[string]any)
	if !ok {
		if _, present := m[f.Key]; present {
			p.leave(fileItem, "%q is not an object", f.Key)
		}
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		p.server(a, name, servers[name])
	}
	return nil
}

// server takes one MCP server, or says why not.
func (p *Plan) server(a *agent, name string, v any) {
	f := a.b.MCP
	it := Item{Backend: a.b.Name, Kind: "mcp", Name: name, Path: f.Path}
	if !nameRe.MatchString(name) {
		p.leave(it, "the name is not a valid actctl name (%s)", nameRe)
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		p.leave(it, "not an object")
		return
	}
	in := obj
	switch f.Dialect {
	case schema.DialectCodex:
		in = codexBack(obj)
	case schema.DialectOpenCode:
		in = openCodeBack(obj)
	case schema.DialectAntigravity:
		in = renamed(obj, "serverUrl", "url") // Antigravity's remote url
	case schema.DialectQwen:
		in = renamed(obj, "httpUrl", "url") // Qwen Code's streamable HTTP url
	}
	s, why := serverOf(in, f.Dialect)
	if why != "" {
		p.leave(it, "%s", why)
		return
	}
	key, want, err := materialize.MCPEntry(f.Dialect, name, s)
	switch {
	case err != nil:
		p.leave(it, "%v", err)
		return
	case key != name:
		p.leave(it, "apply would write it as %q", key)
		return
	}
	have, _ := json.Marshal(obj)
	if !bytes.Equal(canonical(have), canonical(want)) {
		p.leave(it, "apply would write %s, not %s (a field it does not know, or a value it writes its own way)", want, canonical(have))
		return
	}
	if prev, ok := p.mcp[name]; ok && !reflect.DeepEqual(prev.s, s) {
		p.leave(it, "a different server of the same name was taken from %s", prev.found)
		return
	} else if !ok {
		p.mcp[name] = &mcpSrc{s: s, found: f.Path}
	}
	a.mcp = append(a.mcp, name)
	p.take(it)
}

// renamed is obj with key from renamed to, when it has it.
func renamed(obj map[string]any, from, to string) map[string]any {
	u, ok := obj[from]
	if !ok {
		return obj
	}
	out := maps.Clone(obj)
	out[to] = u
	delete(out, from)
	return out
}

// envColonRef is Cursor's and VS Code's ${env:NAME}, and openCodeRef
// OpenCode's {env:NAME}, which apply writes for ${NAME}.
var (
	envColonRef = regexp.MustCompile(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}`)
	openCodeRef = regexp.MustCompile(`\{env:([A-Za-z_][A-Za-z0-9_]*)\}`)
)

// serverOf reads a server entry as actctl's {command, args, env} or
// {url, headers}; why says what does not fit. Values the dialect
// rewrites (Cursor's ${env:NAME}) are read back to ${NAME}.
func serverOf(obj map[string]any, dialect string) (schema.MCPServer, string) {
	var s schema.MCPServer
	str := func(k string) (string, bool) {
		x, ok := obj[k]
		if !ok {
			return "", true
		}
		v, ok := x.(string)
		return unref(v, dialect), ok
	}
	strMap := func(k string) (map[string]string, bool) {
		x, ok := obj[k].(map[string]any)
		if _, present := obj[k]; !present {
			return nil, true
		}
		if !ok {
			return nil, false
		}
		out := map[string]string{}
		for n, v := range x {
			sv, ok := v.(string)
			if !ok {
				return nil, false
			}
			out[n] = unref(sv, dialect)
		}
		return out, true
	}
	var ok1, ok2, ok3, ok4, ok5 bool
	if t, _ := obj["type"].(string); t == "stdio" && dialect == schema.DialectClaude {
		s.Type = t // as `claude mcp add` writes it
	}
	s.Command, ok1 = str("command")
	s.URL, ok2 = str("url")
	s.Env, ok3 = strMap("env")
	s.Headers, ok4 = strMap("headers")
	ok5 = true
	if x, present := obj["args"]; present {
		list, ok := x.([]any)
		ok5 = ok
		s.Args = []string{} // given, even empty
		for _, e := range list {
			v, ok := e.(string)
			ok5 = ok5 && ok
			s.Args = append(s.Args, unref(v, dialect))
		}
	}
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return s, "a field has a type actctl does not write (command, url: strings; args: strings; env, headers: string maps)"
	}
	if (s.Command == "") == (s.URL == "") {
		return s, "neither a command nor a url, or both"
	}
	return s, ""
}

func unref(v, dialect string) string {
	switch dialect {
	case schema.DialectCursor, schema.DialectVSCode:
		return envColonRef.ReplaceAllString(v, "$${$1}")
	case schema.DialectOpenCode:
		return openCodeRef.ReplaceAllString(v, "$${$1}")
	}
	return v
}

// openCodeBack reads OpenCode's local entry (one command array,
// "environment") as command, args and env; the comparison with what
// apply writes checks the rest (type, enabled).
func openCodeBack(obj map[string]any) map[string]any {
	out := maps.Clone(obj)
	if cmd, ok := stringList(out["command"]); ok && len(cmd) > 0 {
		out["command"] = cmd[0]
		if len(cmd) > 1 {
			args := make([]any, 0, len(cmd)-1)
			for _, a := range cmd[1:] {
				args = append(args, a)
			}
			out["args"] = args
		}
	}
	if e, ok := out["environment"]; ok {
		out["env"] = e
		delete(out, "environment")
	}
	return out
}

// canonical re-encodes JSON with sorted keys (as apply compares keys).
func canonical(b []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return b
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}

// codexBack reads Codex's env-based keys back as the ${VAR} references
// apply writes them for (materialize's codexEnv, codexHeaders):
// env_vars NAME is env NAME = "${NAME}", env_http_headers H = NAME is
// header H = "${NAME}", bearer_token_env_var NAME is Authorization =
// "Bearer ${NAME}", http_headers are headers. A value of another type is
// left in place, for serverOf to refuse.
func codexBack(obj map[string]any) map[string]any {
	out := maps.Clone(obj)
	sub := func(k string) map[string]any {
		m, ok := out[k].(map[string]any)
		if !ok {
			m = map[string]any{}
		}
		return maps.Clone(m)
	}
	env, headers := sub("env"), sub("headers")
	if vars, ok := stringList(out["env_vars"]); ok {
		for _, n := range vars {
			env[n] = "${" + n + "}"
		}
		delete(out, "env_vars")
	}
	if h, ok := out["http_headers"].(map[string]any); ok {
		maps.Copy(headers, h)
		delete(out, "http_headers")
	}
	if h, ok := out["env_http_headers"].(map[string]any); ok {
		for k, v := range h {
			if n, ok := v.(string); ok {
				headers[k] = "${" + n + "}"
			}
		}
		delete(out, "env_http_headers")
	}
	if n, ok := out["bearer_token_env_var"].(string); ok {
		headers["Authorization"] = "Bearer ${" + n + "}"
		delete(out, "bearer_token_env_var")
	}
	for k, m := range map[string]map[string]any{"env": env, "headers": headers} {
		if len(m) > 0 {
			out[k] = m
		}
	}
	return out
}
