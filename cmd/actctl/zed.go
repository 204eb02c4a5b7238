package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/zed"
)

func init() {
	register(&cli.Command{
		Name:  "zed",
		Usage: "print (or --write) Zed agent_servers entries for every declared agent that allows proxy",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "write", Usage: "merge the entries into Zed's settings.json"},
			&cli.StringFlag{Name: "settings", Usage: "Zed settings `FILE` (default Zed's user settings.json: %APPDATA%\\Zed on Windows, $FLATPAK_XDG_CONFIG_HOME/zed in a Flatpak, $XDG_CONFIG_HOME/zed, else ~/.config/zed)"},
			&cli.StringFlag{Name: "prefix", Usage: "name the entries `PREFIX`AGENT (to keep them apart from other entries of the same name)"},
			&cli.BoolFlag{Name: "lease", Usage: "service agents' entries lease sessions on the warm agent of the running actctl up (proxy --lease) instead of starting a backend per editor"},
			&cli.StringSliceFlag{Name: "template", Aliases: []string{"t"}, Usage: "also an entry per `TEMPLATE` that creates an agent from it in the project Zed has open (proxy -t)"},
		},
		OnUsageError: usageErrors,
		Action:       zedCmd,
	})
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
	entries := map[string]zed.Entry{}
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents)) {
		// Only agents the user declared: the copies proxy made (per
		// project, from -t) would each grow another copy elsewhere.
		if cfg.Agents[name].Adhoc {
			continue
		}
		r, err := cfg.Resolve(name)
		if err != nil || !r.Offer(schema.InteractProxy) {
			continue
		}
		var extra []string
		if c.Bool("lease") && r.LaunchMode == schema.LaunchACPService {
			extra = append(extra, "--lease")
		}
		entries[prefix+name] = zed.ProxyEntry(self, cfg.Root, cfg.Home, name, extra...)
	}
	if err := zedTemplateEntries(entries, self, cfg, prefix, c.StringSlice("template")); err != nil {
		return err
	}
	for _, w := range zed.RegistryWarnings(entries) {
		g.Warn("%s", w)
	}
	if !c.Bool("write") {
		return g.PrintJSON(map[string]any{"agent_servers": entries})
	}
	return writeZed(g, cfg, c.String("settings"), prefix, entries)
}

// zedTemplateEntries adds an entry per template of -t: it creates an agent
// named after the template in the project Zed has open (proxy -t).
func zedTemplateEntries(entries map[string]zed.Entry, self string, cfg *schema.Config, prefix string, templates []string) error {
	for _, t := range templates {
		if _, ok := cfg.Templates[t]; !ok {
			msg := fmt.Sprintf("zed -t: unknown template %q", t)
			if sug := schema.Suggest(t, slices.Sorted(maps.Keys(cfg.Templates))); sug != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", sug)
			}
			return errors.New(msg)
		}
		if _, ok := cfg.Agents[t]; ok {
			return fmt.Errorf("zed -t %s: an agent of that name exists, and proxy would serve it instead of a new one from the template", t)
		}
		r, err := cfg.ResolveAgent(t, schema.Agent{Template: t})
		if err != nil {
			return err
		}
		if !r.Archetype.Allows("proxy") || !r.Backend.HasMode(schema.ModeACP) {
			return fmt.Errorf("zed -t %s: its agents cannot be served by proxy (archetype %s, backend %s)", t, r.ArchetypeName, r.BackendName)
		}
		entries[prefix+t] = zed.ProxyEntry(self, cfg.Root, cfg.Home, t, "-t", t)
	}
	return nil
}

// writeZed merges entries into the Zed settings file at path (default:
// Zed's user settings), recording what it wrote under the home. A name
// conflict writes nothing and suggests a prefix.
func writeZed(g *globals, cfg *schema.Config, path, prefix string, entries map[string]zed.Entry) error {
	var err error
	if path == "" {
		if path, err = zed.SettingsPath(); err != nil {
			return err
		}
	}
	if path, err = filepath.Abs(path); err != nil {
		return err
	}
	content, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("zed: read %s: %w", path, err)
	}
	rec, err := zed.ReadRecord(cfg.Home)
	if err != nil {
		return err
	}
	if rec.Ignored != "" {
		g.Warn("%s", rec.Ignored)
	}
	raw := map[string]json.RawMessage{}
	for name, e := range entries {
		raw[name], _ = json.Marshal(e)
	}
	plan, err := zed.MergePlan(content, rec.Settings[path], cfg.Root, raw)
	if err != nil {
		return fmt.Errorf("zed: update %s: %w", path, err)
	}
	if len(plan.Conflicts) > 0 {
		return zedConflict(path, cfg.Root, prefix, plan.Conflicts)
	}
	if len(plan.Written) == 0 {
		delete(rec.Settings, path)
	} else {
		rec.Settings[path] = plan.Written
	}
	// The record first: after a crash between the two writes it names at
	// most entries that are missing, which the next --write adds again.
	if err := rec.Write(cfg.Home); err != nil {
		return err
	}
	if string(plan.Out) != string(content) {
		if _, err := atomicfile.MkdirAll(filepath.Dir(path)); err != nil {
			return fmt.Errorf("zed: %w", err)
		}
		if err := atomicfile.Write(path, plan.Out, 0o644); err != nil {
			return fmt.Errorf("zed: write %s: %w", path, err)
		}
	}
	names := append([]string{}, slices.Sorted(maps.Keys(entries))...) // never null (docs/json.md)
	if g.JSON() {
		return g.PrintJSON(map[string]any{"settings": path, "agents": names, "removed": append([]string{}, plan.Removed...)})
	}
	fmt.Fprintf(g.Stdout, "%s: %s\n", path, nameList("agent server", names))
	if len(plan.Removed) > 0 {
		fmt.Fprintf(g.Stdout, "%s: removed %s (no longer declared in %s)\n", path, strings.Join(plan.Removed, ", "), cfg.Root)
	}
	return nil
}

// nameList says how many names there are and which: "no agent server",
// "1 agent server: a", "2 agent servers: a, b".
func nameList(what string, names []string) string {
	switch len(names) {
	case 0:
		return "no " + what
	case 1:
		return "1 " + what + ": " + names[0]
	}
	return fmt.Sprintf("%d %ss: %s", len(names), what, strings.Join(names, ", "))
}

func zedConflict(path, root, prefix string, conflicts []string) error {
	suggest := strings.ToLower(filepath.Base(root))
	suggest = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, suggest)
	if suggest == "" || suggest == "-" {
		suggest = "ws"
	}
	suggest = prefix + suggest + "-"
	sort.Strings(conflicts)
	return fmt.Errorf("zed --write: %s: nothing written:\n  %s\nactctl replaces only the entries it wrote for this workspace; name this workspace's entries apart with --prefix %s (or remove or rename those entries yourself)",
		path, strings.Join(conflicts, "\n  "), suggest)
}
