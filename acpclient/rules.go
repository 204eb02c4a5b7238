package acpclient

import (
	"cmp"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/model"
)

// Verdicts of an agent's permission rule (model.Permissions' allow, deny
// and ask lists).
const (
	VerdictAllow = "allow"
	VerdictDeny  = "deny"
	VerdictAsk   = "ask"
)

// Rules are an agent's explicit permission rules, in Claude Code's
// vocabulary (Bash(npm test:*), Read(./src/**), Edit, WebFetch(domain:x),
// mcp__server__tool), as actctl's client matches them against the tool
// call of a session/request_permission (docs/run.md, "Permission rules").
// The zero value has no rule.
type Rules struct{ list []permRule }

// permRule is one rule: the tool it names and its argument, if any.
type permRule struct {
	verdict, text string
	tool, arg     string
	hasArg        bool // false for a bare tool name, Tool() and Tool(*)
	literal       int  // the argument's characters other than wildcards
}

// RuleMatch is the rule that decides a tool call: Verdict "" when none
// does; Rule the rule as the log records it ("deny Bash(rm:*)").
type RuleMatch struct {
	Verdict string
	Rule    string
}

// RulesOf reads p's allow, deny and ask lists (a preset has none).
func RulesOf(p model.Permissions) Rules {
	var r Rules
	for _, l := range []struct {
		verdict string
		rules   []string
	}{{VerdictAllow, p.Allow}, {VerdictDeny, p.Deny}, {VerdictAsk, p.Ask}} {
		for _, text := range l.rules {
			r.list = append(r.list, parseRule(l.verdict, text))
		}
	}
	return r
}

// Denials are r's deny rules alone: what a flag that answers every
// request (--approve-all, --approve-reads, --deny-all) leaves of the
// agent's rules (docs/run.md, "Permission rules").
func (r Rules) Denials() Rules {
	var d Rules
	for _, pr := range r.list {
		if pr.verdict == VerdictDeny {
			d.list = append(d.list, pr)
		}
	}
	return d
}

// parseRule splits "Tool(arg)" into its tool and argument.
func parseRule(verdict, text string) permRule {
	pr := permRule{verdict: verdict, text: strings.TrimSpace(text)}
	tool, arg, ok := strings.Cut(pr.text, "(")
	pr.tool = tool
	if ok && strings.HasSuffix(arg, ")") {
		pr.arg = strings.TrimSuffix(arg, ")")
		pr.hasArg = pr.arg != "" && pr.arg != "*" && pr.arg != ":*"
		pr.literal = len(strings.NewReplacer("*", "", "?", "").Replace(pr.arg))
	}
	return pr
}

// ToolInput is what a permission request says of its tool call, which
// the rules match.
type ToolInput struct {
	Kind  acp.ToolKind
	Title string
	// Command is rawInput's command (a shell command); Path its path
	// (file_path, path, notebook_path), else the first location's; URL its
	// url.
	Command, Path, URL string
	// Cwd is the session's cwd: relative patterns and paths are relative
	// to it.
	Cwd string
}

// InputOf is the ToolInput of a request for call (its title and kind as
// the session knows them) whose tool call is req, in a session of cwd.
func InputOf(call ToolCall, req acp.ToolCallUpdate, cwd string) ToolInput {
	in := ToolInput{Kind: call.Kind, Title: call.Title, Cwd: cwd}
	raw, _ := req.RawInput.(map[string]any)
	in.Command = rawString(raw["command"])
	in.URL = rawString(raw["url"])
	for _, k := range []string{"file_path", "path", "notebook_path"} {
		if in.Path = rawString(raw[k]); in.Path != "" {
			break
		}
	}
	if in.Path == "" && len(req.Locations) > 0 {
		in.Path = req.Locations[0].Path
	}
	if in.Path != "" && !filepath.IsAbs(in.Path) {
		in.Path = filepath.Join(cwd, in.Path)
	}
	return in
}

// rawString is v as a string: a string, or a list of strings (an argv)
// joined by spaces.
func rawString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		var words []string
		for _, w := range v {
			s, ok := w.(string)
			if !ok {
				return ""
			}
			words = append(words, s)
		}
		return strings.Join(words, " ")
	}
	return ""
}

// Match is the most specific rule that matches in: a rule with an
// argument before a bare tool name, a longer literal argument before a
// shorter one, and at equal specificity deny before ask before allow
// (docs/run.md, "Permission rules").
func (r Rules) Match(in ToolInput) RuleMatch {
	var best *permRule
	for i := range r.list {
		pr := &r.list[i]
		if pr.matches(in) && (best == nil || pr.beats(best)) {
			best = pr
		}
	}
	if best == nil {
		return RuleMatch{}
	}
	return RuleMatch{Verdict: best.verdict, Rule: best.verdict + " " + best.text}
}

// beats reports whether pr is more specific than q, or as specific and
// stricter.
func (pr *permRule) beats(q *permRule) bool {
	if pr.hasArg != q.hasArg {
		return pr.hasArg
	}
	if pr.literal != q.literal {
		return pr.literal > q.literal
	}
	rank := []string{VerdictAllow, VerdictAsk, VerdictDeny}
	return slices.Index(rank, pr.verdict) > slices.Index(rank, q.verdict)
}

// toolKinds are the ACP tool kinds of Claude Code's tools: how
// claude-agent-acp reports them, and Claude Code's rule that Read covers
// its search tools and Edit every tool that changes files.
var toolKinds = map[string][]acp.ToolKind{
	"Bash":         {acp.ToolKindExecute},
	"Read":         {acp.ToolKindRead, acp.ToolKindSearch},
	"Grep":         {acp.ToolKindSearch},
	"Glob":         {acp.ToolKindSearch},
	"LS":           {acp.ToolKindSearch},
	"NotebookRead": {acp.ToolKindRead},
	"Edit":         {acp.ToolKindEdit, acp.ToolKindDelete, acp.ToolKindMove},
	"Write":        {acp.ToolKindEdit},
	"MultiEdit":    {acp.ToolKindEdit},
	"NotebookEdit": {acp.ToolKindEdit},
	"WebFetch":     {acp.ToolKindFetch},
	"WebSearch":    {acp.ToolKindFetch},
}

// matches reports whether pr names in's tool and, with an argument,
// matches its command, path or address.
func (pr *permRule) matches(in ToolInput) bool {
	kinds, known := toolKinds[pr.tool]
	if !known {
		return pr.matchesTitle(in.Title)
	}
	if !slices.Contains(kinds, in.Kind) {
		return false
	}
	if !pr.hasArg {
		return true
	}
	switch in.Kind {
	case acp.ToolKindExecute:
		return commandMatches(pr.arg, cmp.Or(in.Command, strings.Trim(in.Title, "` ")))
	case acp.ToolKindFetch:
		return fetchMatches(pr.arg, in.URL, in.Title)
	}
	return in.Path != "" && pathMatches(absPattern(pr.arg, in.Cwd), in.Path)
}

// matchesTitle matches a tool Claude Code's vocabulary does not give a
// kind (an MCP server's mcp__server__tool, Task, ...) by the title: the
// rule's name (* standing for any text) is the title's first word, or
// mcp__server names every tool of that server; an argument is a pattern
// of the rest of the title.
func (pr *permRule) matchesTitle(title string) bool {
	name, rest, _ := strings.Cut(strings.TrimSpace(title), " ")
	if pr.tool == "" || name == "" {
		return false
	}
	if strings.HasPrefix(pr.tool, "mcp__") && strings.HasPrefix(name, pr.tool+"__") {
		return !pr.hasArg
	}
	if !wildcard(pr.tool, false).MatchString(name) {
		return false
	}
	return !pr.hasArg || wildcard(pr.arg, false).MatchString(strings.TrimSpace(rest))
}

// commandMatches matches a shell command: "cmd:*" is the command cmd
// with any arguments (Claude Code's prefix form), any other pattern the
// whole command with * standing for any text.
func commandMatches(pat, command string) bool {
	command = strings.TrimSpace(command)
	if p, ok := strings.CutSuffix(pat, ":*"); ok {
		return command == p || strings.HasPrefix(command, p+" ")
	}
	return wildcard(pat, false).MatchString(command)
}

// fetchMatches matches an address: domain:D its host (D may hold *),
// anything else the whole URL (else the title).
func fetchMatches(pat, url, title string) bool {
	if d, ok := strings.CutPrefix(pat, "domain:"); ok {
		host := url
		if _, rest, ok := strings.Cut(host, "://"); ok {
			host = rest
		}
		host, _, _ = strings.Cut(host, "/")
		host, _, _ = strings.Cut(host, ":")
		return host != "" && wildcard(d, false).MatchString(strings.ToLower(host))
	}
	return wildcard(pat, false).MatchString(cmp.Or(url, title))
}

// absPattern makes a path pattern absolute, as Claude Code reads them:
// //p is the absolute /p, ~/p is in the home directory, /p and ./p are
// relative to the session's cwd (the project), a pattern without a slash
// matches at any depth below it (gitignore's rule), any other pattern is
// relative to it.
func absPattern(pat, cwd string) string {
	switch {
	case strings.HasPrefix(pat, "//"):
		return pat[1:]
	case strings.HasPrefix(pat, "~/"):
		home, _ := os.UserHomeDir()
		return strings.TrimSuffix(home, "/") + pat[1:]
	case strings.HasPrefix(pat, "/"):
		return strings.TrimSuffix(cwd, "/") + pat
	case strings.HasPrefix(pat, "./"):
		return strings.TrimSuffix(cwd, "/") + pat[1:]
	case !strings.Contains(pat, "/"):
		return strings.TrimSuffix(cwd, "/") + "/**/" + pat
	}
	return strings.TrimSuffix(cwd, "/") + "/" + pat
}

// pathMatches matches path, or one of its directories (a pattern that
// names a directory covers what is in it, as in gitignore).
func pathMatches(pat, path string) bool {
	re := wildcard(pat, true)
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		if re.MatchString(p) {
			return true
		}
		if p == filepath.Dir(p) {
			return false
		}
	}
}

// wildcard compiles a pattern: in a path (path), ** is any number of
// directories, * and ? stay within one; elsewhere * is any text.
func wildcard(pat string, path bool) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; {
		case path && strings.HasPrefix(pat[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(pat[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*' && path:
			b.WriteString("[^/]*")
		case c == '*':
			b.WriteString(".*")
		case c == '?' && path:
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(pat[i : i+1]))
		}
	}
	if path {
		b.WriteString("/?")
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}
