package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/actctl/actctl/schema"
	"github.com/urfave/cli/v2"
)

// nearName is what name was probably meant to be among names: the one
// name it begins (`--dry` for --dry-run), else a near spelling; "" if
// none, and never for a name of one or two letters (too many are near).
func nearName(name string, names []string) string {
	if len(name) < 3 {
		return ""
	}
	var prefixed, long []string
	for _, n := range names {
		if len(n) > 1 && n != "help" {
			long = append(long, n)
		}
		if strings.HasPrefix(n, name) {
			prefixed = append(prefixed, n)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return schema.Suggest(name, long)
}

// flagHint rewrites urfave/cli's "flag provided but not defined: -dry"
// as "apply: unknown flag --dry (did you mean --dry-run?)", among the
// command's own flags and the global ones; other errors pass unchanged.
func flagHint(c *cli.Context, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return err
	}
	var names []string
	var flags []cli.Flag
	where := ""
	if !isRoot(c) {
		flags, where = c.Command.Flags, c.Command.FullName()+": "
	}
	for _, f := range append(flags, c.App.Flags...) {
		names = append(names, f.Names()...)
	}
	msg := fmt.Sprintf("%sunknown flag %s", where, dashed(name))
	if s := nearName(name, names); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", dashed(s))
	}
	return errors.New(msg)
}

// dashed is a flag name as typed: -o, --dry-run.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// commandNotFound is the message for an unknown command name, with the
// command of the same level it is near ("aply": did you mean apply?).
func commandNotFound(c *cli.Context, name string) string {
	cmds, where := c.App.VisibleCommands(), ""
	if !isRoot(c) && isGroup(c.Command) {
		cmds, where = c.Command.VisibleCommands(), c.Command.FullName()+" "
	}
	var names []string
	for _, cmd := range cmds {
		names = append(names, cmd.Names()...)
	}
	msg := fmt.Sprintf("unknown command %q", strings.TrimSpace(where+name))
	if s := nearName(name, names); s != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", strings.TrimSpace(where+s))
	}
	return msg + fmt.Sprintf(" (see actctl %shelp)", where)
}

// isRoot reports whether c is the context of actctl itself, not of a
// command.
func isRoot(c *cli.Context) bool {
	return c.Command == nil || c.Command.Name == c.App.Name || c.Command.Name == ""
}

// versionFlag makes `actctl --version` (or -v) before any command the
// version command, as most tools take it.
func versionFlag(app *cli.App, args []string) []string {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--version" || a == "-v" {
			return append(append(append([]string{}, args[:i]...), "version"), args[i+1:]...)
		}
		if !isFlagArg(a) {
			break
		}
		if f := lookupFlag(app.Flags, flagName(a)); takesValue(f) && !strings.Contains(a, "=") {
			i++
		}
	}
	return args
}

// isGroup reports whether cmd is a group of sub-commands (hub), not a
// command of its own with urfave/cli's help sub-command.
func isGroup(cmd *cli.Command) bool {
	for _, s := range cmd.Subcommands {
		if s.Name != "help" {
			return true
		}
	}
	return false
}

// getKind is the kind `get` lists for what was typed: the kind itself,
// or its singular (`get agent`, as kubectl takes `get pod`).
func getKind(typed string) (string, error) {
	if _, ok := getKinds[typed]; ok {
		return typed, nil
	}
	for kind, one := range getSingular {
		if typed == one || typed == kind[:len(kind)-1] {
			return kind, nil
		}
	}
	kinds := slices.Sorted(maps.Keys(getKinds))
	if s := nearName(typed, kinds); s != "" {
		return "", usageError("get: unknown kind %q (did you mean %q?)", typed, s)
	}
	return "", usageError("get: unknown kind %q (want one of %s)", typed, strings.Join(kinds, ", "))
}

// agentArg is the AGENT of `describe AGENT`, also typed as kubectl's
// `describe agent AGENT`: args without a leading "agent" or "agents".
func agentArg(args []string) []string {
	if len(args) == 2 && (args[0] == "agent" || args[0] == "agents") {
		return args[1:]
	}
	return args
}

// runArgsError is run's usage error; a prompt typed after AGENT is told
// where it goes.
func runArgsError(c *cli.Context) error {
	if c.NArg() > 1 && !c.IsSet("prompt") {
		return usageError("run: the prompt goes in -p: actctl run %s -p %q", c.Args().First(), strings.Join(c.Args().Tail(), " "))
	}
	return usageError("run: want AGENT, or -t TEMPLATE [AGENT]")
}

// requiredFlag makes urfave/cli's `Required flag "pid" not set` the usage
// mistake it is (exit 2); other errors pass unchanged.
func requiredFlag(err error) error {
	if err != nil && strings.HasPrefix(err.Error(), "Required flag") {
		return usageError("%s", strings.Replace(err.Error(), "Required flag", "required flag", 1))
	}
	return err
}
