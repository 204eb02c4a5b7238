package materialize

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/actctl/actctl/schema"
)

// mcpDialect is the shape one tool expects for an MCP server entry. The
// backend layout declares it (schema.MCPFile.Dialect, #MCPFile in
// schema/actant.cue); it is never guessed from the file's path, so a
// user-defined backend can say "Claude-style MCP JSON at .foo/mcp.json".
type mcpDialect string

const (
	// dialectClaude: Claude Code .mcp.json — stdio {command,args,env};
	// remote {"type":"http"|"sse", url, headers}. Claude Code requires the
	// type for remote servers and expands ${VAR} and ${VAR:-default} in
	// command, args, env, url and headers itself (code.claude.com/docs/en/mcp).
	dialectClaude mcpDialect = schema.DialectClaude
	// dialectGemini: Gemini CLI settings.json — stdio {command,args,env};
	// remote {url, type: "http"|"sse", headers} (httpUrl is deprecated in
	// favour of url + type: gemini-cli packages/core/src/config/config.ts);
	// it expands $VAR and ${VAR} in settings values
	// (geminicli.com/docs/tools/mcp-server).
	dialectGemini mcpDialect = schema.DialectGemini
	// dialectAntigravity: Antigravity .agents/mcp_config.json — stdio
	// {command,args,env}; remote {serverUrl, headers}. Whether it expands
	// ${VAR} is not documented: values are written as given, with a warning.
	dialectAntigravity mcpDialect = schema.DialectAntigravity
	// dialectGeneric: the common "mcpServers" shape (Claude Desktop and
	// most clients) — stdio {command,args,env}; remote {url, headers}.
	dialectGeneric mcpDialect = schema.DialectGeneric
	// dialectCursor: .cursor/mcp.json — the generic shape (Cursor detects
	// streamable HTTP vs SSE itself), but Cursor interpolates environment
	// variables as ${env:NAME}, so "${NAME}" is rewritten to that form
	// (cursor.com/docs/mcp).
	dialectCursor mcpDialect = schema.DialectCursor
	// dialectCodex: Codex config.toml [mcp_servers.<name>] — stdio
	// {command,args,env,env_vars}; streamable HTTP {url, http_headers,
	// env_http_headers, bearer_token_env_var}. Codex expands no ${VAR}
	// anywhere (developers.openai.com/codex/mcp), so references become
	// its env-based keys (see codexEnv).
	dialectCodex mcpDialect = schema.DialectCodex
	// dialectVSCode: VS Code (GitHub Copilot) .vscode/mcp.json, under
	// "servers" — stdio {"type": "stdio", command, args, env}; remote
	// {"type": "http"|"sse", url, headers}. VS Code substitutes its own
	// variables, the environment's as ${env:NAME}, so "${NAME}" is
	// rewritten to that form; its predefined ones (${workspaceFolder},
	// ...) stay (code.visualstudio.com/docs/copilot/reference/mcp-configuration).
	dialectVSCode mcpDialect = schema.DialectVSCode
	// dialectOpenCode: OpenCode opencode.json, under "mcp" — local
	// {"type": "local", command: [command, args...], environment,
	// enabled: true}; remote {"type": "remote", url, headers, enabled:
	// true}. OpenCode substitutes {env:NAME} anywhere in its config, so
	// "${NAME}" is rewritten to that form (opencode.ai/docs/mcp-servers,
	// opencode.ai/docs/config "Variables").
	dialectOpenCode mcpDialect = schema.DialectOpenCode
	// dialectQwen: Qwen Code .qwen/settings.json — stdio
	// {command,args,env}; a streamable HTTP server is {httpUrl, headers},
	// an SSE one {url, headers}: Qwen Code, a Gemini CLI fork, kept the
	// older shape (qwenlm.github.io/qwen-code-docs users/features/mcp,
	// "Choose a transport"). Its settings loader expands ${VAR} as Gemini
	// CLI's does.
	dialectQwen mcpDialect = schema.DialectQwen
	// dialectPi: Pi .pi/mcp.json, under "mcpServers" — stdio {command,
	// args, env}; remote {url, headers}. Pi refuses SSE servers, takes
	// names of letters, digits, "_" and "-" only, and expands ${NAME} in
	// env and headers only (pi.dev/docs/latest/mcp).
	dialectPi mcpDialect = schema.DialectPi
	// dialectCopilot: the GitHub Copilot CLI's workspace .github/mcp.json,
	// under "mcpServers" — local {"type": "local", command, args, env,
	// "tools": ["*"]}; remote {"type": "http"|"sse", url, headers,
	// "tools": ["*"]} (every tool of the server, as the CLI's own
	// mcp-config.json has it). The CLI expands $VAR, ${VAR} and
	// ${VAR:-default} in env (github/copilot-cli#903, v1.0.10); elsewhere
	// a reference is written as is, with a warning.
	dialectCopilot mcpDialect = schema.DialectCopilot
	// dialectGoose: a Goose open plugin's .mcp.json, under "mcpServers"
	// (aaif-goose/goose#9471, Goose 1.39) — Claude Code's stdio shape
	// {command, args, env}; Goose reads stdio servers only there, so a
	// remote one is left out (refused). Whether it expands ${VAR} is not
	// documented: written as given, with a warning.
	dialectGoose mcpDialect = schema.DialectGoose
	// dialectZed: Zed's project settings .zed/settings.json, under
	// "context_servers" (zed-industries/zed settings_content,
	// ContextServerSettingsContent: untagged, no type field) — stdio
	// {command, args, env}, args always (a required list there); remote
	// {url, headers}. Zed does not take SSE (rulesync zed-mcp.ts): left
	// out. Whether it expands ${VAR} is not documented: written as given,
	// with a warning.
	dialectZed mcpDialect = schema.DialectZed
	// dialectCrush: Crush's project config .crush.json, under "mcp"
	// (Crush's crush-config skill, "MCP Servers") — every entry has the
	// type Crush requires: {"type": "stdio", command, args, env}; remote
	// {"type": "http"|"sse", url, headers}. Crush shell-expands $VAR and
	// ${VAR} in command, args, env, headers and url: kept.
	dialectCrush mcpDialect = schema.DialectCrush
	// dialectKimi: Kimi Code's .kimi-code/mcp.json, under "mcpServers"
	// (moonshotai.github.io/kimi-code customization/mcp) — {command, args,
	// env} is a stdio server, {url, headers} an HTTP one; Kimi Code has no
	// SSE transport (left out). Whether it expands ${VAR} is not
	// documented: written as given, with a warning.
	dialectKimi mcpDialect = schema.DialectKimi
	// dialectGrok: Grok Build's .grok/config.toml (format toml), tables
	// [mcp_servers.<name>] (rulesync grokcli-mcp.ts, verified there
	// against `grok mcp add`) — stdio {command, args, env}, env a literal
	// table (no Codex env_vars); remote {url, headers}. Whether Grok
	// expands ${VAR} is not documented: written as given, with a warning.
	dialectGrok mcpDialect = schema.DialectGrok
	// dialectRoo: Roo Code's and Zoo Code's .roo/mcp.json, under
	// "mcpServers" (rulesync roo-mcp.ts) — stdio {command, args, env};
	// remote {"type": "streamable-http"|"sse", url, headers}. Its ${VAR}
	// expansion is not confirmed: written as given, with a warning.
	dialectRoo mcpDialect = schema.DialectRoo
)

// dialectFor returns the declared MCP dialect of a backend's MCP file
// ("" is generic) and checks that the file's format is the one that
// dialect's tool reads (dialectFormat).
func dialectFor(k *schema.MCPFile) (mcpDialect, error) {
	d := mcpDialect(k.Dialect)
	if d == "" {
		d = dialectGeneric
	}
	want := dialectFormat(d)
	switch d {
	case dialectCodex, dialectGrok,
		dialectClaude, dialectGemini, dialectCursor, dialectAntigravity, dialectVSCode, dialectCopilot, dialectOpenCode, dialectQwen, dialectPi, dialectGoose, dialectZed, dialectCrush, dialectKimi, dialectRoo, dialectGeneric:
	default:
		return "", fmt.Errorf("mcp file %q: unknown dialect %q (want claude, codex, gemini, cursor, antigravity, vscode, copilot, opencode, qwen, pi, goose, zed, crush, kimi, grok, roo or generic)", k.Path, k.Dialect)
	}
	if k.Format != want {
		return "", fmt.Errorf("mcp file %q: dialect %s is written as %s, not %q", k.Path, d, want, k.Format)
	}
	return d, nil
}

// dialectFormat is the format of the file the dialect's tool reads its
// MCP servers from: TOML for Codex and Grok Build, JSON for the others.
func dialectFormat(d mcpDialect) string {
	if d == dialectCodex || d == dialectGrok {
		return schema.FormatTOML
	}
	return schema.FormatJSON
}

// cursorPredefined are Cursor's own interpolation names, which must not be
// turned into ${env:...}.
var cursorPredefined = map[string]bool{"userHome": true, "workspaceFolder": true, "workspaceFolderBasename": true, "pathSeparator": true}

// vscodePredefined are VS Code's predefined variables
// (code.visualstudio.com/docs/reference/variables-reference), which must
// not be turned into ${env:...}.
var vscodePredefined = map[string]bool{
	"userHome": true, "workspaceFolder": true, "workspaceFolderBasename": true, "pathSeparator": true,
	"cwd": true, "execPath": true, "defaultBuildTask": true, "file": true, "fileWorkspaceFolder": true,
	"relativeFile": true, "relativeFileDirname": true, "fileBasename": true, "fileBasenameNoExtension": true,
	"fileExtname": true, "fileDirname": true, "fileDirnameBasename": true, "lineNumber": true, "selectedText": true,
}

// cursorEnv rewrites every "${NAME}" in s to Cursor's "${env:NAME}".
func cursorEnv(s string) string {
	return rewriteEnv(s, cursorPredefined, func(name string) string { return "${env:" + name + "}" })
}

// rewriteEnv rewrites every "${NAME}" in s, NAME an environment variable
// name not in keep, to form(NAME).
func rewriteEnv(s string, keep map[string]bool, form func(string) string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		name := s[i+2 : i+j]
		b.WriteString(s[:i])
		if _, ok := envRef(s[i : i+j+1]); ok && !keep[name] {
			b.WriteString(form(name))
		} else {
			b.WriteString(s[i : i+j+1])
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// envRewriter is the dialect's rewrite of "${NAME}" references, or nil
// when the tool expands them as written.
func envRewriter(d mcpDialect) func(string) string {
	switch d {
	case dialectCursor:
		return cursorEnv
	case dialectVSCode:
		return func(s string) string {
			return rewriteEnv(s, vscodePredefined, func(name string) string { return "${env:" + name + "}" })
		}
	case dialectOpenCode:
		return func(s string) string {
			return rewriteEnv(s, nil, func(name string) string { return "{env:" + name + "}" })
		}
	}
	return nil
}

func mapEach(m map[string]string, f func(string) string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = f(v)
	}
	return out
}

func sliceEach(xs []string, f func(string) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// isSSE reports whether a remote server URL names the legacy SSE transport.
// schema.MCPServer has no transport field, so we follow the convention every
// SSE server uses: the endpoint path ends in "/sse".
func isSSE(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return strings.HasSuffix(u, "/sse")
	}
	return strings.HasSuffix(strings.TrimSuffix(p.Path, "/"), "/sse")
}

// envRef returns VAR when v is exactly "${VAR}", the form Codex can take
// from the environment instead of storing a secret in config.toml.
func envRef(v string) (string, bool) {
	if !strings.HasPrefix(v, "${") || !strings.HasSuffix(v, "}") {
		return "", false
	}
	name := v[2 : len(v)-1]
	if !isVarName(name) || strings.ContainsAny(name, ".-") {
		return "", false
	}
	return name, true
}

// mcpServerValue renders one server in the tool's native shape. Empty
// args/env/headers are omitted: every client treats absent and empty alike,
// and omitting them keeps the user's file small.
func mcpServerValue(d mcpDialect, name string, s schema.MCPServer) (map[string]any, []string, error) {
	switch {
	case s.Command != "" && s.URL != "":
		return nil, nil, fmt.Errorf("mcp server %q: both command and url are set", name)
	case s.Command != "":
		v, warns := stdioValue(d, name, s)
		return v, append(warns, unexpanded(d, name, s)...), nil
	case s.URL != "":
		v, warns := remoteValue(d, name, s)
		return v, append(warns, unexpanded(d, name, s)...), nil
	}
	return nil, nil, fmt.Errorf("mcp server %q: neither command nor url is set", name)
}

// undocumented are the dialects whose tool documents no ${VAR} expansion
// in its MCP file: the tool and the file, for the warning.
var undocumented = map[mcpDialect][2]string{
	dialectAntigravity: {"Antigravity", "mcp_config.json"},
	dialectGoose:       {"Goose", "a plugin's .mcp.json"},
	dialectZed:         {"Zed", ".zed/settings.json"},
	dialectKimi:        {"Kimi Code", ".kimi-code/mcp.json"},
	dialectGrok:        {"Grok", ".grok/config.toml"},
	dialectRoo:         {"Zoo Code", ".roo/mcp.json"},
}

// unexpanded warns when a dialect whose tool is not known to expand
// ${VAR} gets one (Antigravity: docs/formats.md), or where the tool does
// not expand it (Pi: command, args and url).
func unexpanded(d mcpDialect, name string, s schema.MCPServer) []string {
	switch d {
	case dialectPi:
		for _, v := range append([]string{s.Command, s.URL}, s.Args...) {
			if strings.Contains(v, "${") {
				return []string{fmt.Sprintf("mcp server %q: Pi expands ${NAME} in env and headers only; %q is written as is", name, v)}
			}
		}
		return nil
	case dialectCopilot:
		vals := append([]string{s.Command, s.URL}, s.Args...)
		for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
			vals = append(vals, s.Headers[k])
		}
		for _, v := range vals {
			if strings.Contains(v, "${") {
				return []string{fmt.Sprintf("mcp server %q: the Copilot CLI is known to expand ${NAME} in env only; %q is written as is", name, v)}
			}
		}
		return nil
	}
	where, ok := undocumented[d]
	if !ok {
		return nil
	}
	vals := append([]string{s.Command, s.URL}, s.Args...)
	for _, m := range []map[string]string{s.Env, s.Headers} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			vals = append(vals, m[k])
		}
	}
	for _, v := range vals {
		if strings.Contains(v, "${") {
			return []string{fmt.Sprintf("mcp server %q: %s does not document ${VAR} expansion in %s; %q is written as is", name, where[0], where[1], v)}
		}
	}
	return nil
}

// stdioValue is a local server: {command, args, env} in every dialect,
// with the dialect's rewrite of ${VAR} (Cursor, VS Code, OpenCode),
// Codex's env_vars, VS Code's type and OpenCode's own shape.
func stdioValue(d mcpDialect, name string, s schema.MCPServer) (map[string]any, []string) {
	var warns []string
	v := map[string]any{"command": s.Command}
	args, env := s.Args, s.Env
	if f := envRewriter(d); f != nil {
		v["command"], args, env = f(s.Command), sliceEach(s.Args, f), mapEach(s.Env, f)
	}
	switch d {
	case dialectCodex:
		var envVars []string
		env, envVars, warns = codexEnv(name, s)
		if len(envVars) > 0 {
			v["env_vars"] = envVars
		}
	case dialectVSCode, dialectCrush:
		v["type"] = "stdio"
	case dialectCopilot:
		v["type"], v["tools"] = "local", []string{"*"}
	case dialectOpenCode:
		// One command array, "environment", and enabled (OpenCode's
		// own default, written so the entry says what it does).
		v["type"], v["enabled"] = "local", true
		v["command"] = append([]string{v["command"].(string)}, args...)
		args = nil
		if len(env) > 0 {
			v["environment"] = env
		}
		env = nil
	}
	if len(args) > 0 || d == dialectZed {
		v["args"] = append([]string{}, args...)
	}
	if len(env) > 0 {
		v["env"] = env
	}
	if d == dialectClaude {
		claudeAsGiven(v, s)
	}
	if len(s.Headers) > 0 {
		warns = append(warns, fmt.Sprintf("mcp server %q: headers are ignored for a stdio server", name))
	}
	return v, warns
}

// claudeAsGiven adds to Claude Code's stdio entry v what the config gives
// as `claude mcp add` writes it: "type": "stdio", and an empty args or env
// (given, not absent), so an entry the tool wrote is written back as it is
// (docs/import.md).
func claudeAsGiven(v map[string]any, s schema.MCPServer) {
	if s.Type != "" {
		v["type"] = s.Type
	}
	if s.Args != nil && len(s.Args) == 0 {
		v["args"] = []string{}
	}
	if s.Env != nil && len(s.Env) == 0 {
		v["env"] = map[string]string{}
	}
}

// remoteValue is a remote server in the dialect's shape.
func remoteValue(d mcpDialect, name string, s schema.MCPServer) (map[string]any, []string) {
	var warns []string
	if len(s.Args) > 0 || len(s.Env) > 0 {
		warns = append(warns, fmt.Sprintf("mcp server %q: args and env are ignored for a remote server", name))
	}
	sse := isSSE(s.URL)
	v := map[string]any{}
	u, headers := s.URL, s.Headers
	if f := envRewriter(d); f != nil {
		u, headers = f(s.URL), mapEach(s.Headers, f)
	}
	switch d {
	case dialectClaude, dialectVSCode, dialectCopilot, dialectCrush:
		v["type"] = "http"
		if sse {
			v["type"] = "sse"
		}
		v["url"] = u
		if d == dialectCopilot {
			v["tools"] = []string{"*"}
		}
	case dialectGemini:
		v["url"], v["type"] = u, "http"
		if sse {
			v["type"] = "sse"
		}
	case dialectAntigravity:
		v["serverUrl"] = u
	case dialectRoo:
		v["type"], v["url"] = "streamable-http", u
		if sse {
			v["type"] = "sse"
		}
	case dialectQwen:
		if sse {
			v["url"] = u
		} else {
			v["httpUrl"] = u
		}
	case dialectCodex:
		if sse {
			warns = append(warns, fmt.Sprintf("mcp server %q: codex supports streamable HTTP only; an SSE endpoint will not connect", name))
		}
		v["url"] = u
		return v, append(warns, codexHeaders(v, name, s.Headers)...)
	case dialectOpenCode:
		// OpenCode tries streamable HTTP, then SSE, at one url.
		v["type"], v["url"], v["enabled"] = "remote", u, true
	default:
		v["url"] = u
	}
	if len(headers) > 0 {
		v["headers"] = headers
	}
	return v, warns
}

// codexHeaders sets a Codex remote server's headers in v. Codex rejects
// inline bearer tokens and expands no ${VAR}: "${VAR}" values go to its
// env-based keys (env_http_headers, bearer_token_env_var), so no secret
// lands in config.toml; a ${VAR} inside other text is left out, warned.
func codexHeaders(v map[string]any, name string, headers map[string]string) []string {
	var warns []string
	plain := map[string]string{}
	envh := map[string]string{}
	for _, h := range slices.Sorted(maps.Keys(headers)) {
		val := headers[h]
		if strings.EqualFold(h, "Authorization") {
			if rest, ok := strings.CutPrefix(val, "Bearer "); ok {
				if ev, ok := envRef(rest); ok {
					v["bearer_token_env_var"] = ev
					continue
				}
			}
		}
		if ev, ok := envRef(val); ok {
			envh[h] = ev
			continue
		}
		if strings.Contains(val, "${") {
			warns = append(warns, fmt.Sprintf("mcp server %q: codex does not expand ${VAR}, and header %s = %q is not a whole ${VAR} it can take from the environment (env_http_headers); the header is not written", name, h, val))
			continue
		}
		plain[h] = val
	}
	if len(plain) > 0 {
		v["http_headers"] = plain
	}
	if len(envh) > 0 {
		v["env_http_headers"] = envh
	}
	return warns
}

// codexEnv splits a stdio server's env for Codex, which expands no
// ${VAR} (developers.openai.com/codex/mcp): literal values stay in env;
// "NAME": "${NAME}" becomes a pass-through in env_vars (Codex forwards
// that variable from its own environment). Codex cannot rename a
// variable, so "A": "${B}" is written as a pass-through of A, with a
// warning; a value with ${VAR} inside other text cannot be expressed and
// is left out, with a warning. Never is ${VAR} written as literal text.
// ${VAR} in command or args is warned about: Codex passes it on as is.
func codexEnv(name string, s schema.MCPServer) (env map[string]string, envVars, warns []string) {
	env = map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		v := s.Env[k]
		ref, whole := envRef(v)
		switch {
		case whole && ref == k:
			envVars = append(envVars, k)
		case whole:
			envVars = append(envVars, k)
			warns = append(warns, fmt.Sprintf("mcp server %q: codex cannot rename an environment variable: env %s = %q is written as env_vars = [%q], so %s must be set where codex runs", name, k, v, k, k))
		case strings.Contains(v, "${"):
			warns = append(warns, fmt.Sprintf("mcp server %q: codex does not expand ${VAR}: env %s = %q is not written; set %s where codex runs and use %s: \"${%s}\"", name, k, v, k, k, k))
		default:
			env[k] = v
		}
	}
	for _, a := range append([]string{s.Command}, s.Args...) {
		if strings.Contains(a, "${") {
			warns = append(warns, fmt.Sprintf("mcp server %q: codex does not expand ${VAR} in command or args: %q is passed as is", name, a))
		}
	}
	return env, envVars, warns
}

// codexNameRe is what Codex accepts as an MCP server name. Compiled on
// first use, not at start-up.
var codexNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

// serverKey is the key a server gets in the dialect's file, plus a
// warning when the name had to change or will misbehave: Codex and Pi
// refuse names outside ^[A-Za-z0-9_-]+$ (other characters become "_");
// Gemini CLI qualifies MCP tools as mcp_<server>_<tool> and its policy
// engine splits that at the first "_", so rules for a server whose name
// holds one do not match (google-gemini/gemini-cli#21727, #27981).
func serverKey(d mcpDialect, ref string) (string, string) {
	name := diskName(ref)
	switch {
	case (d == dialectCodex || d == dialectPi) && !codexNameRe().MatchString(name):
		fixed := strings.Map(func(r rune) rune {
			if r < 0x80 && codexNameRe().MatchString(string(r)) {
				return r
			}
			return '_'
		}, name)
		return fixed, fmt.Sprintf("mcp server %q: %s accepts server names matching ^[A-Za-z0-9_-]+$ only, so it is written as %q; rename it to %q to silence this", ref, d, fixed, fixed)
	case d == dialectGemini && strings.Contains(name, "_"):
		return name, fmt.Sprintf("mcp server %q: Gemini CLI's policy rules split MCP tool names (mcp_<server>_<tool>) at the first \"_\", so policies for this server do not match; prefer a name without \"_\" (e.g. %q)", ref, strings.ReplaceAll(name, "_", "-"))
	}
	return name, ""
}

// noSSE are the dialects whose tool takes no SSE server, besides Pi.
var noSSE = map[mcpDialect]string{dialectZed: "Zed", dialectKimi: "Kimi Code"}

// refused says why the dialect's tool cannot take server s at all, or
// "": Pi refuses SSE servers (pi.dev/docs/latest/mcp), and so do Zed and
// Kimi Code (noSSE).
func refused(d mcpDialect, name string, s schema.MCPServer) string {
	if d == dialectPi && s.URL != "" && isSSE(s.URL) {
		return fmt.Sprintf("mcp server %q: Pi does not support the SSE transport; it is not written", name)
	}
	if tool := noSSE[d]; tool != "" && s.URL != "" && isSSE(s.URL) {
		return fmt.Sprintf("mcp server %q: %s does not support the SSE transport; it is not written", name, tool)
	}
	if d == dialectGoose && s.URL != "" {
		return fmt.Sprintf("mcp server %q: Goose reads only stdio servers from a plugin's .mcp.json; this remote one is not written (add it as a Goose extension in its own config)", name)
	}
	return ""
}
