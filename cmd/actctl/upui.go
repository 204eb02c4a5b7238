package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/dashboard"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/tasklog"
	"github.com/actctl/actctl/up"
)

// uiFlags are up's dashboard flags (docs/dashboard.md).
var uiFlags = []cli.Flag{
	&cli.StringFlag{Name: "ui", Value: "127.0.0.1:0", Usage: "serve the dashboard on `ADDR` (a loopback address; port 0: a free one), or \"off\""},
	&cli.BoolFlag{Name: "ui-allow-remote", Usage: "let --ui listen on an address other machines reach (the token in the URL is then the only guard)"},
}

// uiPlan is what --ui asks for: nil when off.
type uiPlan struct {
	addr   string
	host   string // the host of the printed URL
	remote bool
}

// parseUI checks --ui before anything runs: a non-loopback address
// needs --ui-allow-remote.
func parseUI(c *cli.Context) (*uiPlan, error) {
	addr := c.String("ui")
	if addr == "off" {
		return nil, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, usageError("up: --ui %q: want HOST:PORT (127.0.0.1:0) or off: %v", addr, err)
	}
	p := &uiPlan{addr: addr, host: host}
	switch ip := net.ParseIP(host); {
	case host == "localhost" || (ip != nil && ip.IsLoopback()):
		if ip == nil {
			p.host = "127.0.0.1"
		}
	case !c.Bool("ui-allow-remote"):
		return nil, usageError("up: --ui %s is not a loopback address: other machines could reach the dashboard; add --ui-allow-remote to mean it (the token is then the only guard)", addr)
	default:
		p.remote = true
		if host == "" || (ip != nil && ip.IsUnspecified()) {
			p.host = "127.0.0.1"
		}
	}
	return p, nil
}

// startUI serves the dashboard and records its URL in ui.json; stop
// closes it and removes the record.
func (u *upRun) startUI(p *uiPlan, root string) (stop func(), err error) {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return nil, fmt.Errorf("up: dashboard: %w", err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	tok := dashboard.NewToken()
	extra := ""
	if p.remote {
		extra = p.host
	}
	srv, err := dashboard.New(upSource{u}, dashboard.Options{Token: tok, Addr: ln.Addr().String(), Host: extra})
	if err != nil {
		ln.Close()
		return nil, err
	}
	url := fmt.Sprintf("http://%s/?token=%s", net.JoinHostPort(p.host, port), tok)
	start, _ := launch.StartTime(os.Getpid())
	if _, err := control.WriteUI(root, control.UI{URL: url, Pid: os.Getpid(), Start: start}); err != nil {
		ln.Close()
		return nil, err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	u.ui.Store(srv)
	u.logf("dashboard %s", url)
	if p.remote {
		u.logf("dashboard: listening on %s, reachable from other machines: the token in its URL is the only guard", ln.Addr())
	}
	return func() {
		_ = hs.Close()
		if err := control.RemoveUI(root); err != nil {
			u.logf("%v", err)
		}
	}, nil
}

// observe feeds the dashboard the events and hook runs of the bus b.
func (u *upRun) observe(b *hooks.Bus) {
	if s := u.ui.Load(); s != nil {
		go s.Follow(u.ctx, b.Observe(1024).C)
	}
}

// canvasChanged tells the dashboard that an employee's canvas changed.
func (u *upRun) canvasChanged(agent string) {
	if s := u.ui.Load(); s != nil {
		s.CanvasUpdated(agent)
	}
}

// taskStarted tells the dashboard that a task's log began.
func (u *upRun) taskStarted(agent string, task uint64) {
	if s := u.ui.Load(); s != nil {
		s.TaskStarted(agent, task)
	}
}

// upSource is what the dashboard knows of this up (dashboard.Source).
type upSource struct{ u *upRun }

func (s upSource) card(st up.AgentStatus) dashboard.Agent {
	a := dashboard.Agent{AgentStatus: st}
	if cfg := s.u.cfg.Load(); cfg != nil {
		if r, err := cfg.Resolve(st.Name); err == nil {
			a.Backend, a.Template = r.BackendName, r.TemplateName
			a.LastTask = tasklog.Last(tasklog.Dir(r))
		}
	}
	return a
}

// Agents are the cards of every agent up runs.
func (s upSource) Agents() []dashboard.Agent {
	var out []dashboard.Agent
	for _, st := range s.u.m.Status() {
		out = append(out, s.card(st))
	}
	return out
}

// Agent is one agent's card.
func (s upSource) Agent(name string) (dashboard.Agent, error) {
	st, err := s.u.m.StatusOf(name)
	if err != nil {
		return dashboard.Agent{}, err
	}
	return s.card(st), nil
}

// Detail is an agent's page: its card, describe's text and files, its
// tasks, schedule and queue.
func (s upSource) Detail(name string) (dashboard.Detail, error) {
	a, err := s.Agent(name)
	if err != nil {
		return dashboard.Detail{}, err
	}
	d := dashboard.Detail{Agent: a}
	cfg := s.u.cfg.Load()
	r, err := cfg.Resolve(name)
	if err != nil {
		return d, err
	}
	g := *s.u.g
	var buf bytes.Buffer
	g.Stdout = &buf
	withUp := func(sts []agentStatusJSON) {
		for i := range sts {
			sts[i].Process = upProcess(a.AgentStatus)
		}
	}
	if dj, err := describe(&g, cfg, name, withUp); err == nil {
		_ = printDescribe(&g, dj)
		for _, f := range dj.Files {
			d.Files = append(d.Files, dashboard.File{Path: f.Path, Mode: f.Mode, State: f.State})
		}
	} else {
		fmt.Fprintf(&buf, "describe: %v\n", err)
	}
	d.Describe = buf.String()
	d.Tasks, _ = tasklog.Summaries(tasklog.Dir(r))
	s.schedule(&d, r)
	return d, nil
}

// schedule fills an employee's schedule, next ticks and queue.
func (s upSource) schedule(d *dashboard.Detail, r *schema.Resolved) {
	spec, err := up.ScheduleOf(r.Template.Schedule)
	if err != nil || spec == nil {
		return
	}
	if hb := spec.Heartbeat; hb != nil {
		d.Schedule = append(d.Schedule, fmt.Sprintf("heartbeat every %s", hb.Interval))
	}
	for i, c := range spec.Cron {
		d.Schedule = append(d.Schedule, fmt.Sprintf("cron[%d] %q in %s: %s", i, c.Pattern, c.Location, firstLine(c.Prompt)))
		if d.Zone == "" {
			d.Zone = c.Location.String()
		}
	}
	if d.Zone == "" {
		d.Zone = time.Local.String()
	}
	d.Ticks = s.ticks(d.Name, d.Zone)
	d.Queue, _ = s.Queue(d.Name)
}

// ticks are an employee's next five ticks in zone.
func (s upSource) ticks(name, zone string) []time.Time {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		loc = time.Local
	}
	ticks, _ := s.u.m.Upcoming(name, 5)
	var out []time.Time
	for _, t := range ticks {
		out = append(out, t.Time.In(loc))
	}
	return out
}

// Ticks are an employee's next ticks in its schedule's zone (its first
// cron entry's, else up's).
func (s upSource) Ticks(name string) ([]time.Time, error) {
	r, err := s.u.cfg.Load().Resolve(name)
	if err != nil {
		return nil, err
	}
	spec, err := up.ScheduleOf(r.Template.Schedule)
	if err != nil || spec == nil {
		return nil, err
	}
	zone := time.Local.String()
	if len(spec.Cron) > 0 {
		zone = spec.Cron[0].Location.String()
	}
	return s.ticks(name, zone), nil
}

// Queue is an employee's task running, then those waiting.
func (s upSource) Queue(name string) ([]dashboard.Queued, error) {
	running, waiting, err := s.u.m.Queue(name)
	if err != nil {
		return nil, err
	}
	var q []dashboard.Queued
	if running != nil {
		q = append(q, dashboard.Queued{ID: running.ID, Kind: string(running.Kind), Prompt: firstLine(running.Prompt), Running: true})
	}
	for _, t := range waiting {
		q = append(q, dashboard.Queued{ID: t.ID, Kind: string(t.Kind), Prompt: firstLine(t.Prompt)})
	}
	return q, nil
}

// Task is the summary of one ended task of the agent.
func (s upSource) Task(name string, task uint64) (tasklog.Summary, error) {
	r, err := s.u.cfg.Load().Resolve(name)
	if err != nil {
		return tasklog.Summary{}, err
	}
	sums, err := tasklog.Summaries(tasklog.Dir(r))
	if err != nil {
		return tasklog.Summary{}, err
	}
	for _, t := range slices.Backward(sums) {
		if t.Task == task {
			return t, nil
		}
	}
	return tasklog.Summary{}, fmt.Errorf("agent %s: task %d has not ended", name, task)
}

// TaskLogPath is the file of one task's log.
func (s upSource) TaskLogPath(name string, task uint64) (string, error) {
	r, err := s.u.cfg.Load().Resolve(name)
	if err != nil {
		return "", err
	}
	return tasklog.TaskFile(tasklog.Dir(r), task)
}

// StderrPath is the agent's log, where its backend's stderr goes
// (agentprep.OpenLog).
func (s upSource) StderrPath(name string) (string, error) {
	r, err := s.u.cfg.Load().Resolve(name)
	if err != nil {
		return "", err
	}
	return runrecord.LogPath(r), nil
}

// TaskLog is one task's log.
func (s upSource) TaskLog(name string, task uint64) ([]byte, error) {
	p, err := s.TaskLogPath(name, task)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}

// Prompt is a person's prompt from the dashboard: published as
// user:prompt, then given to the agent as `actctl prompt` gives it.
func (s upSource) Prompt(ctx context.Context, agent, text string, sink up.Sink) (up.Outcome, error) {
	return s.u.m.PromptFrom(ctx, up.SourceDashboard, agent, text, true, sink)
}

// Enqueue queues an employee's task of a person's prompt from the
// dashboard, as actctl prompt --no-wait does.
func (s upSource) Enqueue(ctx context.Context, agent, text string) (uint64, error) {
	out, err := s.u.m.PromptFrom(ctx, up.SourceDashboard, agent, text, false, nil)
	return out.Task, err
}

// Control starts, stops or restarts an agent, as actctl start/stop/restart.
func (s upSource) Control(ctx context.Context, op, agent string) error {
	var err error
	switch op {
	case dashboard.OpStart:
		_, err = s.u.m.Start(ctx, agent)
	case dashboard.OpStop:
		_, err = s.u.m.Stop(ctx, agent)
	case dashboard.OpRestart:
		_, err = s.u.m.Restart(ctx, agent)
	default:
		err = errors.New("unknown operation " + op)
	}
	return err
}

// Canvas is an employee's canvas.
func (s upSource) Canvas(agent string) (string, error) { return s.u.m.Canvas(agent) }

// Hooks are the hooks up runs, as `actctl get hooks` lists them: the
// config's, then the employees' subscriptions.
func (s upSource) Hooks() []dashboard.Hook {
	var rows [][]string
	if cfg := s.u.cfg.Load(); cfg != nil {
		_, rows, _ = listHooks(cfg)
	}
	if s.u.subs != nil {
		for _, sub := range s.u.subs.List() {
			rows = append(rows, hookRow(subscriptionJSON(sub)))
		}
	}
	out := make([]dashboard.Hook, 0, len(rows))
	for _, r := range rows {
		out = append(out, dashboard.Hook{Name: r[0], On: r[1], Agents: r[2], Action: r[3], Origin: r[4]})
	}
	return out
}

// Sessions is up's conversations and task controls, for the dashboard.
func (s upSource) Sessions() dashboard.Sessions { return s.u.m }
