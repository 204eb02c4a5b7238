package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/jsonkeys"
	"github.com/actctl/actctl/schema"
)

func init() {
	register(&cli.Command{
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

// zedEntry is one Zed agent_servers entry (a custom ACP agent server).
type zedEntry struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// zedProxyEntry is the entry that serves agent name of cfg: `actctl proxy`
// with the workspace root and the home in use spelled out, so that the
// proxy Zed starts (from any directory, with any environment) finds the
// same workspace and the same instances. extra are more proxy arguments.
func zedProxyEntry(self string, cfg *schema.Config, name string, extra ...string) zedEntry {
	args := append([]string{"proxy", name}, extra...)
	return zedEntry{Type: "custom", Command: self, Args: append(args, "-C", cfg.Root, "--home", cfg.Home)}
}

// zedTemplateEntries adds an entry per template of -t: it creates an agent
// named after the template in the project Zed has open (proxy -t).
func zedTemplateEntries(entries map[string]zedEntry, self string, cfg *schema.Config, prefix string, templates []string) error {
	for _, t := range templates {
		if _, ok := cfg.Templates[t]; !ok {
			msg := fmt.Sprintf("zed -t: unknown template %q", t)
			if sug := schema.Suggest(t, sortedNames(cfg.Templates)); sug != "" {
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
		entries[prefix+t] = zedProxyEntry(self, cfg, t, "-t", t)
	}
	return nil
}

// zedWritten is one agent_servers entry `zed --write` wrote: the workspace
// it serves, the sha256 of its canonical value, and how to remove it.
type zedWritten struct {
	Workspace string           `json:"workspace"`
	SHA256    string           `json:"sha256"`
	Receipt   jsonkeys.Receipt `json:"receipt"`
}

// zedRecord is $ACTANT_HOME/zed.json: per Zed settings file (absolute
// path), the entries actctl wrote there. An entry is actctl's, and may be
// replaced or removed, only where this record says actctl wrote it, for
// this workspace, and it still holds what was written (docs: README
// "Editors: ACP proxy and Zed").
type zedRecord struct {
	Settings map[string]map[string]zedWritten `json:"settings"`
}

const zedRecordFile = "zed.json"

func readZedRecord(home string) (*zedRecord, error) {
	p := filepath.Join(home, zedRecordFile)
	rec := &zedRecord{}
	b, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("zed: read %s: %w", p, err)
	}
	if err == nil {
		if err := json.Unmarshal(b, rec); err != nil {
			return nil, fmt.Errorf("zed: read %s: %w", p, err)
		}
	}
	if rec.Settings == nil {
		rec.Settings = map[string]map[string]zedWritten{}
	}
	return rec, nil
}

func (r *zedRecord) write(home string) error {
	p := filepath.Join(home, zedRecordFile)
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if _, err := atomicfile.MkdirAll(home); err != nil {
		return fmt.Errorf("zed: %w", err)
	}
	if err := atomicfile.Write(p, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("zed: write %s: %w", p, err)
	}
	return nil
}

// zedPlan is what --write changes in one settings file.
type zedPlan struct {
	out       []byte                // the new settings content
	written   map[string]zedWritten // the record of this settings file after the write
	removed   []string              // entries of this workspace no longer listed, removed
	conflicts []string              // entries that are not actctl's to replace
}

// planZed merges entries (name -> value) of workspace root into the
// settings content, given what actctl wrote there before (written, may be
// nil). An existing entry is replaced only when it is actctl's for this
// workspace and unchanged; entries actctl wrote for this workspace that
// are no longer listed are removed, if unchanged. Nothing else is touched.
func planZed(content []byte, written map[string]zedWritten, root string, entries map[string]json.RawMessage) (*zedPlan, error) {
	p := &zedPlan{out: content, written: map[string]zedWritten{}}
	for name, w := range written {
		if w.Workspace != root {
			p.written[name] = w
		}
	}
	for _, name := range sortedNames(entries) {
		key := []string{"agent_servers", name}
		cur, exists, err := jsonkeys.Get(content, key)
		if err != nil {
			return nil, err
		}
		w, ours := written[name]
		switch {
		case exists && !ours:
			p.conflicts = append(p.conflicts, fmt.Sprintf("agent_servers.%s is not an entry actctl wrote (your own?)", name))
			continue
		case exists && w.Workspace != root:
			p.conflicts = append(p.conflicts, fmt.Sprintf("agent_servers.%s serves the workspace %s", name, w.Workspace))
			continue
		case exists && sha256Hex(cur) != w.SHA256:
			p.conflicts = append(p.conflicts, fmt.Sprintf("agent_servers.%s was edited since actctl wrote it", name))
			continue
		}
		var rc jsonkeys.Receipt
		if p.out, rc, err = jsonkeys.Set(p.out, key, entries[name]); err != nil {
			return nil, err
		}
		if exists {
			rc = w.Receipt // the first write's receipt knows what to undo
		}
		canon, err := jsonkeys.Canonical(entries[name])
		if err != nil {
			return nil, err
		}
		p.written[name] = zedWritten{Workspace: root, SHA256: sha256Hex(canon), Receipt: rc}
	}
	return p, p.removeStale(written, root, entries)
}

// removeStale removes the entries actctl wrote for root that are no longer
// listed, where they still hold what actctl wrote.
func (p *zedPlan) removeStale(written map[string]zedWritten, root string, entries map[string]json.RawMessage) error {
	for _, name := range sortedNames(written) {
		w := written[name]
		if _, listed := entries[name]; listed || w.Workspace != root {
			continue
		}
		key := []string{"agent_servers", name}
		cur, exists, err := jsonkeys.Get(p.out, key)
		if err != nil {
			return err
		}
		if !exists || sha256Hex(cur) != w.SHA256 {
			continue // gone, or edited by hand: the user's now
		}
		if p.out, err = jsonkeys.Delete(p.out, key, w.Receipt); err != nil {
			return err
		}
		p.removed = append(p.removed, name)
	}
	return nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// writeZed merges entries into the Zed settings file at path (default:
// Zed's user settings), recording what it wrote under the home. A name
// conflict writes nothing and suggests a prefix.
func writeZed(g *globals, cfg *schema.Config, path, prefix string, entries map[string]zedEntry) error {
	var err error
	if path == "" {
		if path, err = zedSettingsPath(); err != nil {
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
	rec, err := readZedRecord(cfg.Home)
	if err != nil {
		return err
	}
	raw := map[string]json.RawMessage{}
	for name, e := range entries {
		raw[name], _ = json.Marshal(e)
	}
	plan, err := planZed(content, rec.Settings[path], cfg.Root, raw)
	if err != nil {
		return fmt.Errorf("zed: update %s: %w", path, err)
	}
	if len(plan.conflicts) > 0 {
		return zedConflict(path, cfg.Root, prefix, plan.conflicts)
	}
	if len(plan.written) == 0 {
		delete(rec.Settings, path)
	} else {
		rec.Settings[path] = plan.written
	}
	// The record first: after a crash between the two writes it names at
	// most entries that are missing, which the next --write adds again.
	if err := rec.write(cfg.Home); err != nil {
		return err
	}
	if string(plan.out) != string(content) {
		if _, err := atomicfile.MkdirAll(filepath.Dir(path)); err != nil {
			return fmt.Errorf("zed: %w", err)
		}
		if err := atomicfile.Write(path, plan.out, 0o644); err != nil {
			return fmt.Errorf("zed: write %s: %w", path, err)
		}
	}
	names := sortedNames(entries)
	if g.JSON() {
		return g.PrintJSON(map[string]any{"settings": path, "agents": names, "removed": append([]string{}, plan.removed...)})
	}
	fmt.Fprintf(g.Stdout, "%s: %d agent server(s): %v\n", path, len(names), names)
	if len(plan.removed) > 0 {
		fmt.Fprintf(g.Stdout, "%s: removed %v (no longer in %s)\n", path, plan.removed, cfg.Root)
	}
	return nil
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

// zedSettingsPath is Zed's user settings file.
func zedSettingsPath() (string, error) {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "zed", "settings.json"), nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, ".config", "zed", "settings.json"), nil
}
