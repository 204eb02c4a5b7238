package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/employee"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/hub"
	"github.com/actctl/actctl/plugin"
	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/tasklog"
	"github.com/actctl/actctl/up"
)

func init() {
	register(&cli.Command{
		Name:      "task",
		Usage:     "run one task of employee AGENT to completion as up would (heartbeat, a cron entry, or a prompt): for cron jobs and CI schedules",
		ArgsUsage: "AGENT [--source heartbeat|cron:N|manual | --schedule PATTERN | -p TEXT | --prompt-file F]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "source", Usage: "the `TASK`: heartbeat, cron:N (the Nth entry of schedule.cron, from 0) or manual (with -p)"},
			&cli.StringFlag{Name: "schedule", Usage: "the task of the schedule entry whose cron `PATTERN` fired (a CI's github.event.schedule)"},
			&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Usage: "a manual task's prompt `TEXT`"},
			&cli.StringFlag{Name: "prompt-file", Usage: "read a manual task's prompt from `FILE` (- for stdin)"},
			&cli.StringFlag{Name: "if-busy", Value: "wait", Usage: "when another task of AGENT runs: `wait|skip` (wait for it, or skip it and exit 0)"},
			&cli.DurationFlag{Name: "timeout", Value: 30 * time.Minute, Usage: "cancel, then kill, after `D` (0: never; default: the agent's turnTimeout)"},
			&cli.BoolFlag{Name: "frozen", Usage: "fail instead of changing actant.lock"},
			// How long a cancelled turn may take before the backend's group is
			// killed (tests shorten it).
			&cli.DurationFlag{Name: "grace", Value: acpclient.DefaultGrace, Hidden: true},
		},
		OnUsageError: usageErrors,
		Action:       taskCmd,
	})
}

func taskCmd(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("task: want one AGENT")
	}
	ifBusy := c.String("if-busy")
	if ifBusy != "wait" && ifBusy != "skip" {
		return usageError("task: --if-busy %q: want wait or skip", ifBusy)
	}
	if c.IsSet("schedule") && c.IsSet("source") {
		return usageError("task: --source and --schedule exclude each other")
	}
	text := ""
	if c.IsSet("prompt") || c.IsSet("prompt-file") {
		if c.IsSet("schedule") {
			return usageError("task: -p and --prompt-file make a manual task: drop --schedule")
		}
		var err error
		if text, err = readPrompt(c); err != nil {
			return err
		}
	}
	g := globalsOf(c)
	name := c.Args().First()
	g.OnlyAgent = name
	cfg, _, err := g.LoadWith(context.Background(), hub.Options{Frozen: c.Bool("frozen")})
	if err != nil {
		return err
	}
	r, err := agentprep.EmployeeAgent(cfg, name)
	if err != nil {
		return usageOf(err)
	}
	t, err := pickTask(c, r, text)
	if err != nil {
		return err
	}
	warnMissingSecrets(g, cfg, []string{name})
	timeout := r.Liveness().TurnTimeout // as up's turns (docs/runtime.md, "Turns")
	if c.IsSet("timeout") {
		timeout = c.Duration("timeout")
	}
	ctx, stop := runContext(timeout)
	defer stop()
	lock, err := employee.Acquire(ctx, cfg.Root, name, ifBusy == "wait", func(b *control.AgentBusyError) {
		fmt.Fprintf(g.Stderr, "actctl: task: %v: waiting for its task to end (--if-busy wait)\n", b)
	})
	if ce := (*employee.CoalescedError)(nil); errors.As(err, &ce) {
		fmt.Fprintf(g.Stderr, "actctl: task: %v\n", ce)
		return nil
	}
	if err != nil {
		if cause := context.Cause(ctx); ctx.Err() != nil {
			return withCode(codeOf(cause), fmt.Errorf("task: %w", cause))
		}
		return fmt.Errorf("task: %w", err)
	}
	defer lock.Close()
	defer trackRun(g, "task")()
	return runTask(ctx, c, g, cfg, r, t)
}

// usageOf gives a usage error of a package its exit code (2).
func usageOf(err error) error {
	if ue := (*agentprep.UsageError)(nil); errors.As(err, &ue) {
		return withCode(exitUsage, ue.Err)
	}
	if ue := (*employee.UsageError)(nil); errors.As(err, &ue) {
		return withCode(exitUsage, fmt.Errorf("task: %w", ue.Err))
	}
	return err
}

// pickTask is the task the flags name in r's schedule.
func pickTask(c *cli.Context, r *schema.Resolved, text string) (schedule.Task, error) {
	spec, err := up.ScheduleOf(r.Template.Schedule)
	if err != nil {
		return schedule.Task{}, err
	}
	source := c.String("source")
	if c.IsSet("schedule") {
		if source, err = employee.BySchedule(spec, c.String("schedule")); err != nil {
			return schedule.Task{}, usageOf(err)
		}
	}
	t, err := employee.Pick(spec, source, text)
	return t, usageOf(err)
}

// runTask materializes the employee and runs task t (the caller holds its
// lock), then prints the summary and exits with run's code.
func runTask(ctx context.Context, c *cli.Context, g *globals, cfg *schema.Config, r *schema.Resolved, t schedule.Task) error {
	p, err := agentprep.Employee(ctx, cfg, r, agentprep.Options{Stderr: g.Stderr, Materialized: g.saveConfig})
	if err != nil {
		if cause := context.Cause(ctx); ctx.Err() != nil {
			return withCode(codeOf(cause), fmt.Errorf("task: %w", cause))
		}
		return err
	}
	defer p.Cleanup()
	bus := taskHooks(g, cfg, r.Name)
	out := newRunObserver(g)
	o := employee.Options{Agent: r.Name, Workspace: r.Dir, LogsDir: tasklog.Dir(r), Observer: out,
		Logf:  func(format string, args ...any) { g.Warn("task: "+format, args...) },
		Start: taskStarter(g, cfg, r, p, c.Duration("grace")), Checkout: employee.CheckoutOf(cfg.Root, r)}
	if set, err := plugin.ForAgent(cfg, r, plugin.Options{}); err == nil && set != nil {
		o.Redact = set.Redact // the task log's prompt (docs/plugins.md)
	}
	if h := r.Template.Schedule; h != nil && h.Heartbeat != nil {
		o.Seed = h.Heartbeat.Prompt
	}
	if bus != nil {
		o.Publish = bus.Publish
	}
	oc, res, err := employee.Run(ctx, o, t)
	if se := (*employee.StopError)(nil); errors.As(err, &se) {
		err = nil // the stop reason decides the code, as in run
	}
	code, err := turnCode(res, err, context.Cause(ctx), ctx.Err() != nil)
	s := taskSummary(r.Name, t, oc, res, code, err)
	if g.JSON() {
		g.Stdout.Write(s.JSON())
	} else {
		out.summary(r.Name, res, code, err) // a newline after the agent's text
		fmt.Fprintf(g.Stderr, "actctl: %s", s.Text())
	}
	writeSummaries(g, s)
	if bus != nil {
		bus.Wait() // none outlives actctl (as apply's)
	}
	if code != 0 {
		if !g.JSON() && err != nil && s.Error != "" {
			return withCode(code, nil) // the summary line said why
		}
		return withCode(code, fmt.Errorf("task: %w", err))
	}
	return nil
}

// taskStarter starts r's backend as up starts it (agentprep.Resident: the
// preset's permissions, its workspace or checkout as the session's cwd), its stderr
// to the agent's log, the runtime record saying it runs.
func taskStarter(g *globals, cfg *schema.Config, r *schema.Resolved, p *agentprep.Prepared, grace time.Duration) func(context.Context, acpclient.Observer) (*acpclient.Client, error) {
	return func(ctx context.Context, obs acpclient.Observer) (*acpclient.Client, error) {
		o, err := agentprep.Resident(cfg, r)
		if err != nil {
			return nil, err
		}
		o.Observer, o.Grace = obs, grace
		o.Warn = func(msg string) { g.Warn("task: agent %s: %s", r.Name, msg) }
		o.OnStart = func(pid int) {
			if err := p.Running(pid); err != nil { // Cleanup marks it stopped
				g.Warn("task: %v", err)
			}
		}
		return agentprep.StartLogged(ctx, r, o)
	}
}

// taskHooks is a bus of the workspace's run hooks on a task's events;
// prompt hooks need up's queue and are skipped with one warning. Nil when
// no hook listens.
func taskHooks(g *globals, cfg *schema.Config, agent string) *hooks.Bus {
	run, skipped := employee.Hooks(cfg.Hooks, agent)
	if len(skipped) > 0 {
		g.Warn("task: prompt hooks need actctl up and are skipped: %s", strings.Join(skipped, ", "))
	}
	if len(run) == 0 {
		return nil
	}
	bus, err := hooks.New(run, hooks.Options{Dir: cfg.Root, Context: context.Background(), Guard: g.loops,
		Report: func(r hooks.Result) { reportHook(g, r) }})
	if err != nil {
		g.Warn("hooks: %v", err)
		return nil
	}
	return bus
}

// taskSummary is what task prints last and writes for the engine.
func taskSummary(agent string, t schedule.Task, oc employee.Outcome, res acpclient.Result, code int, err error) employee.Summary {
	s := employee.Summary{Type: "summary", Agent: agent, Task: oc.Task, Kind: string(t.Kind), Source: t.Source,
		StopReason: string(res.StopReason), SessionID: res.SessionID, DurationMs: oc.DurationMs, ExitCode: code, Log: oc.Log,
		Permissions: employee.Permissions{Allowed: res.Permissions.Allowed, Denied: res.Permissions.Denied, Cancelled: res.Permissions.Cancelled}}
	if err != nil {
		s.Error = err.Error()
	}
	return s
}

// writeSummaries writes the summary to $ACTCTL_TERMINATION_LOG
// (Kubernetes' termination message: JSON with -o json, else text, under
// 4096 bytes) and appends it as Markdown to $GITHUB_STEP_SUMMARY.
func writeSummaries(g *globals, s employee.Summary) {
	if p := os.Getenv("ACTCTL_TERMINATION_LOG"); p != "" {
		if err := os.WriteFile(p, s.Termination(g.JSON()), 0o644); err != nil {
			g.Warn("task: termination log: %v", err)
		}
	}
	if p := os.Getenv("GITHUB_STEP_SUMMARY"); p != "" {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			_, err = f.WriteString(s.Markdown())
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			g.Warn("task: step summary: %v", err)
		}
	}
}
