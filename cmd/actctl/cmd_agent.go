package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/proxy"
	"github.com/actctl/actctl/schema"
)

func init() {
	register(
		&cli.Command{
			Name:         "resolve",
			Usage:        "print how to start AGENT's ACP backend: {command, args, env, cwd, workspace}",
			ArgsUsage:    "AGENT",
			OnUsageError: usageErrors,
			Action:       resolveCmd,
		},
		&cli.Command{
			Name:         "open",
			Usage:        "start AGENT's backend UI (its open command) in the agent's workspace, detached",
			ArgsUsage:    "AGENT",
			OnUsageError: usageErrors,
			Action:       openCmd,
		},
		&cli.Command{
			Name:         "attach",
			Usage:        "record an externally started process as serving AGENT",
			ArgsUsage:    "AGENT",
			Flags:        []cli.Flag{&cli.IntFlag{Name: "pid", Usage: "the process `ID`", Required: true}},
			OnUsageError: usageErrors,
			Action:       attachCmd,
		},
		&cli.Command{
			Name:         "detach",
			Usage:        "forget the process serving AGENT",
			ArgsUsage:    "AGENT",
			Flags:        []cli.Flag{&cli.BoolFlag{Name: "cleanup", Usage: "remove the runtime keys entirely"}},
			OnUsageError: usageErrors,
			Action:       detachCmd,
		},
		&cli.Command{
			Name:  "zed",
			Usage: "print (or --write) Zed agent_servers entries for every declared agent that allows proxy",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "write", Usage: "merge the entries into Zed's settings.json"},
				&cli.StringFlag{Name: "settings", Usage: "Zed settings `FILE` (default $XDG_CONFIG_HOME/zed/settings.json)"},
				&cli.StringFlag{Name: "prefix", Usage: "name the entries `PREFIX`AGENT (to keep them apart from other entries of the same name)"},
				&cli.StringSliceFlag{Name: "template", Aliases: []string{"t"}, Usage: "also an entry per `TEMPLATE` that creates an agent from it in the project Zed has open (proxy -t)"},
			},
			OnUsageError: usageErrors,
			Action:       zedCmd,
		},
	)
}

// oneAgent loads the config and resolves the single AGENT argument.
func oneAgent(c *cli.Context) (*globals, *schema.Config, *schema.Resolved, error) {
	g := globalsOf(c)
	if c.NArg() != 1 {
		return nil, nil, nil, usageError("%s: want exactly one AGENT", c.Command.Name)
	}
	cfg, err := g.Load()
	if err != nil {
		return nil, nil, nil, err
	}
	name := c.Args().First()
	if _, ok := cfg.Agents[name]; !ok {
		return nil, nil, nil, unknownAgent(cfg, name)
	}
	r, err := cfg.Resolve(name)
	if err != nil {
		return nil, nil, nil, err
	}
	return g, cfg, r, nil
}

func unknownAgent(cfg *schema.Config, name string) error {
	names := sortedNames(cfg.Agents)
	msg := fmt.Sprintf("unknown agent %q", name)
	if s := schema.Suggest(name, names); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return errors.New(msg)
}

func resolveCmd(c *cli.Context) error {
	g, _, r, err := oneAgent(c)
	if err != nil {
		return err
	}
	l, err := proxy.Resolve(r, schema.ModeACP)
	if err != nil {
		return err
	}
	if g.JSON() {
		return g.PrintJSON(l)
	}
	fmt.Fprintf(g.Stdout, "command:    %s\nargs:       %q\ncwd:        %s\nworkspace:  %s\nsessionCwd: %s\n", l.Command, l.Args, l.Cwd, l.Workspace, l.SessionCwd)
	for _, kv := range l.EnvList() {
		fmt.Fprintf(g.Stdout, "env:        %s\n", kv)
	}
	return nil
}

func openCmd(c *cli.Context) error {
	g, _, r, err := oneAgent(c)
	if err != nil {
		return err
	}
	l, err := proxy.Resolve(r, schema.ModeOpen)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(l.Cwd); err != nil || !fi.IsDir() {
		return fmt.Errorf("open %s: workspace %s does not exist; run `actctl apply %s` first", r.Name, l.Cwd, r.Name)
	}
	cmd := exec.Command(l.Command, l.Args...)
	cmd.Dir = l.Cwd
	cmd.Env = append(os.Environ(), l.EnvList()...)
	// Detached: its own session, no stdio tied to ours, not waited for.
	detach(cmd)
	if err := cmd.Start(); err != nil {
		msg := fmt.Sprintf("open %s: start %s: %v", r.Name, l.Command, err)
		if l.Install != "" {
			msg += " (install: " + l.Install + ")"
		}
		return errors.New(msg)
	}
	pid := cmd.Process.Pid
	cmd.Process.Release()
	if g.JSON() {
		return g.PrintJSON(map[string]any{"agent": r.Name, "pid": pid, "command": l.Command, "args": l.Args, "cwd": l.Cwd})
	}
	fmt.Fprintf(g.Stdout, "started %s (pid %d) in %s\n", l.Command, pid, l.Cwd)
	return nil
}

func attachCmd(c *cli.Context) error {
	g, _, r, err := oneAgent(c)
	if err != nil {
		return err
	}
	if err := proxy.Attach(r, c.Int("pid")); err != nil {
		return err
	}
	if g.JSON() {
		return g.PrintJSON(map[string]any{"agent": r.Name, "pid": c.Int("pid"), "record": proxy.RecordPath(r)})
	}
	fmt.Fprintf(g.Stdout, "attached pid %d to %s (%s)\n", c.Int("pid"), r.Name, proxy.RecordPath(r))
	return nil
}

func detachCmd(c *cli.Context) error {
	g, _, r, err := oneAgent(c)
	if err != nil {
		return err
	}
	if err := proxy.Detach(r, c.Bool("cleanup")); err != nil {
		return err
	}
	if g.JSON() {
		return g.PrintJSON(map[string]any{"agent": r.Name, "record": proxy.RecordPath(r)})
	}
	fmt.Fprintf(g.Stdout, "detached %s\n", r.Name)
	return nil
}

func zedCmd(c *cli.Context) error {
	g := globalsOf(c)
	cfg, err := g.Load()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("zed: find the actctl binary: %w", err)
	}
	if self, err = filepath.EvalSymlinks(self); err != nil {
		return fmt.Errorf("zed: find the actctl binary: %w", err)
	}
	prefix := c.String("prefix")
	entries := map[string]zedEntry{}
	for _, name := range sortedNames(cfg.Agents) {
		// Only agents the user declared: the copies proxy made (per
		// project, from -t) would each grow another copy elsewhere.
		if cfg.Agents[name].Adhoc {
			continue
		}
		r, err := cfg.Resolve(name)
		if err != nil || !r.Offer(schema.InteractProxy) {
			continue
		}
		entries[prefix+name] = zedProxyEntry(self, cfg, name)
	}
	if err := zedTemplateEntries(entries, self, cfg, prefix, c.StringSlice("template")); err != nil {
		return err
	}
	if !c.Bool("write") {
		return g.PrintJSON(map[string]any{"agent_servers": entries})
	}
	return writeZed(g, cfg, c.String("settings"), prefix, entries)
}
