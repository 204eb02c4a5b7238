package materialize

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/actctl/actctl/schema"
)

// OpenCode permission actions (opencode.ai/v1/docs/permissions), by
// precedence: a deny beats an ask beats an allow for the same pattern.
var openCodeRank = map[string]int{"allow": 1, "ask": 2, "deny": 3}

// openCodePermissions renders p for OpenCode (and Kilo, its fork):
// permission.edit, permission.bash and permission.webfetch take the
// mode's action; explicit rules in Claude Code's form become pattern maps
// under permission.bash, permission.edit and permission.read
// ({"*": mode's action, "git push *": "deny"}); additional directories
// become permission.external_directory patterns (docs/formats.md,
// "opencode"). OpenCode applies the last pattern that matches, and
// actctl writes a map's patterns in sorted order: where that order could
// let a weaker rule win over a stronger one, it says so.
func openCodePermissions(dir string, committed bool, mode string, p schema.Permissions) ([]Key, []string) {
	if mode == "" {
		mode = claudeDefault
	}
	o := openCodeByMode[mode]
	var warns []string
	if o.approx {
		warns = append(warns, fmt.Sprintf("permission mode %s has no OpenCode setting; approximated by edit %q, bash %q", mode, o.edit, o.bash))
	}
	maps := map[string]map[string]string{}
	for _, l := range []struct {
		action string
		rules  []string
	}{{"allow", p.Allow}, {"ask", p.Ask}, {"deny", p.Deny}} {
		for _, r := range l.rules {
			tool, pats, w := openCodeRule(r)
			if w != "" {
				warns = append(warns, w)
				continue
			}
			if maps[tool] == nil {
				maps[tool] = map[string]string{}
			}
			for _, pat := range pats {
				if openCodeRank[l.action] > openCodeRank[maps[tool][pat]] {
					maps[tool][pat] = l.action
				}
			}
		}
	}
	base := map[string]string{"edit": o.edit, "bash": o.bash, "webfetch": o.webfetch, "read": "allow"}
	var keys []Key
	for _, tool := range []string{"edit", "bash", "webfetch", "read"} {
		m := maps[tool]
		switch {
		case len(m) == 0 && tool == "read":
		case len(m) == 0:
			keys = append(keys, key(base[tool], "permission", tool))
		default:
			if _, ok := m["*"]; !ok {
				m["*"] = base[tool]
			}
			warns = append(warns, openCodeOrder(tool, m)...)
			keys = append(keys, key(m, "permission", tool))
		}
	}
	roots, w := extraDirs(dir, committed, p.AdditionalDirectories, func(d string) string {
		return fmt.Sprintf("permissions.additionalDirectories: %q is not written to OpenCode's permission.external_directory: a relative path there is not documented, and this directory's absolute path would tie the committed file to this machine; give an absolute or ~/ path", d)
	})
	warns = append(warns, w...)
	if len(roots) > 0 {
		ext := map[string]string{}
		for _, r := range roots {
			ext[strings.TrimSuffix(r, "/")+"/**"] = "allow"
		}
		keys = append(keys, key(ext, "permission", "external_directory"))
	}
	return keys, warns
}

// openCodeRule translates one Claude Code rule into an OpenCode tool and
// its patterns, or says why it has none: Bash(cmd:*) matches cmd and
// "cmd ..." (two patterns), Bash(cmd) the command exactly; Read(glob) and
// Edit/Write/MultiEdit(glob) are path patterns of read and edit.
func openCodeRule(r string) (tool string, pats []string, warn string) {
	name, arg, hasArg := strings.Cut(r, "(")
	if hasArg {
		if !strings.HasSuffix(arg, ")") {
			return "", nil, fmt.Sprintf("permission rule %q is not Tool(pattern); it is not written for opencode", r)
		}
		arg = strings.TrimSuffix(arg, ")")
	}
	tool = map[string]string{"Bash": "bash", "Read": "read", "Edit": "edit", "Write": "edit", "MultiEdit": "edit"}[name]
	if tool == "" {
		return "", nil, fmt.Sprintf("permission rule %q has no OpenCode form (Bash(), Read(), Edit(), Write() are translated); it is not written", r)
	}
	if !hasArg || arg == "" || arg == "*" {
		return tool, []string{"*"}, ""
	}
	if cmd, ok := strings.CutSuffix(arg, ":*"); ok && tool == "bash" {
		return tool, []string{cmd, cmd + " *"}, ""
	}
	return tool, []string{arg}, ""
}

// openCodeOrder warns where sorted order puts a pattern that can match
// what a later pattern matches before it with a stronger action: OpenCode
// applies the last match, so the weaker later one would win.
func openCodeOrder(tool string, m map[string]string) []string {
	pats := make([]string, 0, len(m))
	for p := range m {
		pats = append(pats, p)
	}
	sort.Strings(pats)
	rank := func(p string) int {
		if p == "*" && m[p] != "" {
			return 0 // the mode's action: every rule may override it
		}
		return openCodeRank[m[p]]
	}
	var warns []string
	for i, a := range pats {
		for _, b := range pats[i+1:] {
			if rank(a) > rank(b) && m[a] != m[b] && mayOverlap(a, b) {
				warns = append(warns, fmt.Sprintf("opencode permission.%s: %q (%s) is written before %q (%s), and OpenCode applies the last pattern that matches: a command matching both gets %s; narrow %q",
					tool, a, m[a], b, m[b], m[b], b))
			}
		}
	}
	return slices.Compact(warns)
}

// mayOverlap reports whether two wildcard patterns could match one
// string: a pattern without wildcards matches only itself; otherwise their
// literal prefixes (up to the first * or ?) must agree (an estimate that
// errs towards warning).
func mayOverlap(a, b string) bool {
	switch {
	case !strings.ContainsAny(a, "*?"):
		return globMatch(b, a)
	case !strings.ContainsAny(b, "*?"):
		return globMatch(a, b)
	}
	la, lb := literalPrefix(a), literalPrefix(b)
	return strings.HasPrefix(la, lb) || strings.HasPrefix(lb, la)
}

// globMatch reports whether s matches pattern p, OpenCode's wildcards: *
// any run of characters (also none), ? one character.
func globMatch(p, s string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for i := len(s); i >= 0; i-- {
				if globMatch(p[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			_, n := utf8.DecodeRuneInString(s)
			p, s = p[1:], s[n:]
		default:
			if s == "" || s[0] != p[0] {
				return false
			}
			p, s = p[1:], s[1:]
		}
	}
	return s == ""
}

func literalPrefix(p string) string {
	if i := strings.IndexAny(p, "*?"); i >= 0 {
		return p[:i]
	}
	return p
}
