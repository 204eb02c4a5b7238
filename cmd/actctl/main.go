// Command actctl manages AI coding agents the GitOps way: one actant.cue
// declares them, `actctl apply` materializes their files in each backend's
// native format. This package only parses flags, formats output and maps
// errors to exit codes; the work is done by the library packages.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/hub"
	"github.com/actctl/actctl/internal/termsafe"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/workspace"
)

// version is set by the linker (-ldflags "-X main.version=v1.2.3"); when
// it is not, versionOf finds one in the build info.
var version string

// versionOf is actctl's version: the one the linker set; else the module
// version Go records (`go install ...@v1.2.3`, or a pseudo-version with the
// commit when built in a git checkout); else the VCS revision ("+dirty"
// when the tree had changes). It is "" when the build recorded none of
// them (go build -buildvcs=false of a checkout).
func versionOf(linked string, bi *debug.BuildInfo) string {
	if linked != "" {
		return linked
	}
	if bi == nil {
		return ""
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	if rev := vcsRevision(bi); rev != "" {
		return "devel-" + rev
	}
	return ""
}

// vcsRevision is the commit the binary was built from (12 hex, "+dirty"
// when the tree had changes), "" when the build recorded none.
func vcsRevision(bi *debug.BuildInfo) string {
	if bi == nil {
		return ""
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}

// actctlVersion is versionOf this binary; without any recorded version it
// names the binary by its content ("devel+sha256.<12 hex>"), so that two
// builds are still told apart.
func actctlVersion() string {
	bi, _ := debug.ReadBuildInfo()
	if v := versionOf(version, bi); v != "" {
		return v
	}
	exe, err := os.Executable()
	if err != nil {
		return "devel"
	}
	f, err := os.Open(exe)
	if err != nil {
		return "devel"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "devel"
	}
	return "devel+sha256." + hex.EncodeToString(h.Sum(nil))[:12]
}

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// commands is filled by the init functions of the cmd_*.go files, one file
// per command group, so that command groups stay independent.
var commands []*cli.Command

func register(c ...*cli.Command) { commands = append(commands, c...) }

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// exitCode is the one error that carries an exit status: through
// urfave/cli to run, and as the cause of a context a signal or a timeout
// ended (runContext). codeOf finds it with errors.As.
type exitCode struct {
	code int
	err  error // may be nil: exit silently with code
}

func (e *exitCode) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}
func (e *exitCode) Unwrap() error { return e.err }

// withCode makes err exit with code instead of 1.
func withCode(code int, err error) error { return &exitCode{code: code, err: err} }

// exitStatus is an error saying what with exit status code.
func exitStatus(code int, what string) error { return withCode(code, errors.New(what)) }

// usageError reports a command-line mistake (exit 2).
func usageError(format string, args ...any) error {
	return withCode(exitUsage, fmt.Errorf(format, args...))
}

// run executes actctl with args and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	err := requiredFlag(app.Run(normalizeArgs(app, versionFlag(app, args))))
	if err == nil {
		err = notFound(app)
	}
	if err == nil {
		return exitOK
	}
	code := exitError
	var ec *exitCode
	if errors.As(err, &ec) {
		code = ec.code
		err = ec.err
	}
	if err != nil {
		printError(stderr, err)
	}
	return code
}

// notFoundKey is where the app's CommandNotFound leaves its usage error,
// in the app's Metadata.
const notFoundKey = "actctl.notFound"

// notFound is the usage error of the unknown command app's last Run met,
// nil if none.
func notFound(app *cli.App) error {
	err, _ := app.Metadata[notFoundKey].(error)
	return err
}

// printError writes err as "actctl: ..." lines; diagnostics get one line
// each so that every problem is visible with its position. Control
// characters are escaped: an error may quote an agent (its error message,
// its stderr) or a file name (internal/termsafe).
func printError(w io.Writer, err error) {
	var ds schema.Diagnostics
	if errors.As(err, &ds) {
		for _, d := range ds {
			fmt.Fprintf(w, "actctl: %s\n", termsafe.Text(d.String()))
		}
		return
	}
	fmt.Fprintf(w, "actctl: %s\n", termsafe.Text(err.Error()))
}

// newApp is actctl's app writing to stdout and stderr, on its own copy of
// the commands (cloneCommands).
func newApp(stdout, stderr io.Writer) *cli.App {
	cmds := cloneCommands(commands)
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	return &cli.App{
		Name:                 "actctl",
		Usage:                "manage AI coding agents from one declarative actant.cue",
		Writer:               stdout,
		ErrWriter:            stderr,
		HideVersion:          true,
		EnableBashCompletion: true,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "C", Usage: "run as if started in `DIR` (the workspace root)"},
			&cli.StringFlag{Name: "home", Usage: "actctl home `DIR` (instances, hub cache)", EnvVars: []string{"ACTANT_HOME"}},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format: text, json or yaml"},
			&cli.BoolFlag{Name: "no-color", Usage: "never colour output (also NO_COLOR)"},
		}, kubeFlags...),
		Before: func(c *cli.Context) error {
			if err := checkOutput(c.String("output"), c.Args().First()); err != nil {
				return err
			}
			return checkKube(c)
		},
		Commands:     cmds,
		OnUsageError: usageErrors,
		CommandNotFound: func(c *cli.Context, name string) {
			if !isRoot(c) && !isGroup(c.Command) {
				// urfave/cli shows help for a missing required flag, taking
				// the command's argument for a sub-command: its own
				// error ("Required flag ... not set") follows.
				return
			}
			// urfave/cli gives this hook no error to return (it returns
			// nil after it): run takes the error from the app (notFound).
			c.App.Metadata[notFoundKey] = usageError("%s", commandNotFound(c, name))
		},
		Metadata: map[string]any{},
		// Errors are printed by run, once, in our format.
		ExitErrHandler: func(*cli.Context, error) {},
	}
}

// cloneCommands copies cmds and their sub-commands: urfave/cli changes a
// command as it runs (it adds a help sub-command to a group it shows help
// for, a help flag to each command), which must not reach the next run in
// the same process (the scenario scripts run many).
func cloneCommands(cmds []*cli.Command) []*cli.Command {
	out := make([]*cli.Command, len(cmds))
	for i, c := range cmds {
		cc := *c
		cc.Subcommands = cloneCommands(c.Subcommands)
		cc.Flags = slices.Clone(c.Flags)
		out[i] = &cc
	}
	return out
}

// normalizeArgs puts every global flag, wherever it was typed, before the
// command, and a command's own flags before its positional arguments, so
// that `get agents -o json`, `resolve AGENT -C DIR`, `attach AGENT --pid N`
// and `proxy AGENT -C DIR` (the form Zed is given) parse as kubectl users
// expect: urfave/cli knows global flags only before the command and stops
// a command's flags at its first positional argument. A repeated flag
// keeps its order, so the last one typed wins. "--" ends flag moving; an
// unknown command is left to urfave/cli to report.
func normalizeArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	var global, path, own, pos []string
	var cmd *cli.Command
	subs := app.Commands
	rest := args[1:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if a == "--" {
			// It ends the flags where it was typed: what came before it
			// and after it are arguments.
			pos = append(append([]string{"--"}, pos...), rest[j+1:]...)
			break
		}
		if !isFlagArg(a) {
			if len(pos) == 0 {
				if c := findCommand(subs, a); c != nil {
					path, cmd, subs = append(path, a), c, c.Subcommands
					continue
				}
			}
			if cmd == nil {
				return args
			}
			pos = append(pos, a)
			continue
		}
		// A command's own flag wins over a global one of the same name;
		// an unknown flag stays where it was typed, for urfave/cli to report.
		dst, f := &global, lookupFlag(app.Flags, flagName(a))
		if cmd != nil {
			if cf := lookupFlag(cmd.Flags, flagName(a)); cf != nil || f == nil {
				dst, f = &own, cf
			}
		}
		*dst = append(*dst, a)
		if takesValue(f) && !strings.Contains(a, "=") && j+1 < len(rest) {
			j++
			*dst = append(*dst, rest[j])
		}
	}
	out := append([]string{args[0]}, global...)
	out = append(append(out, path...), own...)
	return append(out, pos...)
}

// flagName is the name of the flag argument arg ("--home=H" -> "home").
func flagName(arg string) string {
	name := strings.TrimLeft(arg, "-")
	if k := strings.IndexByte(name, '='); k >= 0 {
		name = name[:k]
	}
	return name
}

// isFlagArg reports whether arg is a flag ("-" alone is an argument).
func isFlagArg(arg string) bool { return strings.HasPrefix(arg, "-") && len(arg) > 1 }

// findCommand is the command of cmds called name (or an alias of it).
func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// lookupFlag is the flag of flags called name, nil if none is.
func lookupFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// takesValue reports whether flag f reads the next argument as its value;
// an unknown flag (nil: -h, --help, a typo) does not.
func takesValue(f cli.Flag) bool {
	v, ok := f.(cli.DocGenerationFlag)
	return ok && v.TakesValue()
}

// usageErrors is installed on every command so flag mistakes exit 2.
func usageErrors(c *cli.Context, err error, _ bool) error {
	return withCode(exitUsage, flagHint(c, err))
}

func init() {
	register(&cli.Command{
		Name:  "version",
		Usage: "print the actctl version",
		Action: func(c *cli.Context) error {
			// Never loads the workspace: it must work anywhere.
			g := globalsOf(c)
			v := actctlVersion()
			if g.JSON() {
				out := map[string]string{"version": v, "go": runtime.Version()}
				bi, _ := debug.ReadBuildInfo()
				if rev := vcsRevision(bi); rev != "" {
					out["commit"] = "commit " + rev
				}
				return g.PrintJSON(out)
			}
			fmt.Fprintf(g.Stdout, "actctl %s (%s)\n", v, runtime.Version())
			return nil
		},
	})
}

// globals are the parsed global flags plus the output streams.
type globals struct {
	Dir     string
	Home    string
	Output  string // "text" or "json" (-o yaml is "json" with yaml set)
	yaml    bool   // -o yaml: what -o json prints, in YAML
	NoColor bool
	Kube    kubeOpts // --kube: up is in a pod (kube.go)
	Stdout  io.Writer
	Stderr  io.Writer
	// OnlyAgent, when set, limits the config warnings Load prints to
	// those about this agent (its template's included) or about no agent
	// in particular (proxy serves one agent).
	OnlyAgent string
	// command is the name of the command run (see checkingCommands).
	command string
	// Acts, when set, names the agents of the loaded config this run acts
	// on, as OnlyAgent does for one (up: those it runs).
	Acts func(*schema.Config) []string
	// prompter receives prompt hooks: `actctl up`'s agents (nil without
	// up: such hooks fail).
	prompter hooks.Prompter
	// loops drops prompts caused through too many hooks, one warning a
	// chain (`actctl up`'s; nil elsewhere: each bus has its own).
	loops *hooks.Guard
	// loaded is the last config loaded, which saveConfig saves in the
	// config cache.
	loaded *workspace.Loaded
}

func globalsOf(c *cli.Context) *globals {
	// Context lookups search the parent contexts, so global flags are
	// found from any sub-command.
	return &globals{
		Dir:     c.String("C"),
		Home:    c.String("home"),
		Output:  structured(c.String("output")),
		yaml:    c.String("output") == "yaml",
		NoColor: c.Bool("no-color") || os.Getenv("NO_COLOR") != "",
		Kube:    kubeOf(c),
		Stdout:  c.App.Writer,
		Stderr:  c.App.ErrWriter,
		command: commandName(c),
	}
}

// Color returns the palette for standard output: colour only on a
// terminal and never with --no-color or NO_COLOR.
func (g *globals) Color() palette { return colorFor(g.Stdout, g.NoColor, os.Getenv) }

// JSON reports whether -o json (or yaml, its YAML form) was asked for.
func (g *globals) JSON() bool { return g.Output == "json" }

// PrintJSON writes v as indented JSON: the stable machine format (in
// YAML with -o yaml).
func (g *globals) PrintJSON(v any) error {
	if g.yaml {
		return writeYAML(g.Stdout, v, false)
	}
	enc := json.NewEncoder(g.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// PrintCompactJSON writes v as one line of JSON (a stream of objects, as
// `apply --watch -o json` prints one per cycle).
func (g *globals) PrintCompactJSON(v any) error {
	if g.yaml {
		return writeYAML(g.Stdout, v, true)
	}
	enc := json.NewEncoder(g.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Warn prints a warning line to stderr.
func (g *globals) Warn(format string, args ...any) {
	fmt.Fprintf(g.Stderr, "actctl: warning: "+format+"\n", args...)
}

// Note prints one "actctl: note:" line on stderr: something to know, not
// a problem.
func (g *globals) Note(format string, args ...any) {
	fmt.Fprintf(g.Stderr, "actctl: note: "+format+"\n", args...)
}

// workspace is the options of the workflows (package workspace) for
// these flags: the hub's progress on a terminal, debug lines with
// ACTCTL_DEBUG=1.
func (g *globals) workspace() workspace.Options {
	o := workspace.Options{Dir: g.Dir, Home: g.Home, Stderr: g.Stderr, OnlyAgent: g.OnlyAgent, Acts: g.Acts,
		Checking: slices.Contains(checkingCommands, g.command), Prompter: g.prompter, Loops: g.loops}
	if isTerminal(g.Stderr) && !g.JSON() {
		o.Progress = g.Stderr
	}
	if os.Getenv("ACTCTL_DEBUG") == "1" {
		o.Debug = g.Stderr
	}
	return o
}

// reportHook prints a failed hook as a warning (workspace.ReportHook).
func reportHook(g *globals, r hooks.Result) { workspace.ReportHook(g.Stderr, r) }

// LoadOptions returns the workspace discovery options from the flags.
func (g *globals) LoadOptions() (schema.LoadOptions, error) {
	return workspace.Options{Dir: g.Dir, Home: g.Home}.LoadOptions()
}

// Load finds and loads the workspace config, printing its warnings, and
// makes its hub sources available (lock and cache satisfied: no network).
// It never writes actant.lock: only apply and hub sync|update do, through
// LoadWith (README, "Global flags and conventions": read-only commands write nothing).
func (g *globals) Load() (*schema.Config, error) {
	cfg, _, err := g.LoadWith(context.Background(), hub.Options{ReadOnly: true})
	return cfg, err
}

// LoadWith is Load with explicit hub options (apply --frozen, hub update):
// workspace.Load, whose config saveConfig saves.
func (g *globals) LoadWith(ctx context.Context, ho hub.Options) (*schema.Config, *hub.Report, error) {
	l, err := workspace.Load(ctx, g.workspace(), ho)
	g.loaded = l
	if err != nil {
		return nil, nil, err
	}
	return l.Config, l.Hub, nil
}

// saveConfig saves the config this process evaluated in the config cache
// (workspace.Loaded.SaveConfig); called once an agent is materialized.
func (g *globals) saveConfig() { g.loaded.SaveConfig() }

// isTerminal reports whether w is a terminal (for progress output).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
