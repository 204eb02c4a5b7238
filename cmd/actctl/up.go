package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/dashboard"
	"github.com/actctl/actctl/employee"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/internal/termsafe"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/supervise"
	"github.com/actctl/actctl/tasklog"
	"github.com/actctl/actctl/up"
	"github.com/actctl/actctl/watch"
	"github.com/actctl/actctl/webhook"
	"github.com/actctl/actctl/workspace"
)

func init() {
	register(&cli.Command{
		Name:      "up",
		Usage:     "run the workspace's service and employee agents in the foreground: keep their files applied, restart them, run their schedules, take start/stop/prompt (Ctrl-C stops all)",
		ArgsUsage: "[AGENT...]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "frozen", Usage: "fail instead of changing actant.lock"},
			&cli.DurationFlag{Name: "debounce", Value: watch.DefaultDebounce, Usage: "quiet window before a re-apply"},
			// How long a stopping agent gets before its group is killed
			// (tests shorten it).
			&cli.DurationFlag{Name: "grace", Value: acpclient.DefaultGrace, Hidden: true},
			// The start bound and the turn grace of a restart (docs/runtime.md, "Supervision";
			// tests shorten them).
			&cli.DurationFlag{Name: "start-timeout", Value: supervise.DefaultStartTimeout, Hidden: true},
			&cli.DurationFlag{Name: "turn-grace", Value: up.DefaultTurnGrace, Hidden: true},
			&cli.StringFlag{Name: "webhooks", Usage: "serve the workspace's webhooks (POST /webhooks/NAME) on `ADDR` (host:port; off by default; may face the network)"},
			uiFlags[0], uiFlags[1],
		},
		OnUsageError: usageErrors,
		Action:       upCmd,
	})
}

// upRun is one `actctl up`: the config of the last cycle, the hooks bus
// built from it, and the manager of the agents.
type upRun struct {
	g     *globals
	names []string // the agents named on the command line
	grace time.Duration
	m     *up.Manager
	cfg   atomic.Pointer[schema.Config]
	bus   atomic.Pointer[hooks.Bus]
	ctx   context.Context // ends at shutdown: hooks still running are killed
	// lastHooks is the context of the hooks of the shutdown's events
	// (lastEvents); endHooks ends it: shutdownHookGrace after the agents
	// stopped, or at once on a second signal.
	lastHooks context.Context
	endHooks  context.CancelFunc
	// subs are the employees' runtime subscriptions, run by bus.
	subs *hooks.Registry
	// webhooks is the --webhooks listener, nil when off.
	webhooks *upWebhooks
	// started publishes actctl:start once, after the first cycle.
	started sync.Once
	// signalled is the signal that stopped up, once one came.
	signalled atomic.Pointer[os.Signal]
	// forced is the second signal, once one came (force).
	forced atomic.Pointer[os.Signal]
	ui     atomic.Pointer[dashboard.Server] // nil with --ui off (upui.go)

	mu      sync.Mutex
	cycle   int
	filesAt map[string]int  // per agent, the cycle that last changed its files
	logged  map[string]bool // agents already reported as not runnable
}

func upCmd(c *cli.Context) error {
	g := globalsOf(c)
	g.Acts = func(cfg *schema.Config) []string { return upActs(cfg, c.Args().Slice()) }
	cfg, err := g.Load()
	if err != nil {
		return err
	}
	u := &upRun{g: g, names: c.Args().Slice(), grace: c.Duration("grace"), logged: map[string]bool{},
		filesAt: map[string]int{}}
	if err := u.checkNames(cfg); err != nil {
		return err
	}
	warnMissingSecrets(g, cfg, upAgents(cfg, u.names))
	ui, err := parseUI(c)
	if err != nil {
		return err
	}
	wh, err := listenWebhooks(c.String("webhooks"), cfg, u.delivered)
	if err != nil {
		return err
	}
	if wh != nil {
		defer wh.ln.Close()
	}
	u.webhooks = wh
	owner, err := control.Acquire(cfg.Root)
	if err != nil {
		return err
	}
	defer owner.Close()
	ln, err := owner.Listen()
	if err != nil {
		return err
	}
	untrack, err := trackProcesses(cfg.Root, cfg.Home, true, u.logf)
	if err != nil {
		return err
	}
	defer untrack() // after the hooks (u.wait): their children go too
	g.loops = hooks.NewGuard(hooks.MaxChain, func(msg string) { g.Warn("%s", msg) })
	u.subs = hooks.NewRegistry()
	u.m = up.New(up.Options{Launch: u.launch, Publish: u.publish, Logf: u.logf, Grace: u.grace, Loops: g.loops, Subscriptions: u.subs,
		StartTimeout: c.Duration("start-timeout"), TurnGrace: c.Duration("turn-grace"), Canvas: u.canvasChanged,
		TaskStarted: u.taskStarted})
	var endHooks context.CancelFunc
	u.lastHooks, endHooks = context.WithCancel(context.Background())
	defer endHooks()
	u.endHooks = endHooks
	ctx, cancel, stopSignals := onSignals(gracefulPolicy(u.stopping, u.force))
	defer stopSignals()
	u.ctx = ctx
	u.guardStderr(g, cancel)
	hookRuns := newHookPrompter(u) // up_hookrun.go
	g.prompter = hookRuns
	if err := control.RemoveUI(cfg.Root); err != nil { // a killed up's
		return err
	}
	if ui != nil {
		stopUI, err := u.startUI(ui, cfg.Root)
		if err != nil {
			return err
		}
		defer stopUI()
	}
	served := make(chan error, 1)
	// Until the socket is closed, a request that comes while up stops
	// is told so.
	go func() { served <- control.ServeUntilClosed(ctx, ln, u.m) }()
	u.logf("control socket %s; Ctrl-C stops every agent", ln.Addr())
	if wh != nil {
		wh.serve(ctx)
		u.logf("webhooks on http://%s/webhooks/ (%s)", wh.ln.Addr(), webhookNames(cfg))
	} else if len(cfg.Webhooks) > 0 {
		u.logf("actant.cue declares webhooks (%s) but up serves none: give --webhooks ADDR (127.0.0.1:8787) to serve them", webhookNames(cfg))
	}
	err = watchApply(ctx, c, g, cfg.Root, u.after)
	u.lastEvents()
	u.publish(hooks.Event{Name: schema.EventActctlStop, Data: map[string]any{"reason": u.stopReason(err)}})
	cancel()
	u.logf("stopping")
	u.m.Shutdown()
	if cerr := owner.Close(); cerr != nil {
		u.logf("%v", cerr)
	}
	<-served
	if werr := wh.wait(); werr != nil {
		u.logf("webhooks: %v", werr)
	}
	bound := time.AfterFunc(shutdownHookGrace, endHooks)
	u.wait()
	hookRuns.wait()
	bound.Stop()
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	if s := u.forced.Load(); s != nil {
		u.logf("stopped at once")
		return withCode(signalExit(*s), fmt.Errorf("up: a second %s killed every agent's process group", signalName(*s)))
	}
	u.logf("stopped")
	return nil
}

// stopping says that a signal stops up (gracefully: turns get their
// grace, agents SIGTERM and theirs).
func (u *upRun) stopping(s os.Signal) {
	u.logf("%s received: stopping every agent (send it again to kill them at once)", signalName(s))
	u.signalled.Store(&s)
	u.lastEvents()
}

// shutdownHookGrace bounds the hooks of up's last events (process:stop,
// the task:failed of cancelled turns): once every agent has stopped they
// get at most this long, each within its own timeout (docs/runtime.md).
const shutdownHookGrace = 10 * time.Second

// lastEvents gives the hooks up's shutdown fires a context of their own
// (lastHooks), so that they run while those still running are killed.
func (u *upRun) lastEvents() {
	if b := u.bus.Load(); b != nil {
		b.Within(u.lastHooks)
	}
}

// force is a second signal during the stop: every agent's process group
// is killed at once (docs/runtime.md, "actctl up").
func (u *upRun) force(s os.Signal) {
	u.forced.Store(&s)
	u.logf("%s received again: killing every agent's process group now", signalName(s))
	u.endHooks()
	u.m.Kill()
}

// checkNames refuses, before anything runs, an unknown agent or one that
// up cannot hold.
func (u *upRun) checkNames(cfg *schema.Config) error {
	for _, name := range u.names {
		if _, ok := cfg.Agents[name]; !ok {
			return unknownAgent(cfg, name)
		}
		r, err := cfg.Resolve(name)
		if err != nil {
			return err
		}
		if !upRunnable(r) {
			return fmt.Errorf("up: agent %s has launchMode %q: up runs acp-service and acp-background agents", name, r.LaunchMode)
		}
	}
	return nil
}

func upRunnable(r *schema.Resolved) bool { return r.HeldByUp() }

// upActs is the agents of cfg that up acts on: those named, else every
// autoStart agent it can start (its config warnings are about them).
func upActs(cfg *schema.Config, names []string) []string {
	if len(names) > 0 {
		return names
	}
	var out []string
	for name := range cfg.Agents {
		if r, err := cfg.Resolve(name); err == nil && r.Archetype.AutoStart && upRunnable(r) {
			out = append(out, name)
		}
	}
	return out
}

// after is called after every watch cycle: the agents to run follow the
// config, and those whose files or launch changed are restarted.
func (u *upRun) after(cfg *schema.Config, res *workspace.Result, err error) {
	if cfg == nil {
		return // the config did not load: keep what runs
	}
	u.cfg.Store(cfg)
	u.setBus(cfg)
	u.webhooks.set(cfg, u.g.Warn)
	if err != nil {
		res = nil
	}
	specs := u.cycleSpecs(cfg, res)
	u.m.Sync(specs)
	u.started.Do(func() { u.publish(u.startEvent(specs)) })
}

// cycleSpecs counts a cycle and returns its specs. An agent's digest
// names the last cycle that changed its files: a later cycle that
// changes none of them keeps it (a mark of this cycle only restarted the
// agent on the next cycle, whatever it changed).
func (u *upRun) cycleSpecs(cfg *schema.Config, res *workspace.Result) []up.Spec {
	u.mu.Lock()
	u.cycle++
	if res != nil {
		for a := range workspace.ChangedFiles(res) {
			u.filesAt[a] = u.cycle
		}
	}
	filesAt := maps.Clone(u.filesAt)
	u.mu.Unlock()
	return u.specs(cfg, filesAt)
}

// specs are the agents up runs under cfg: those named, else every agent
// whose archetype has autoStart.
func (u *upRun) specs(cfg *schema.Config, filesAt map[string]int) []up.Spec {
	names := u.names
	if len(names) == 0 {
		names = slices.Sorted(maps.Keys(cfg.Agents))
	}
	var out []up.Spec
	for _, name := range names {
		r, err := cfg.Resolve(name)
		if err != nil {
			u.once(name, "%s: %v", name, err)
			continue
		}
		if len(u.names) == 0 && !r.Archetype.AutoStart {
			continue
		}
		if !upRunnable(r) {
			u.once(name, "%s: autoStart, but launchMode %q is not one up runs (acp-service, acp-background)", name, r.LaunchMode)
			continue
		}
		s, err := upSpec(cfg, r, filesAt[name])
		if err != nil {
			u.once(name, "%s: %v", name, err)
			continue
		}
		out = append(out, s)
	}
	return out
}

// upSpec derives what up needs of one agent; filesAt is the cycle that
// last changed its files.
func upSpec(cfg *schema.Config, r *schema.Resolved, filesAt int) (up.Spec, error) {
	sched, err := up.ScheduleOf(r.Template.Schedule)
	if err != nil {
		return up.Spec{}, err
	}
	if r.ArchetypeName != "employee" {
		sched = nil
	} else if sched == nil {
		sched = &schedule.Spec{}
	}
	o, err := agentprep.Resident(cfg, r) // as launch starts it
	if err != nil {
		return up.Spec{}, err
	}
	co := employee.CheckoutOf(cfg.Root, r)
	extra := []any{r.Template.Schedule, r.LaunchMode, fmt.Sprintf("files of cycle %d", filesAt)}
	var ttl time.Duration
	if r.Archetype.LeaseTTL != "" {
		ttl, _ = time.ParseDuration(r.Archetype.LeaseTTL) // validated when the config loaded
	}
	live := r.Liveness()
	return up.Spec{Root: cfg.Root, Checkout: co, LeaseTTL: ttl, Name: r.Name, Archetype: r.ArchetypeName, LaunchMode: r.LaunchMode, Schedule: sched,
		Workspace: r.Dir, LogsDir: tasklog.Dir(r), Record: runrecord.Path(r), Digest: up.Digest(o, extra...),
		Restart: live.Restart, TurnTimeout: live.TurnTimeout, StallAfter: live.StallAfter}, nil
}

// once logs a message about an agent the first time only.
func (u *upRun) once(agent, format string, args ...any) {
	u.mu.Lock()
	seen := u.logged[agent]
	u.logged[agent] = true
	u.mu.Unlock()
	if !seen {
		u.logf(format, args...)
	}
}

// launch starts agent's backend as an ACP client, as `actctl run` does,
// with its workspace as the session's cwd (up has no client project).
func (u *upRun) launch(ctx context.Context, agent string, obs acpclient.Observer) (*acpclient.Client, error) {
	cfg := u.cfg.Load()
	r, err := cfg.Resolve(agent)
	if err != nil {
		return nil, err
	}
	o, err := agentprep.Resident(cfg, r)
	if err != nil {
		return nil, err
	}
	if err := agentprep.SyncCheckout(ctx, cfg, r); err != nil {
		return nil, err
	}
	o.Observer, o.Grace = obs, u.grace
	o.Warn = func(msg string) { u.logf("%s: warning: %s", agent, msg) }
	return agentprep.StartLogged(ctx, r, o)
}

// setBus gives the bus of the runtime events cfg's hooks (agent:* and
// source:updated are the watch loop's). up keeps one bus for its life:
// every cycle sets its hooks, so nothing grows with the cycles.
func (u *upRun) setBus(cfg *schema.Config) {
	listens := map[string]schema.Hook{}
	for name, h := range cfg.Hooks {
		if !strings.HasPrefix(h.On, "agent:") && h.On != "source:updated" {
			listens[name] = h
		}
	}
	if b := u.bus.Load(); b != nil {
		if err := b.Set(listens); err != nil {
			u.g.Warn("hooks: %v", err)
			_ = b.Set(nil) // as a bus that failed to build: no hook runs
		}
		return
	}
	b, err := hooks.New(listens, hooks.Options{Dir: cfg.Root, Context: u.ctx, Prompter: u.g.prompter, Guard: u.g.loops, Runtime: u.subs,
		Report: func(r hooks.Result) { reportHook(u.g, r) }})
	if err != nil {
		u.g.Warn("hooks: %v", err)
		return
	}
	u.observe(b)
	u.bus.Store(b)
}

// delivered publishes a webhook's accepted delivery (from the
// listener's worker).
func (u *upRun) delivered(d webhook.Delivery) {
	u.logf("webhook %s: %s delivery %s", d.Webhook, d.Event, d.Delivery)
	u.publish(webhookEvent(d))
}

func (u *upRun) publish(ev hooks.Event) {
	if b := u.bus.Load(); b != nil {
		b.Publish(ev)
	}
}

// wait waits for the hooks still running (killed at shutdown, those of
// the shutdown's events bounded by shutdownHookGrace).
func (u *upRun) wait() {
	if b := u.bus.Load(); b != nil {
		b.Wait()
	}
}

// logf prints one of up's log lines; they quote agents (their errors,
// their stderr), so control characters are escaped (internal/termsafe).
func (u *upRun) logf(format string, args ...any) {
	fmt.Fprintf(u.g.Stderr, "actctl: up: %s\n", termsafe.Text(fmt.Sprintf(format, args...)))
}
