package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/tasklog"
	"github.com/actctl/actctl/workspace"
)

func init() {
	register(&cli.Command{
		Name:         "describe",
		Usage:        "everything about one agent: its resolved template (and where each value comes from), files, process and last task",
		ArgsUsage:    "AGENT",
		OnUsageError: usageErrors,
		Action:       describeCmd,
	})
}

// describeJSON is `describe -o json` (docs/json.md).
type describeJSON struct {
	Name     string                 `json:"name"`
	Status   string                 `json:"status"`
	Dir      string                 `json:"dir"`
	Modes    []string               `json:"modes"`
	Details  []string               `json:"details"`
	Resolved []schema.ResolvedValue `json:"resolved"`
	Files    []describeFile         `json:"files"`
	Process  *processJSON           `json:"process,omitempty"`
	LastTask *tasklog.Summary       `json:"lastTask,omitempty"`
}

// describeFile is one file the agent has or would have: its path
// (relative to the workspace root when inside it), how actctl manages it
// (file, block, key) and its state: synced, or the action apply would
// take (create, update, drift, conflict, ...).
type describeFile struct {
	Path  string `json:"path"`
	Mode  string `json:"mode,omitempty"`
	State string `json:"state"`
}

func describeCmd(c *cli.Context) error {
	g := globalsOf(c)
	args := agentArg(c.Args().Slice())
	if len(args) != 1 {
		return usageError("describe: want one AGENT")
	}
	name := args[0]
	cfg, err := g.Load()
	if err != nil {
		return err
	}
	if _, ok := cfg.Agents[name]; !ok {
		return unknownAgent(cfg, name)
	}
	d, err := describe(g, cfg, name, func(sts []agentStatusJSON) { addUpStatus(g, sts) })
	if err != nil {
		return err
	}
	if g.JSON() {
		return g.PrintJSON(d)
	}
	return printDescribe(g, d)
}

// describe gathers what describe shows of agent name; withUp adds what
// the running up says of it (addUpStatus; up itself knows it in memory).
// Only name's directory is rendered and read (workspace.Diff, scoped).
func describe(g *globals, cfg *schema.Config, name string, withUp func([]agentStatusJSON)) (*describeJSON, error) {
	prov, err := cfg.Provenance(name)
	if err != nil {
		return nil, err
	}
	sts, err := agentStatuses(cfg, []string{name}, nil)
	if err != nil {
		return nil, err
	}
	withUp(sts)
	d := &describeJSON{Name: name, Resolved: prov, Details: []string{}}
	if len(sts) == 1 {
		d.Status, d.Dir, d.Process = sts[0].Status, sts[0].Dir, sts[0].Process
		d.Details = append(d.Details, sts[0].Details...)
	}
	if d.Files, err = agentFiles(cfg, name); err != nil {
		return nil, err
	}
	r, err := cfg.Resolve(name)
	if err != nil {
		return nil, err
	}
	d.Modes = r.Offers()
	if sums, err := tasklog.Summaries(tasklog.Dir(r)); err == nil && len(sums) > 0 {
		d.LastTask = &sums[len(sums)-1]
	}
	return d, nil
}

// agentFiles lists the files the last apply recorded for the agent and
// those apply would now change, each with its state.
func agentFiles(cfg *schema.Config, name string) ([]describeFile, error) {
	st, err := workspace.RecordedState(cfg)
	if err != nil {
		return nil, err
	}
	_, res, err := workspace.Diff(cfg, []string{name}, true)
	if err != nil {
		return nil, err
	}
	byPath := map[string]*describeFile{}
	if as := st.Agents[name]; as != nil {
		for _, e := range as.Entries {
			p := shownPath(cfg.Root, filepath.Join(as.Dir, e.Path))
			byPath[p] = &describeFile{Path: p, Mode: string(e.Mode), State: "synced"}
		}
	}
	for _, it := range res.Items {
		if len(it.Agents) > 0 && !slices.Contains(it.Agents, name) {
			continue
		}
		p := it.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(cfg.Root, p)
		}
		p = shownPath(cfg.Root, p)
		if f, ok := byPath[p]; ok {
			f.State = string(it.Action)
			continue
		}
		byPath[p] = &describeFile{Path: p, State: string(it.Action)}
	}
	out := []describeFile{}
	for _, p := range slices.Sorted(maps.Keys(byPath)) {
		out = append(out, *byPath[p])
	}
	return out, nil
}

// shownPath is p relative to the workspace root when inside it, else p.
func shownPath(root, p string) string {
	if rel, ok := schema.RelWithin(root, p); ok {
		return filepath.ToSlash(rel)
	}
	return p
}

// printDescribe writes d as kubectl describe does: one section a part.
func printDescribe(g *globals, d *describeJSON) error {
	w := g.Stdout
	fmt.Fprintf(w, "Name:       %s\nStatus:     %s\nDir:        %s\n", d.Name, d.Status, d.Dir)
	fmt.Fprintf(w, "Modes:      %s\n", orNothing(d.Modes))
	if len(d.Details) > 0 {
		fmt.Fprintf(w, "Details:    %s\n", strings.Join(d.Details, "; "))
	}
	fmt.Fprintln(w, "Resolved:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  FIELD\tVALUE\tSOURCE\tPOSITION")
	for _, v := range d.Resolved {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", v.Field, valueText(v), v.Source, dash(v.Position))
	}
	tw.Flush()
	fmt.Fprintln(w, "Files:")
	if len(d.Files) == 0 {
		fmt.Fprintln(w, "  (none)")
	} else {
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  PATH\tMODE\tSTATE")
		for _, f := range d.Files {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Path, dash(f.Mode), f.State)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "Process:    %s\n", processText(d.Process))
	fmt.Fprintf(w, "Last task:  %s\n", taskText(d.LastTask))
	return nil
}

// orNothing is list joined by commas, "none" when empty.
func orNothing(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// valueText is a resolved value on one line: a string as is, "-" for
// nothing, anything else as compact JSON.
func valueText(v schema.ResolvedValue) string {
	if s, ok := v.Value.(string); ok {
		return dash(s)
	}
	if p, ok := v.Value.(schema.Permissions); ok && p.Unset() {
		return "- (no permission keys written; actctl's client answers as standard)"
	}
	b, err := json.Marshal(v.Value)
	if err != nil || string(b) == "null" || string(b) == "[]" || string(b) == "{}" {
		return "-"
	}
	return string(b)
}

// processText is the PROCESS column of status for one agent.
func processText(p *processJSON) string {
	if p == nil {
		return "-"
	}
	s := p.Status
	if p.PID != 0 {
		s = fmt.Sprintf("%s pid %d (%s)", s, p.PID, p.Ownership)
	}
	return s + p.upDetails()
}

// taskText is the last task's summary line.
func taskText(s *tasklog.Summary) string {
	if s == nil {
		return "-"
	}
	t := fmt.Sprintf("#%d %s (%s), ended %s after %s: %s", s.Task, s.Kind, dash(s.Source), s.Time.Local().Format(time.DateTime),
		(time.Duration(s.DurationMs) * time.Millisecond).String(), dash(s.StopReason))
	if s.Error != "" {
		t += ", error: " + s.Error
	}
	return t
}
