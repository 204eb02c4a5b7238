package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/internal/termsafe"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/supervise"
	"github.com/actctl/actctl/up"
	"github.com/actctl/actctl/workspace"
)

func init() {
	register(&cli.Command{
		Name:         "status",
		Usage:        "per agent: Synced, OutOfSync (with what drifted) or Missing",
		ArgsUsage:    "[AGENT...]",
		OnUsageError: usageErrors,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "exit-code", Usage: "exit 1 when an agent is not Synced (OutOfSync or Missing), 2 on an error, 0 otherwise (for scripts)"},
		},
		Action: statusCmd,
	})
}

func statusCmd(c *cli.Context) error {
	g := globalsOf(c)
	fail := func(err error) error {
		if c.Bool("exit-code") {
			return withCode(2, err)
		}
		return err
	}
	if g.Kube.On {
		if c.Bool("exit-code") {
			return usageError("status: --exit-code reports the files' sync status, which --kube does not show")
		}
		return kubeStatus(g, c.Args().Slice())
	}
	out, err := statuses(g, c.Args().Slice())
	if err != nil {
		return fail(err)
	}
	if err := printStatuses(g, out); err != nil {
		return fail(err)
	}
	if c.Bool("exit-code") {
		for _, s := range out {
			if s.Status != workspace.Synced {
				return withCode(1, nil)
			}
		}
	}
	return nil
}

// printStatuses prints status's table, or its JSON.
func printStatuses(g *globals, out []agentStatusJSON) error {
	if g.JSON() {
		return g.PrintJSON(out)
	}
	// One write for the table: tabwriter writes each cell on its own.
	bw := bufio.NewWriter(g.Stdout)
	tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	// The header is painted plain so that its column lines up with the
	// painted cells below it (tabwriter counts the escape bytes).
	fmt.Fprintf(tw, "NAME\t%s\tPROCESS\tDIR\tDETAILS\n", g.Color().paint(ansiPlain, "STATUS"))
	for _, s := range out {
		proc := "-"
		if s.Process != nil {
			proc = s.Process.Status
			if s.Process.PID != 0 {
				proc = fmt.Sprintf("%s pid %d (%s)", proc, s.Process.PID, s.Process.Ownership)
			}
			proc += s.Process.upDetails()
		}
		// The process details may quote an agent (its last error).
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Name, g.Color().status(s.Status), cellText(proc), termsafe.Line(s.Dir), cellList(s.Details))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

// statuses is what `status` reports for the agents named in only (every
// agent when it is empty). With none named and nothing changed since the
// last plain apply, the config is not loaded (workspace.SyncedStatus).
// up is asked first: the runtime record of an agent it holds is not read
// (at a thousand agents, a thousand files read for nothing).
func statuses(g *globals, only []string) ([]agentStatusJSON, error) {
	if len(only) == 0 {
		if listed := workspace.SyncedStatus(g.workspace()); listed != nil {
			held := heldByUp(g)
			out := make([]agentStatusJSON, len(listed))
			for i, l := range listed {
				out[i] = agentStatusJSON{AgentStatus: l.AgentStatus, Process: process(held, l.Name, func() string { return l.Record })}
			}
			return out, nil
		}
	}
	cfg, err := g.Load()
	if err != nil {
		return nil, err
	}
	return agentStatuses(cfg, only, heldByUp(g))
}

// process is the PROCESS of agent name: what up says of it when it is
// in held, else what its runtime record (at the path record gives) says.
func process(held map[string]up.AgentStatus, name string, record func() string) *processJSON {
	if h, ok := held[name]; ok {
		return upProcess(h)
	}
	p := record()
	if p == "" {
		return nil
	}
	return processAt(p)
}

// agentStatuses is what `status` reports for the agents named in only
// (every agent when it is empty): sync status plus process, what up says
// of the agents in held (heldByUp), else the agent's runtime record.
func agentStatuses(cfg *schema.Config, only []string, held map[string]up.AgentStatus) ([]agentStatusJSON, error) {
	sts, err := workspace.Status(cfg, only)
	if err != nil {
		return nil, err
	}
	keep := map[string]bool{}
	for _, n := range only {
		keep[n] = true
	}
	out := make([]agentStatusJSON, 0, len(sts))
	for _, st := range sts {
		if len(only) > 0 && !keep[st.Name] {
			continue
		}
		p := process(held, st.Name, func() string { return recordPath(cfg, st.Name) })
		out = append(out, agentStatusJSON{AgentStatus: st, Process: p})
	}
	return out, nil
}

// agentStatusJSON is one agent in `status -o json`.
type agentStatusJSON struct {
	workspace.AgentStatus
	Process *processJSON `json:"process,omitempty"`
}

type processJSON struct {
	Status    string `json:"status"`
	PID       int    `json:"pid,omitempty"`
	Ownership string `json:"processOwnership,omitempty"`
	// Set when the running actctl up holds the agent.
	Up *up.AgentStatus `json:"up,omitempty"`
}

// addUpStatus adds, when an actctl up runs for the workspace, its view of
// each agent it holds: state, pid, uptime, restarts, next tick.
func addUpStatus(g *globals, out []agentStatusJSON) {
	by := heldByUp(g)
	for i := range out {
		st, ok := by[out[i].Name]
		if !ok {
			continue
		}
		out[i].Process = upProcess(st)
	}
}

// heldByUp is, when an actctl up runs for the workspace, its view of each
// agent it holds, by name: state, pid, uptime, restarts, next tick. Nil
// when no up runs (or it did not answer: said on stderr).
func heldByUp(g *globals) map[string]up.AgentStatus {
	var sts []up.AgentStatus
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := callUp(ctx, g, control.Request{Op: control.OpStatus}, nil, &sts); err != nil {
		if !errors.Is(err, control.ErrNoUp) {
			g.Warn("status: actctl up: %v", err)
		}
		return nil
	}
	by := make(map[string]up.AgentStatus, len(sts))
	for _, st := range sts {
		by[st.Name] = st
	}
	return by
}

// upProcess is the PROCESS of an agent the running up holds.
func upProcess(st up.AgentStatus) *processJSON {
	return &processJSON{Status: string(st.State), PID: st.Pid, Ownership: runrecord.OwnershipManaged, Up: &st}
}

// upDetails is what up adds to the PROCESS column.
func (p *processJSON) upDetails() string {
	if p.Up == nil {
		return ""
	}
	s := p.Up
	var parts []string
	if s.UptimeMs > 0 {
		parts = append(parts, "up "+(time.Duration(s.UptimeMs)*time.Millisecond).Round(time.Second).String())
	}
	if t := s.Turn; t != nil {
		parts = append(parts, turnDetails(*t))
	}
	if s.Queued > 0 {
		parts = append(parts, fmt.Sprintf("%d queued", s.Queued))
	}
	if s.Restarts > 0 {
		parts = append(parts, fmt.Sprintf("restarts %d", s.Restarts))
	}
	if s.NextStart != nil {
		parts = append(parts, "restart at "+s.NextStart.Local().Format(time.TimeOnly))
	}
	if s.NextTick != nil {
		parts = append(parts, "next tick "+s.NextTick.Local().Format(time.DateTime))
	}
	if s.LastError != "" && s.State != supervise.Running {
		first, _, _ := strings.Cut(s.LastError, "\n") // the stderr tail is in the agent's log
		parts = append(parts, "last error: "+first)
	}
	if len(parts) == 0 {
		return ""
	}
	return ", " + strings.Join(parts, ", ")
}

// turnDetails is a running turn in the PROCESS column: "task 3
// (heartbeat) running 2m10s", and "stalled 10m0s" when the agent has sent
// nothing for stallAfter.
func turnDetails(t up.TurnStatus) string {
	src := t.Kind
	if t.Source != "" && t.Source != t.Kind {
		src += " " + t.Source
	}
	msg := fmt.Sprintf("task %d (%s) running %s", t.Task, src, (time.Duration(t.ElapsedMs) * time.Millisecond).Round(time.Second))
	if t.Stalled {
		msg += fmt.Sprintf(", stalled: no update since %s", t.LastUpdate.Local().Format(time.TimeOnly))
	}
	return msg
}

// recordPath is where agent name of cfg keeps its runtime record, ""
// when it does not resolve.
func recordPath(cfg *schema.Config, name string) string {
	r, err := cfg.Resolve(name)
	if err != nil {
		return ""
	}
	return runrecord.Path(r)
}

// processAt reads the runtime record at p: which process serves its
// agent. A recorded pid that is no longer alive is reported as "exited".
func processAt(path string) *processJSON {
	rec, err := runrecord.Read(path)
	if err != nil || (rec.Status == "" && rec.PID == 0) {
		return nil
	}
	p := &processJSON{Status: rec.Status, PID: rec.PID, Ownership: rec.ProcessOwnership}
	if rec.PID != 0 && !rec.Live() {
		p.Status, p.PID = "exited", 0
	}
	return p
}
