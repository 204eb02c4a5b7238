package materialize

import (
	"fmt"
	"slices"
	"strings"

	"github.com/actctl/actctl/schema"
)

// devinPermissions renders p for Devin's .devin/config.json: its
// permissions {allow, ask, deny} take scope matchers, Read(glob),
// Write(glob), Exec(prefix), Fetch(pattern) and mcp__server__tool
// (docs.devin.ai/cli/reference/permissions, via rulesync
// devin-permissions.ts; docs/formats.md, "devin"). Claude Code's rules
// are translated; Devin has no permission mode in its project config, so
// a mode (a preset) is warned about, as are additional directories.
func devinPermissions(mode string, p schema.Permissions) ([]Key, []string) {
	var keys []Key
	var warns []string
	if mode != "" {
		warns = append(warns, fmt.Sprintf("permission mode %s has no Devin setting (its project config takes rules only); Devin's own default applies", mode))
	}
	for _, l := range []struct {
		name  string
		rules []string
	}{{"allow", p.Allow}, {"ask", p.Ask}, {"deny", p.Deny}} {
		var out []string
		for _, r := range l.rules {
			d, w := devinRule(r, l.name == "allow")
			if w != "" {
				warns = append(warns, w)
			}
			if d != "" && !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
		if len(out) > 0 {
			keys = append(keys, key(out, "permissions", l.name))
		}
	}
	if len(p.AdditionalDirectories) > 0 {
		warns = append(warns, "permissions.additionalDirectories cannot be expressed for devin; the agent gets its workspace only")
	}
	return keys, warns
}

// devinRule translates one Claude Code rule into Devin's form, or says
// why it has none. Bash(cmd:*) is Exec(cmd); an exact Bash(cmd) becomes
// Exec(cmd) too, which Devin matches as a prefix: allowed, it allows
// more, so it is said.
func devinRule(r string, allow bool) (string, string) {
	if strings.HasPrefix(r, "mcp__") {
		return r, ""
	}
	name, arg, hasArg := strings.Cut(r, "(")
	if hasArg {
		if !strings.HasSuffix(arg, ")") {
			return "", fmt.Sprintf("permission rule %q is not Tool(pattern); it is not written for devin", r)
		}
		arg = strings.TrimSuffix(arg, ")")
	}
	scope := map[string]string{"Read": "Read", "Edit": "Write", "Write": "Write", "MultiEdit": "Write", "Bash": "Exec", "WebFetch": "Fetch"}[name]
	if scope == "" {
		return "", fmt.Sprintf("permission rule %q has no Devin form (Read(), Write(), Exec(), Fetch(), mcp__); it is not written", r)
	}
	var warn string
	switch scope {
	case "Exec":
		if cmd, ok := strings.CutSuffix(arg, ":*"); ok {
			arg = cmd
		} else if allow && hasArg {
			warn = fmt.Sprintf("permission rule %q: Devin matches Exec(%s) as a prefix, so it allows every command that starts so", r, arg)
		}
	case "Fetch":
		arg = strings.TrimPrefix(arg, "domain:")
	}
	if !hasArg || arg == "" || arg == "*" {
		return scope, warn
	}
	return scope + "(" + arg + ")", warn
}
