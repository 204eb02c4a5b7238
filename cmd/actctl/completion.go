package main

import (
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/employee"
	"github.com/actctl/actctl/schema"
)

// completeCmd is the hidden entry point the completion scripts call:
// `actctl __complete -- WORD... CURRENT` prints the candidates for
// CURRENT (the word being typed, "" for a new one), one a line. The "--"
// keeps the words as they were typed (normalizeArgs moves no flag past it).
const completeCmd = "__complete"

// completionScripts are the scripts `actctl completion SHELL` prints; each
// hands the words typed so far to `actctl __complete`.
var completionScripts = map[string]string{
	"bash": `# actctl completion for bash: source <(actctl completion bash)
_actctl() {
	local IFS=$'\n'
	COMPREPLY=($(actctl __complete -- "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _actctl actctl
`,
	"zsh": `#compdef actctl
# actctl completion for zsh: source <(actctl completion zsh)
_actctl() {
	local -a candidates
	candidates=("${(@f)$(actctl __complete -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	if [[ -n "${candidates[1]}" ]]; then
		compadd -a candidates
	else
		_files
	fi
}
compdef _actctl actctl
`,
	"fish": `# actctl completion for fish: actctl completion fish | source
function __actctl_complete
	set -l cur (commandline -ct)
	actctl __complete -- (commandline -opc)[2..-1] "$cur" 2>/dev/null
end
complete -c actctl -f -a '(__actctl_complete)'
`,
	"powershell": `# actctl completion for PowerShell: actctl completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName actctl -ScriptBlock {
	param($wordToComplete, $commandAst, $cursorPosition)
	$words = @($commandAst.CommandElements | Select-Object -Skip 1 | ForEach-Object { $_.ToString() })
	if ($wordToComplete -eq '') { $words += '""' }
	& actctl __complete -- @words 2>$null | ForEach-Object {
		[System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
	}
}
`,
}

func init() {
	shells := slices.Sorted(maps.Keys(completionScripts))
	register(&cli.Command{
		Name:         "completion",
		Usage:        "print the shell completion script (commands, flags, agent, template and backend names, get and explain kinds)",
		ArgsUsage:    strings.Join(shells, "|"),
		OnUsageError: usageErrors,
		Action: func(c *cli.Context) error {
			script, ok := completionScripts[c.Args().First()]
			if c.NArg() != 1 || !ok {
				return usageError("completion: want one of %s", strings.Join(shells, ", "))
			}
			_, err := fmt.Fprint(c.App.Writer, script)
			return err
		},
	}, &cli.Command{
		Name:            completeCmd,
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			words := c.Args().Slice()
			if len(words) > 0 && words[0] == "--" {
				words = words[1:]
			}
			for _, w := range complete(c.App, words) {
				fmt.Fprintln(c.App.Writer, w)
			}
			return nil
		},
	})
}

// complete returns the candidates for the last of words (the word being
// typed) given the words before it: a command's subcommands, its flags
// and the global ones, a flag's values, and its arguments as its
// ArgsUsage names them (AGENT, TEMPLATE, SOURCE, KIND, FIELD, a|b).
func complete(app *cli.App, words []string) []string {
	if len(words) == 0 {
		words = []string{""}
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	st := walk(app, before)
	var cands []string
	switch {
	case st.flag != nil:
		cands = flagValues(st, st.flag)
	case isFlagArg(cur) && strings.Contains(cur, "="):
		name := cur[:strings.IndexByte(cur, '=')+1]
		if f := findFlag(app, st.cmd, flagName(cur)); f != nil {
			for _, v := range flagValues(st, f) {
				cands = append(cands, name+v)
			}
		}
	case strings.HasPrefix(cur, "-"):
		cands = flagNames(app, st.cmd)
	default:
		if st.cmd == nil || (st.npos == 0 && len(st.cmd.Subcommands) > 0) {
			cands = commandNames(app, st.cmd)
		}
		if st.cmd != nil {
			cands = append(cands, argValues(st, cur)...)
		}
	}
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, cur) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// cmdState is where the words typed so far lead: the command, how many
// arguments it has, the flag awaiting a value, and the global flags that
// pick the workspace.
type cmdState struct {
	cmd       *cli.Command
	npos      int
	args      []string // the positional words so far
	flag      cli.Flag
	dir, home string
}

// walk follows words through the command tree.
func walk(app *cli.App, words []string) cmdState {
	st := cmdState{home: os.Getenv("ACTANT_HOME")}
	subs := app.Commands
	for i := 0; i < len(words); i++ {
		w := words[i]
		if isFlagArg(w) {
			f := findFlag(app, st.cmd, flagName(w))
			value, hasValue := "", false
			if k := strings.IndexByte(w, '='); k >= 0 {
				value, hasValue = w[k+1:], true
			} else if takesValue(f) {
				if i+1 < len(words) && words[i+1] == "=" {
					i++ // bash splits --flag=value at the "="
				}
				if i+1 == len(words) {
					st.flag = f
					break
				}
				i++
				value, hasValue = words[i], true
			}
			if hasValue {
				switch flagName(w) {
				case "C":
					st.dir = value
				case "home":
					st.home = value
				}
			}
			continue
		}
		if c := findCommand(subs, w); c != nil && st.npos == 0 {
			st.cmd, subs = c, c.Subcommands
			continue
		}
		st.npos++
		st.args = append(st.args, w)
	}
	return st
}

// findFlag is the flag called name of cmd, or a global one.
func findFlag(app *cli.App, cmd *cli.Command, name string) cli.Flag {
	if cmd != nil {
		if f := lookupFlag(cmd.Flags, name); f != nil {
			return f
		}
	}
	return lookupFlag(app.Flags, name)
}

// commandNames are the visible subcommands of cmd (of the app for nil).
func commandNames(app *cli.App, cmd *cli.Command) []string {
	subs := app.Commands
	if cmd != nil {
		subs = cmd.Subcommands
	}
	var out []string
	for _, c := range subs {
		if !c.Hidden {
			out = append(out, c.Name)
		}
	}
	return out
}

// flagNames are cmd's flags and the global ones, as typed: --name, -n.
func flagNames(app *cli.App, cmd *cli.Command) []string {
	flags := slices.Clone(app.Flags)
	if cmd != nil {
		flags = append(flags, cmd.Flags...)
	}
	var out []string
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() || !kubeFlagFits(f, cmd) {
			continue
		}
		for _, n := range f.Names() {
			if len(n) == 1 {
				out = append(out, "-"+n)
			} else {
				out = append(out, "--"+n)
			}
		}
	}
	return out
}

var placeholderRE = regexp.MustCompile("`([A-Z]+|[a-z]+(?:\\|[a-z]+)+)`")

// flagValues are the values of f: its placeholder's names (`TEMPLATE`,
// `AGENT`), or the output formats.
func flagValues(st cmdState, f cli.Flag) []string {
	if slices.Contains(f.Names(), "output") {
		return []string{"text", "json", "yaml"}
	}
	d, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return nil
	}
	if m := placeholderRE.FindStringSubmatch(d.GetUsage()); m != nil {
		if strings.Contains(m[1], "|") {
			return strings.Split(m[1], "|") // `wait|skip`
		}
		return names(st, m[1])
	}
	return nil
}

// argValues are the candidates for the command's next argument, from
// the word its ArgsUsage gives that position.
func argValues(st cmdState, cur string) []string {
	var words []string
	for _, w := range strings.Fields(strings.NewReplacer("[", "", "]", "").Replace(st.cmd.ArgsUsage)) {
		if strings.HasPrefix(w, "-") || w == "|" {
			break
		}
		words = append(words, w)
	}
	var w string
	switch {
	case st.npos < len(words):
		w = words[st.npos]
	case len(words) > 0 && strings.HasSuffix(words[len(words)-1], "..."):
		w = words[len(words)-1]
	default:
		return nil
	}
	w = strings.TrimSuffix(w, "...")
	switch {
	case strings.Contains(w, "|"):
		return strings.Split(w, "|")
	case w == "KIND" && st.cmd.Name == "get":
		return slices.Sorted(maps.Keys(getKinds))
	case w == "NAME" && st.cmd.Name == "get" && len(st.args) > 0:
		return getNames(st, st.args[0])
	case w == "FIELD":
		return fieldPaths(st, cur)
	}
	return names(st, w)
}

// names are the names of the config's entries of one kind (AGENT,
// TEMPLATE, BACKEND, SOURCE), read from the workspace the words point
// at; none when it does not load. Nothing is written.
func names(st cmdState, kind string) []string {
	cwd, err := os.Getwd()
	if err != nil {
		return nil
	}
	cfg, err := schema.Load(schema.LoadOptions{Dir: st.dir, Cwd: cwd, Home: st.home})
	if err != nil {
		return nil
	}
	switch kind {
	case "AGENT":
		if _, err := schema.MergeAdhoc(cfg, nil); err != nil {
			return nil
		}
		return slices.Sorted(maps.Keys(cfg.Agents))
	case "TEMPLATE":
		return slices.Sorted(maps.Keys(cfg.Templates))
	case "BACKEND":
		return slices.Sorted(maps.Keys(cfg.Backends))
	case "SOURCE":
		return slices.Sorted(maps.Keys(cfg.Hub))
	case "TASK":
		if len(st.args) > 0 {
			return taskSources(cfg, st.args[0])
		}
	}
	return nil
}

// taskSources are the --source values of actctl task for agent name: its
// heartbeat, its cron entries (cron:N) and manual (docs/runtime.md,
// "actctl task").
func taskSources(cfg *schema.Config, name string) []string {
	out := []string{employee.SourceManual}
	a, ok := cfg.Agents[name]
	if !ok {
		return out
	}
	t, ok := cfg.Templates[a.Template]
	if !ok || t.Schedule == nil {
		return out
	}
	if t.Schedule.Heartbeat != nil {
		out = append(out, "heartbeat")
	}
	for i := range t.Schedule.Cron {
		out = append(out, fmt.Sprintf("cron:%d", i))
	}
	return out
}

// getNames are the names `get KIND` lists, for `get KIND NAME...`.
func getNames(st cmdState, kind string) []string {
	list, ok := getKinds[kind]
	cwd, err := os.Getwd()
	if !ok || err != nil {
		return nil
	}
	cfg, err := schema.Load(schema.LoadOptions{Dir: st.dir, Cwd: cwd, Home: st.home})
	if err != nil {
		return nil
	}
	_, rows, _ := list(cfg)
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r[0]
	}
	return out
}

// asPattern puts "<name>" for the entry name of a map in path
// ("backends.mine.files" -> "backends.<name>.files"), which explain reads
// as any entry, where a name like "mine" could read as a misspelled field.
func asPattern(path string) string {
	parts := strings.Split(path, ".")
	if len(parts) >= 2 && entryKinds[parts[0]] != "" {
		parts[1] = "<name>"
	}
	return strings.Join(parts, ".")
}

// entryKinds are the top-level maps whose entries explain accepts by
// name (explain backends.claude-code.files), as names calls them.
var entryKinds = map[string]string{"agents": "AGENT", "templates": "TEMPLATE", "backends": "BACKEND"}

// fieldPaths completes a config field path for explain: the fields of
// the part before the last dot ("templates.per" -> templates.permissions),
// and below agents, templates and backends the config's names.
func fieldPaths(st cmdState, cur string) []string {
	parent := ""
	if i := strings.LastIndexByte(cur, '.'); i >= 0 {
		parent = cur[:i]
	}
	// explain's own reading of the parent first (agents.deploy is every
	// agent's deploy field), then the entry name as any entry.
	e, err := schema.Explain(parent)
	if err != nil {
		if e, err = schema.Explain(asPattern(parent)); err != nil {
			return nil
		}
	}
	var out []string
	for _, f := range e.Fields {
		name := f.Name
		if u, err := strconv.Unquote(name); err == nil {
			name = u // a built-in backend: "claude-code"
		}
		if parent != "" {
			name = parent + "." + name
		}
		out = append(out, name)
	}
	if kind, ok := entryKinds[parent]; ok {
		for _, n := range names(st, kind) {
			out = append(out, parent+"."+n)
		}
	}
	return out
}
