package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/hub"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/workspace"
)

func init() {
	register(&cli.Command{
		Name:         "hub",
		Usage:        "git sources of components: sync | update [SOURCE...] | ls [SOURCE]",
		OnUsageError: usageErrors,
		Subcommands: []*cli.Command{
			{
				Name:         "sync",
				Usage:        "fetch what actant.lock pins (and lock new or changed sources)",
				OnUsageError: usageErrors,
				Flags:        []cli.Flag{&cli.BoolFlag{Name: "frozen", Usage: "fail when actant.lock is missing or stale; never write it"}},
				Action:       hubSyncCmd,
			},
			{
				Name:         "update",
				Usage:        "re-resolve the refs of SOURCE... (default: all), rewrite actant.lock, print what changed",
				ArgsUsage:    "[SOURCE...]",
				OnUsageError: usageErrors,
				Action:       hubUpdateCmd,
			},
			{
				Name:         "ls",
				Usage:        "list the components of every source (or of SOURCE)",
				ArgsUsage:    "[SOURCE]",
				OnUsageError: usageErrors,
				Action:       hubLsCmd,
			},
		},
	})
}

// hubEnsure loads the config and runs hub.Ensure with progress on a
// terminal and warnings on stderr.
func hubEnsure(c *cli.Context, o hub.Options) (*schema.Config, *hub.Report, error) {
	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	cfg, rep, err := globalsOf(c).LoadWith(ctx, o)
	if err == nil && rep == nil {
		rep = &hub.Report{}
	}
	return cfg, rep, err
}

func hubSyncCmd(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("hub sync: takes no arguments (to re-resolve sources use `actctl hub update %s`)", strings.Join(c.Args().Slice(), " "))
	}
	g := globalsOf(c)
	_, rep, err := hubEnsure(c, hub.Options{Frozen: c.Bool("frozen")})
	if err != nil {
		return err
	}
	if g.JSON() {
		return g.PrintJSON(hubReportJSON(rep))
	}
	if len(rep.Sources) == 0 {
		fmt.Fprintln(g.Stdout, "no hub sources configured")
		return nil
	}
	tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tREF\tCOMMIT\tLAYOUT\tCOMPONENTS\tSTATE")
	for _, s := range rep.Sources {
		state := "cached"
		switch {
		case s.Offline:
			state = "offline (cache)"
		case s.Fetched:
			state = "fetched"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", s.Name, s.Ref, s.Commit[:12], s.Layout, len(s.Components.Info), state)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if rep.LockChanged {
		fmt.Fprintf(g.Stdout, "wrote %s\n", hub.LockFile)
	}
	return nil
}

func hubUpdateCmd(c *cli.Context) error {
	g := globalsOf(c)
	o := hub.Options{Update: c.Args().Slice()}
	if len(o.Update) == 0 {
		o.UpdateAll = true
	}
	cfg, rep, err := hubEnsure(c, o)
	if err != nil {
		return err
	}
	bg := &workspace.Background{}
	defer bg.Wait() // the source:updated hooks, each bounded by its timeout
	for _, s := range rep.Sources {
		if s.Previous != "" {
			workspace.SourceUpdated(context.Background(), g.workspace(), cfg, bg, s.Name, s.Previous, s.Commit)
		}
	}
	if g.JSON() {
		return g.PrintJSON(hubReportJSON(rep))
	}
	for _, s := range rep.Sources {
		if s.Previous != "" {
			fmt.Fprintf(g.Stdout, "%s: %s -> %s (%s)\n", s.Name, s.Previous[:12], s.Commit[:12], s.Ref)
		}
	}
	for _, ch := range rep.Changes {
		switch ch.Op {
		case "added":
			fmt.Fprintf(g.Stdout, "+ %s %s %s\n", ch.Kind, ch.Ref(), ch.To)
		case "removed":
			fmt.Fprintf(g.Stdout, "- %s %s %s\n", ch.Kind, ch.Ref(), ch.From)
		default:
			v := ch.From + " -> " + ch.To
			if ch.From == ch.To {
				v = ch.To + " (content changed, version not bumped)"
			}
			fmt.Fprintf(g.Stdout, "~ %s %s %s\n", ch.Kind, ch.Ref(), v)
		}
	}
	if !rep.LockChanged {
		fmt.Fprintln(g.Stdout, "hub: up to date")
	} else {
		fmt.Fprintf(g.Stdout, "wrote %s\n", hub.LockFile)
	}
	return nil
}

// hubReportJSON is rep as `hub sync|update -o json` print it: its lists
// are arrays, never null (docs/json.md).
func hubReportJSON(rep *hub.Report) *hub.Report {
	out := *rep
	if out.Sources == nil {
		out.Sources = []hub.SourceReport{}
	}
	if out.Changes == nil {
		out.Changes = []hub.Change{}
	}
	return &out
}

// hubComponentJSON is one row of `hub ls -o json` (stable interface).
type hubComponentJSON struct {
	Source      string `json:"source"`
	Kind        string `json:"kind"`
	Name        string `json:"name"`
	Ref         string `json:"ref"`
	Version     string `json:"version"`
	Description string `json:"description"`
	File        string `json:"file"`
}

func hubLsCmd(c *cli.Context) error {
	g := globalsOf(c)
	if c.NArg() > 1 {
		return usageError("hub ls: at most one SOURCE")
	}
	want := c.Args().First()
	cfg, rep, err := hubEnsure(c, hub.Options{})
	if err != nil {
		return err
	}
	if want != "" {
		if _, ok := cfg.Hub[want]; !ok {
			return usageError("hub ls: unknown hub source %q", want)
		}
	}
	out := []hubComponentJSON{}
	for _, s := range rep.Sources {
		if want != "" && s.Name != want {
			continue
		}
		for _, n := range s.Components.Notes { // what the source's reader dropped, and why
			fmt.Fprintf(g.Stderr, "actctl: note: hub %s: %s\n", s.Name, n)
		}
		for _, k := range slices.Sorted(maps.Keys(s.Components.Info)) {
			in := s.Components.Info[k]
			out = append(out, hubComponentJSON{Source: s.Name, Kind: in.Kind, Name: in.Name, Ref: s.Name + "@" + in.Name,
				Version: in.Version, Description: in.Description, File: in.File})
		}
	}
	if g.JSON() {
		return g.PrintJSON(out)
	}
	tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tREF\tVERSION\tDESCRIPTION")
	for _, r := range out {
		d := r.Description
		if len([]rune(d)) > 60 {
			d = string([]rune(d)[:59]) + "…"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Kind, r.Ref, r.Version, d)
	}
	return tw.Flush()
}
