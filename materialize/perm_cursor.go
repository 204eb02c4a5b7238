package materialize

import (
	"fmt"
	"slices"
	"strings"

	"github.com/actctl/actctl/schema"
)

// Cursor CLI permission tokens (cursor.com/docs/cli/reference/permissions):
// Shell(commandBase), Read(pathOrGlob), Write(pathOrGlob),
// WebFetch(domainOrPattern), Mcp(server:tool); globs ** * ?; deny wins.
const (
	cursorReadAll  = "Read(**)"
	cursorWriteAll = "Write(**)"
	cursorShellAll = "Shell(*)"
	cursorFetchAll = "WebFetch(*)"
	cursorMcpAll   = "Mcp(*:*)"
)

// cursorByMode maps a permission mode onto Cursor CLI allow/deny lists.
// Without a matching rule the CLI asks, so "default" allows reads only;
// plan and dontAsk deny writes (dontAsk, which never asks, also denies
// shell commands); bypassPermissions allows every kind.
var cursorByMode = map[string]struct {
	allow, deny []string
	approx      bool
}{
	claudePlan:        {allow: []string{cursorReadAll}, deny: []string{cursorWriteAll}},
	claudeDefault:     {allow: []string{cursorReadAll}},
	claudeAcceptEdits: {allow: []string{cursorReadAll, cursorWriteAll}},
	claudeAuto:        {allow: []string{cursorReadAll, cursorWriteAll}, approx: true},
	claudeDontAsk:     {allow: []string{cursorReadAll}, deny: []string{cursorWriteAll, cursorShellAll}, approx: true},
	claudeBypass:      {allow: []string{cursorReadAll, cursorWriteAll, cursorShellAll, cursorFetchAll, cursorMcpAll}},
}

// cursorPermissions renders a mode and explicit rules as Cursor CLI's
// permissions.allow / permissions.deny. Explicit rules in Cursor's token
// form (Shell, Read, Write, WebFetch, Mcp) are added as written; rules in
// Claude Code's form are translated (cursorToken); what has no Cursor form,
// and ask rules, are warned about and left out.
func cursorPermissions(mode string, p schema.Permissions) ([]Key, []string) {
	if mode == "" {
		mode = claudeDefault
	}
	m := cursorByMode[mode]
	var warns []string
	if m.approx {
		warns = append(warns, fmt.Sprintf("permission mode %s has no Cursor CLI equivalent; approximated by permissions.allow %v, deny %v", mode, m.allow, m.deny))
	}
	allow, w := cursorRules(append([]string(nil), m.allow...), p.Allow)
	warns = append(warns, w...)
	deny, w := cursorRules(append([]string(nil), m.deny...), p.Deny)
	warns = append(warns, w...)
	if len(p.Ask) > 0 {
		warns = append(warns, "permission ask rules cannot be expressed for Cursor CLI (it has allow and deny only); they are not written")
	}
	if len(p.AdditionalDirectories) > 0 {
		warns = append(warns, "permissions.additionalDirectories cannot be expressed for Cursor CLI; the agent gets its workspace only")
	}
	keys := []Key{key(allow, "permissions", "allow")}
	if len(deny) > 0 {
		keys = append(keys, key(deny, "permissions", "deny"))
	}
	return keys, warns
}

// cursorRules appends the rules Cursor can read to out, without duplicates.
func cursorRules(out, rules []string) ([]string, []string) {
	var warns []string
	for _, r := range rules {
		tok, why := cursorToken(r)
		if tok == "" {
			warns = append(warns, fmt.Sprintf("permission rule %q has no Cursor CLI form (Shell(), Read(), Write(), WebFetch(), Mcp())%s; it is not written", r, why))
			continue
		}
		if !slices.Contains(out, tok) {
			out = append(out, tok)
		}
	}
	return out, warns
}

// cursorToken translates one rule into a Cursor CLI token, or returns ""
// and why not. Shell(), Mcp() and WebFetch() without "domain:" are Cursor's
// own and kept as written; Claude Code's forms are translated (code.claude.com/docs/en/permissions): a bare tool name
// covers everything of its kind; Edit and Write become Write;
// WebFetch(domain:d) becomes WebFetch(d); mcp__srv__tool becomes
// Mcp(srv:tool) (mcp__srv, mcp__srv__*: every tool of srv); a path of
// Read or Write loses Claude's "./" and "/" (relative to the project) and
// "//" becomes "/" (absolute); Bash(cmd), Bash(cmd:*) and Bash(cmd *) with
// one word become Shell(cmd): Cursor's Shell matches a command's first
// word only, so a rule about more words has no Cursor form.
func cursorToken(r string) (string, string) {
	if hasAnyPrefix(r, []string{"Shell(", "Mcp("}) && strings.HasSuffix(r, ")") {
		return r, ""
	}
	if strings.HasPrefix(r, "mcp__") {
		return cursorMcp(strings.TrimPrefix(r, "mcp__"))
	}
	tool, arg, ok := strings.Cut(r, "(")
	if ok && !strings.HasSuffix(arg, ")") {
		return "", ""
	}
	arg = strings.TrimSuffix(arg, ")")
	switch tool {
	case "Read", "Edit", "Write", "MultiEdit":
		kind := "Write"
		if tool == "Read" {
			kind = "Read"
		}
		if !ok || arg == "" || arg == "*" {
			return kind + "(**)", ""
		}
		return kind + "(" + cursorPath(arg) + ")", ""
	case "WebFetch":
		d, isDomain := strings.CutPrefix(arg, "domain:")
		if !ok || arg == "" || !isDomain && arg == "*" {
			return "WebFetch(*)", ""
		}
		if !isDomain {
			return r, "" // Cursor's own WebFetch(domainOrPattern)
		}
		if d == "" {
			return "", ""
		}
		return "WebFetch(" + d + ")", ""
	case "Bash":
		if !ok || arg == "" || arg == "*" {
			return "Shell(*)", ""
		}
		cmd := strings.TrimSuffix(strings.TrimSuffix(arg, ":*"), " *")
		if cmd == "" || strings.ContainsAny(cmd, " \t*:") {
			return "", " (Cursor's Shell() matches the first word of a command only)"
		}
		return "Shell(" + cmd + ")", ""
	}
	return "", ""
}

// cursorMcp translates Claude's mcp__srv__tool (after the prefix).
func cursorMcp(rest string) (string, string) {
	srv, tool, _ := strings.Cut(rest, "__")
	if tool == "" {
		tool = "*"
	}
	if srv == "" || strings.ContainsAny(srv+tool, ":()") {
		return "", ""
	}
	return "Mcp(" + srv + ":" + tool + ")", ""
}

// cursorPath turns a Claude Code path pattern into Cursor's, relative to
// the workspace: "./x" and "/x" (both the project's) become "x", "//x"
// (absolute) becomes "/x"; "~/x" and "x" stay.
func cursorPath(p string) string {
	switch {
	case strings.HasPrefix(p, "//"):
		return p[1:]
	case strings.HasPrefix(p, "./"):
		return strings.TrimLeft(p[2:], "/")
	case strings.HasPrefix(p, "/"):
		return p[1:]
	}
	return p
}

func hasAnyPrefix(s string, ps []string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
