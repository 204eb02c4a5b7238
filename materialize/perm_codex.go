package materialize

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/actctl/actctl/schema"
)

// Codex decisions for prefix_rule (developers.openai.com/codex/rules).
var codexDecision = map[string]string{"allow": "allow", "deny": "forbidden", "ask": "prompt"}

// codexRules writes the allow/deny/ask rules about shell commands to the
// layout's rules file as Codex prefix_rule()s; without a rules file they
// are warned about, as are rules Codex cannot say.
func (rd *renderer) codexRules(f *schema.PermissionsFile, p schema.Permissions) error {
	if len(p.Allow)+len(p.Deny)+len(p.Ask) == 0 {
		return nil
	}
	if f.Rules == "" {
		rd.warn("permission rules (allow/deny/ask) cannot be expressed for codex without files.permissions.rules; only the mode is mapped to sandbox_mode/approval_policy")
		return nil
	}
	body, warns := codexRulesFile(rd.r.Name, p)
	for _, w := range warns {
		rd.warn("%s", w)
	}
	if body == nil {
		return nil
	}
	return rd.addFile(f.Rules, body, "permission rules")
}

// codexRulesFile renders p's rules as a Codex rules file (Starlark), in
// the order deny, ask, allow, or nil when none can be said.
func codexRulesFile(agent string, p schema.Permissions) ([]byte, []string) {
	var b strings.Builder
	var warns []string
	n := 0
	for _, l := range []struct {
		kind  string
		rules []string
	}{{"deny", p.Deny}, {"ask", p.Ask}, {"allow", p.Allow}} {
		for _, r := range l.rules {
			words, why := codexPattern(r, l.kind)
			if why != "" {
				warns = append(warns, fmt.Sprintf("permission rule %q cannot be expressed for codex (%s); it is not written", r, why))
				continue
			}
			if n == 0 {
				fmt.Fprintf(&b, "# Written by actctl for agent %q from its permissions (actant.cue); edit them there.\n", agent)
			}
			n++
			fmt.Fprintf(&b, "prefix_rule(pattern = [%s], decision = %q)\n", strings.Join(quoteStarlark(words), ", "), codexDecision[l.kind])
		}
	}
	if n == 0 {
		return nil, warns
	}
	return []byte(b.String()), warns
}

// codexPattern turns Claude Code's Bash(cmd args:*), Bash(cmd args *) or
// Bash(cmd args) into the words of a Codex prefix pattern, or says why
// not. Codex matches a prefix of the command's words, so an exact
// Bash(cmd) becomes a prefix: stricter for deny and ask, but wider for
// allow, where it is refused.
func codexPattern(rule, kind string) ([]string, string) {
	if rule == "Bash" {
		return nil, "a rule about every command has no prefix"
	}
	arg, ok := strings.CutPrefix(rule, "Bash(")
	if !ok || !strings.HasSuffix(arg, ")") {
		return nil, "Codex rules are about shell commands, Bash(...), only"
	}
	arg = strings.TrimSuffix(arg, ")")
	prefix := false
	for _, suf := range []string{":*", " *"} {
		if strings.HasSuffix(arg, suf) {
			arg, prefix = strings.TrimSuffix(arg, suf), true
			break
		}
	}
	words := strings.Fields(arg)
	switch {
	case len(words) == 0:
		return nil, "a rule about every command has no prefix"
	case strings.ContainsAny(arg, "*?\"'\\"):
		return nil, "a wildcard or quote inside the command has no prefix form"
	case !prefix && kind == "allow":
		return nil, "an exact command would allow every command it starts; write Bash(" + arg + ":*) to mean the prefix"
	}
	return words, ""
}

func quoteStarlark(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strconv.Quote(w)
	}
	return out
}
