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
// permissions.allow / permissions.deny. Explicit rules already in Cursor's
// token form (Shell, Read, Write, WebFetch, Mcp) are added as written,
// Claude Code's Edit(x) becomes Write(x); other rules (Bash(...) matches
// whole commands, Cursor only their first word) and ask rules are warned
// about and left out.
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

var cursorTypes = []string{"Shell(", "Read(", "Write(", "WebFetch(", "Mcp("}

// cursorRules appends the rules Cursor can read to out, without duplicates.
func cursorRules(out, rules []string) ([]string, []string) {
	var warns []string
	for _, r := range rules {
		switch {
		case strings.HasPrefix(r, "Edit(") && strings.HasSuffix(r, ")"):
			r = "Write(" + strings.TrimPrefix(r, "Edit(")
		case !hasAnyPrefix(r, cursorTypes) || !strings.HasSuffix(r, ")"):
			warns = append(warns, fmt.Sprintf("permission rule %q has no Cursor CLI form (Shell(), Read(), Write(), WebFetch(), Mcp()); it is not written", r))
			continue
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out, warns
}

func hasAnyPrefix(s string, ps []string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
