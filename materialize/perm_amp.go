package materialize

import (
	"fmt"
	"strings"

	"github.com/actctl/actctl/schema"
)

// ampRule is one rule of Amp's amp.permissions: the first rule whose tool
// (a glob) and argument conditions match decides (allow, reject, ask;
// ampcode.com/manual/appendix#permissions-configuration).
type ampRule struct {
	Tool    string            `json:"tool"`
	Matches map[string]string `json:"matches,omitempty"`
	Action  string            `json:"action"`
}

// ampPermissions renders p as Amp's amp.permissions: deny rules first
// (as reject), then ask, then allow, so the first match gives Claude
// Code's precedence. Bash(cmd:*) matches the command cmd and "cmd ...",
// Bash(cmd) the command exactly, mcp__server__tool names the MCP tool
// (globs as written). Amp's settings have no permission mode: permissive
// is a last rule allowing every tool; restricted needs none (Amp asks for
// what its built-in rules do not allow); readonly and standard would need
// Amp's edit tools by name, which actctl does not write (warning), nor
// rules for other tools (docs/formats.md, "amp").
func ampPermissions(mode string, p schema.Permissions) ([]Key, []string) {
	var rules []ampRule
	var warns []string
	for _, l := range []struct {
		action string
		rules  []string
	}{{"reject", p.Deny}, {"ask", p.Ask}, {"allow", p.Allow}} {
		for _, r := range l.rules {
			rs, w := ampRules(r, l.action)
			if w != "" {
				warns = append(warns, w)
			}
			rules = append(rules, rs...)
		}
	}
	switch mode {
	case claudeBypass:
		rules = append(rules, ampRule{Tool: "*", Action: "allow"})
	case "", claudeDefault:
	default:
		warns = append(warns, fmt.Sprintf("permission mode %s has no Amp setting (amp.permissions names tools, and actctl does not write Amp's edit tools by name); Amp asks for what its rules do not allow", mode))
	}
	if len(p.AdditionalDirectories) > 0 {
		warns = append(warns, "permissions.additionalDirectories cannot be expressed for amp; the agent gets its workspace only")
	}
	if len(rules) == 0 {
		return nil, warns
	}
	return []Key{key(rules, "amp.permissions")}, warns
}

// ampRules translates one Claude Code rule into Amp rules, or says why
// it has none.
func ampRules(r, action string) ([]ampRule, string) {
	if strings.HasPrefix(r, "mcp__") {
		return []ampRule{{Tool: r, Action: action}}, ""
	}
	name, arg, hasArg := strings.Cut(r, "(")
	if name != "Bash" || hasArg && !strings.HasSuffix(arg, ")") {
		return nil, fmt.Sprintf("permission rule %q has no Amp form actctl writes (Bash() and mcp__ tools are translated); it is not written", r)
	}
	arg = strings.TrimSuffix(arg, ")")
	switch cmd, prefix := strings.CutSuffix(arg, ":*"); {
	case !hasArg || arg == "" || arg == "*":
		return []ampRule{{Tool: "Bash", Action: action}}, ""
	case prefix:
		return []ampRule{{Tool: "Bash", Matches: map[string]string{"cmd": cmd}, Action: action},
			{Tool: "Bash", Matches: map[string]string{"cmd": cmd + " *"}, Action: action}}, ""
	default:
		return []ampRule{{Tool: "Bash", Matches: map[string]string{"cmd": arg}, Action: action}}, ""
	}
}
