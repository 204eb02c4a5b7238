package upserve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/dashboard"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/tasklog"
	"github.com/actctl/actctl/up"
)

// UIPlan is the dashboard --ui asks for (docs/dashboard.md).
type UIPlan struct {
	Addr   string // where to listen
	Host   string // the host of the printed URL
	Remote bool   // other machines may reach Addr
}

// startUI serves the dashboard and records its URL in ui.json; stop
// closes it and removes the record.
func (s *Server) startUI(p *UIPlan, root, home string) (stop func(), err error) {
	ln, err := net.Listen("tcp", p.Addr)
	if err != nil {
		return nil, fmt.Errorf("up: dashboard: %w", err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	tok := dashboard.NewToken()
	extra := ""
	if p.Remote {
		extra = p.Host
	}
	srv, err := dashboard.New(s.Source(), dashboard.Options{Token: tok, Addr: ln.Addr().String(), Host: extra,
		Timeline: s.timelinePath(root, home), Logf: s.logf})
	if err != nil {
		ln.Close()
		return nil, err
	}
	url := fmt.Sprintf("http://%s/?token=%s", net.JoinHostPort(p.Host, port), tok)
	start, _ := launch.StartTime(os.Getpid())
	if _, err := control.WriteUI(root, control.UI{URL: url, Pid: os.Getpid(), Start: start}); err != nil {
		ln.Close()
		return nil, err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	s.ui.Store(srv)
	s.logf("dashboard %s", url)
	if p.Remote {
		s.logf("dashboard: listening on %s, reachable from other machines: the token in its URL is the only guard", ln.Addr())
	}
	return func() {
		_ = hs.Close()
		if err := srv.Close(); err != nil {
			s.logf("dashboard: %v", err)
		}
		if err := control.RemoveUI(root); err != nil {
			s.logf("%v", err)
		}
	}, nil
}

// timelinePath is where the dashboard keeps its timeline across runs of
// up: beside the workspace's process ledgers in the actctl home (""
// when there is none: in memory only).
func (s *Server) timelinePath(root, home string) string {
	dir, err := control.LedgerDir(home, root)
	if err != nil {
		s.logf("dashboard: %v (the timeline is kept in memory only)", err)
		return ""
	}
	return filepath.Join(dir, layout.Timeline)
}

// observe feeds the dashboard the events and hook runs of the bus b.
func (s *Server) observe(b *hooks.Bus) {
	if d := s.ui.Load(); d != nil {
		go d.Follow(s.ctx, b.Observe(1024).C)
	}
}

// canvasChanged tells the dashboard that an employee's canvas changed.
func (s *Server) canvasChanged(agent string) {
	if d := s.ui.Load(); d != nil {
		d.CanvasUpdated(agent)
	}
}

// taskStarted tells the dashboard that a task's log began.
func (s *Server) taskStarted(agent string, task uint64) {
	if d := s.ui.Load(); d != nil {
		d.TaskStarted(agent, task)
	}
}

// Source is what the dashboard knows of this up.
func (s *Server) Source() dashboard.Source { return source{s} }

// source is what the dashboard knows of an up (dashboard.Source).
type source struct{ u *Server }

func (s source) card(st up.AgentStatus, onDemand bool) dashboard.Agent {
	a := dashboard.Agent{AgentStatus: st, OnDemand: onDemand}
	if cfg := s.u.cfg.Load(); cfg != nil {
		if r, err := cfg.Resolve(st.Name); err == nil {
			a.Backend, a.Template = r.BackendName, r.TemplateName
			a.LastTask = tasklog.Last(tasklog.Dir(r))
		}
	}
	return a
}

// Agents are the cards of every agent up runs, then of those it holds
// on demand (demand.go).
func (s source) Agents() []dashboard.Agent {
	var out []dashboard.Agent
	for _, st := range s.u.m.Status() {
		out = append(out, s.card(st, false))
	}
	for _, st := range s.u.od.Status() {
		out = append(out, s.card(st, true))
	}
	return out
}

// Agent is one agent's card.
func (s source) Agent(name string) (dashboard.Agent, error) {
	st, err := s.u.m.StatusOf(name)
	if err == nil {
		return s.card(st, false), nil
	}
	if st, derr := s.u.od.StatusOf(name); derr == nil {
		return s.card(st, true), nil
	}
	return dashboard.Agent{}, err
}

// Detail is an agent's page: its card, describe's text and files, its
// tasks, schedule and queue.
func (s source) Detail(name string) (dashboard.Detail, error) {
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
	d.Describe, d.Files = s.u.o.Describe(cfg, name, a.AgentStatus)
	s.u.m.ReleaseLater() // the render's garbage goes back once the views stop
	d.Tasks, _ = tasklog.Summaries(tasklog.Dir(r))
	s.schedule(&d, r)
	return d, nil
}

// schedule fills an employee's schedule, next ticks and queue.
func (s source) schedule(d *dashboard.Detail, r *schema.Resolved) {
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
func (s source) ticks(name, zone string) []time.Time {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		loc = time.Local
	}
	ticks, _ := s.u.manager(name).Upcoming(name, 5)
	var out []time.Time
	for _, t := range ticks {
		out = append(out, t.Time.In(loc))
	}
	return out
}

// Ticks are an employee's next ticks in its schedule's zone (its first
// cron entry's, else up's).
func (s source) Ticks(name string) ([]time.Time, error) {
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
func (s source) Queue(name string) ([]dashboard.Queued, error) {
	running, waiting, err := s.u.manager(name).Queue(name)
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
func (s source) Task(name string, task uint64) (tasklog.Summary, error) {
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
func (s source) TaskLogPath(name string, task uint64) (string, error) {
	r, err := s.u.cfg.Load().Resolve(name)
	if err != nil {
		return "", err
	}
	return tasklog.TaskFile(tasklog.Dir(r), task)
}

// StderrPath is the agent's log, where its backend's stderr goes
// (agentprep.OpenLog).
func (s source) StderrPath(name string) (string, error) {
	r, err := s.u.cfg.Load().Resolve(name)
	if err != nil {
		return "", err
	}
	return runrecord.LogPath(r), nil
}

// TaskLog is one task's log.
func (s source) TaskLog(name string, task uint64) ([]byte, error) {
	p, err := s.TaskLogPath(name, task)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}

// Prompt is a person's prompt from the dashboard: published as
// user:prompt, then given to the agent as `actctl prompt` gives it.
func (s source) Prompt(ctx context.Context, agent, text string, sink up.Sink) (up.Outcome, error) {
	if err := s.u.notOnDemand(agent); err != nil {
		return up.Outcome{}, err
	}
	return s.u.m.PromptFrom(ctx, up.SourceDashboard, agent, text, true, sink)
}

// Enqueue queues an employee's task of a person's prompt from the
// dashboard, as actctl prompt --no-wait does.
func (s source) Enqueue(ctx context.Context, agent, text string) (uint64, error) {
	if err := s.u.notOnDemand(agent); err != nil {
		return 0, err
	}
	out, err := s.u.m.PromptFrom(ctx, up.SourceDashboard, agent, text, false, nil)
	return out.Task, err
}

// Control starts, stops or restarts an agent, as actctl start/stop/restart.
func (s source) Control(ctx context.Context, op, agent string) error {
	if err := s.u.notOnDemand(agent); err != nil {
		return err
	}
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
func (s source) Canvas(agent string) (string, error) { return s.u.m.Canvas(agent) }

// Hooks are the hooks up runs, as `actctl get hooks` lists them: the
// config's, then the employees' subscriptions.
func (s source) Hooks() []dashboard.Hook {
	rows := s.u.o.HookRows(s.u.cfg.Load(), s.u.subs.List())
	out := make([]dashboard.Hook, 0, len(rows))
	for _, r := range rows {
		out = append(out, dashboard.Hook{Name: r[0], On: r[1], Agents: r[2], Action: r[3], Origin: r[4]})
	}
	return out
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// Sessions is up's conversations and task controls, for the dashboard:
// each agent's manager's (demand.go).
func (s source) Sessions() dashboard.Sessions { return sessions{s.u} }
