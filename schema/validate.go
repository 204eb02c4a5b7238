package schema

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// namePattern is what every component and agent name must match: it keeps
// names usable as file and directory names with no path tricks. Compiled on
// first use, not at start-up: its {0,62} expands into 62 nested states
// (~0.2 ms and 700 allocations, in every actctl process, --help included).
var namePattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)
})

// CheckName explains why name is not a valid name, or returns "".
func CheckName(name string) string {
	if namePattern().MatchString(name) && !strings.Contains(name, "..") {
		return ""
	}
	return fmt.Sprintf("invalid name %q: names are 1-63 characters of a-z, 0-9, '.', '_' and '-', start with a letter or digit, and contain no '..'", name)
}

// Validate runs the checks that CUE types cannot express:
// names, references (with "did you mean"), schedules, acp support,
// workDir placement. Hub references are checked for a declared source
// only; their content is resolved by the hub package.
func (c *Config) Validate() Diagnostics {
	var ds Diagnostics
	add := func(d Diagnostic) { ds = append(ds, d) }

	checkNames := func(kind string, names []string) {
		for _, n := range names {
			if msg := CheckName(n); msg != "" {
				add(c.Diag(Path(kind, n), "%s", msg))
			}
		}
	}
	checkNames("hub", slices.Sorted(maps.Keys(c.Hub)))
	checkNames("backends", slices.Sorted(maps.Keys(c.Backends)))
	checkNames("skills", localKeys(c.Skills))
	checkNames("prompts", localKeys(c.Prompts))
	checkNames("commands", localKeys(c.Commands))
	checkNames("ignore", localKeys(c.Ignore))
	checkNames("mcpServers", localKeys(c.MCPServers))
	checkNames("templates", localKeys(c.Templates))
	checkNames("agents", slices.Sorted(maps.Keys(c.Agents)))

	for _, name := range slices.Sorted(maps.Keys(c.Archetypes)) {
		if ttl := c.Archetypes[name].LeaseTTL; ttl != "" {
			if d, err := time.ParseDuration(ttl); err != nil || d <= 0 {
				add(c.Diag(Path("archetypes", name, "leaseTTL"), "leaseTTL %q: want a positive duration such as \"30m\" or \"2h\"", ttl))
			}
		}
		a := c.Archetypes[name]
		ds = append(ds, c.checkLiveness("archetypes", name, a.TurnTimeout, a.StallAfter)...)
		ds = append(ds, c.checkAutoStart(name)...)
	}
	for _, name := range localKeys(c.MCPServers) {
		s := c.MCPServers[name]
		if name == ActctlServer {
			add(c.Diag(Path("mcpServers", name), "the MCP server name %q is reserved for actctl's own server (actctl mcp): list %q in a template's mcpServers without defining it, or give this server another name", name, name))
			continue
		}
		if (s.Command == "") == (s.URL == "") {
			add(c.Diag(Path("mcpServers", name), "an MCP server needs exactly one of command (local) or url (remote)"))
		} else if s.Type == "stdio" && s.Command == "" {
			add(c.Diag(Path("mcpServers", name, "type"), "type \"stdio\" is a local server's: it needs a command, not a url"))
		}
		ds = append(ds, c.checkMCPInstall(name)...)
	}

	for _, name := range localKeys(c.Skills) {
		ds = append(ds, c.validateSkillPaths(name)...)
	}

	for _, name := range slices.Sorted(maps.Keys(c.Backends)) {
		if !IsHubRef(name) {
			ds = append(ds, c.CheckBackend(name)...)
		}
	}

	for _, name := range localKeys(c.Templates) {
		ds = append(ds, c.validateTemplate(name, c.Templates[name])...)
	}
	ds = append(ds, c.backendNotes()...)
	ds = append(ds, c.validatePrompts()...)

	for _, name := range slices.Sorted(maps.Keys(c.Agents)) {
		ds = append(ds, c.validateAgent(name)...)
	}
	ds = append(ds, c.validateWebhooks()...)
	ds = append(ds, c.validatePlugins()...)
	ds = append(ds, c.validateHooks()...)
	if c.Deploy != nil {
		ds = append(ds, c.validateDeploy(time.Now())...)
	}
	return ds
}

// validateSkillPaths refuses a glob of skill name's paths that holds a
// comma or a line break: Copilot's applyTo and Cursor's globs are
// comma-separated lists, so it would be read as several globs.
func (c *Config) validateSkillPaths(name string) Diagnostics {
	var ds Diagnostics
	for i, p := range c.Skills[name].Paths {
		if strings.ContainsAny(p, ",\n") {
			ds = append(ds, c.Diag(Path("skills", name, "paths")+fmt.Sprintf("[%d]", i),
				"glob %q holds a comma or a line break: give each glob as its own entry (Copilot's applyTo and Cursor's globs are comma-separated lists)", p))
		}
	}
	return ds
}

func (c *Config) validateTemplate(name string, t Template) Diagnostics {
	var ds Diagnostics
	add := func(d Diagnostic, ok bool) {
		if !ok {
			ds = append(ds, d)
		}
	}
	p := func(field string) string { return Path("templates", name, field) }
	add(checkRef(c, p("backend"), "backend", t.Backend, c.Backends))
	for i, ref := range t.Skills {
		add(checkRef(c, Path("templates", name, "skills")+fmt.Sprintf("[%d]", i), "skill", ref, c.Skills))
	}
	for i, ref := range t.Prompts {
		add(checkRef(c, Path("templates", name, "prompts")+fmt.Sprintf("[%d]", i), "prompt", ref, c.Prompts))
	}
	mcps := c.MCPServers
	if len(t.MCPServers) > 0 {
		mcps = maps.Clone(c.MCPServers)
		if mcps == nil {
			mcps = map[string]MCPServer{}
		}
		mcps[ActctlServer] = MCPServer{} // reserved: actctl mcp itself
	}
	for i, ref := range t.MCPServers {
		add(checkRef(c, Path("templates", name, "mcpServers")+fmt.Sprintf("[%d]", i), "MCP server", ref, mcps))
	}
	for i, ref := range t.Commands {
		add(checkRef(c, Path("templates", name, "commands")+fmt.Sprintf("[%d]", i), "command", ref, c.Commands))
	}
	for i, ref := range t.Ignore {
		add(checkIgnoreRef(c, Path("templates", name, "ignore")+fmt.Sprintf("[%d]", i), ref))
	}
	for i, ref := range t.SubAgents {
		add(checkRef(c, Path("templates", name, "subAgents")+fmt.Sprintf("[%d]", i), "template", ref, c.Templates))
		if ref == name {
			ds = append(ds, c.Diag(p("subAgents"), "template %q lists itself as a sub-agent", name))
		}
	}
	ds = append(ds, c.validateSettings(name, t)...)
	ds = append(ds, c.validateSubAgentBackends(name, t)...)
	switch t.Archetype {
	case ArchEmployee:
		if t.Schedule == nil || (t.Schedule.Heartbeat == nil && len(t.Schedule.Cron) == 0) {
			ds = append(ds, c.Diag(p("archetype"), "an employee needs a schedule (heartbeat or cron): it works on its own"))
		}
	case ArchService:
		if t.Schedule != nil {
			ds = append(ds, c.Diag(p("schedule"), "a service must not have a schedule: it only answers requests (use archetype \"employee\" for scheduled work)"))
		}
		if t.WorkspacePolicy == "ephemeral" {
			ds = append(ds, c.Diag(p("workspacePolicy"), "a service must be persistent: up holds one process that serves every client over time (drop workspacePolicy, or use archetype \"repo\" or \"tool\" for a copy per client)"))
		}
	}
	ds = append(ds, c.validateSchedule(name, t.Schedule)...)
	ds = append(ds, c.checkLiveness("templates", name, t.TurnTimeout, t.StallAfter)...)
	return append(ds, c.CheckLaunch(p("backend"), name, c.TemplateLaunchMode(t))...)
}

// checkRef checks that ref names a declared component (a key of declared)
// or a declared hub source (source@name). It returns the diagnostic and
// false when the reference does not resolve. The declared names are sorted
// only to suggest one for a reference that does not resolve: a valid
// config costs one map lookup per reference, not a sort (which made
// validation quadratic: 3 templates of 200 skills spent 12 ms there).
func checkRef[V any](c *Config, path, kind, ref string, declared map[string]V) (Diagnostic, bool) {
	if src, _, ok := strings.Cut(ref, "@"); ok {
		if _, ok := c.Hub[src]; ok {
			return Diagnostic{}, true
		}
		msg := fmt.Sprintf("%s %q: hub source %q is not declared", kind, ref, src)
		if s := suggest(src, slices.Sorted(maps.Keys(c.Hub))); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s+"@"+ref[len(src)+1:])
		} else {
			msg += " (declare it under hub)"
		}
		return c.Diag(path, "%s", msg), false
	}
	if _, ok := declared[ref]; ok {
		return Diagnostic{}, true
	}
	msg := fmt.Sprintf("unknown %s %q", kind, ref)
	if s := suggest(ref, slices.Sorted(maps.Keys(declared))); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return c.Diag(path, "%s", msg), false
}

// checkIgnoreRef checks a template's ignore reference: a list declared
// under ignore (hub sources carry none).
func checkIgnoreRef(c *Config, path, ref string) (Diagnostic, bool) {
	if IsHubRef(ref) {
		return c.Diag(path, "ignore %q: hub sources carry no ignore lists; declare it under ignore", ref), false
	}
	return checkRef(c, path, "ignore list", ref, c.Ignore)
}

// IsHubRef reports whether ref (a component name or a reference to one)
// names a hub component: "name@source". It is the one test for it.
func IsHubRef(ref string) bool { return strings.Contains(ref, "@") }

// localKeys are the keys of m that are not hub components.
func localKeys[V any](m map[string]V) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !IsHubRef(k) {
			out = append(out, k)
		}
	}
	return out
}

// suggest returns the candidate closest to s when it is close enough to
// be what the user meant.
func suggest(s string, candidates []string) string {
	best, bestD := "", len(s)/2+2
	for _, c := range candidates {
		if d := levenshtein(s, c); d < bestD || (d == bestD && best != "" && c < best) {
			best, bestD = c, d
		}
	}
	if best == "" && len(s) > 3 {
		for _, c := range candidates {
			if strings.HasPrefix(c, s) || strings.HasPrefix(s, c) {
				return c
			}
		}
	}
	return best
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Suggest returns the candidate closest to s when it is close enough to be
// what the user meant, or "".
func Suggest(s string, candidates []string) string { return suggest(s, candidates) }
