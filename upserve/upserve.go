package upserve

import (
	"context"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actctl/actctl/dashboard"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/mcpserver"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/up"
)

// Options are what the command line gives one `actctl up`: the agents
// named, its bounds, where its log goes, and the parts of the other
// commands it shows (describe, get hooks, run).
type Options struct {
	// Names are the agents named on the command line (none: every
	// autoStart agent up can run).
	Names []string
	// Grace, StartTimeout and TurnGrace are up.Options'.
	Grace, StartTimeout, TurnGrace time.Duration
	// Logf prints one of up's log lines; Warn one warning.
	Logf, Warn func(format string, args ...any)
	// Loops bounds hook chains (shared with the apply's buses).
	Loops *hooks.Guard
	// Report receives each hook run's result.
	Report func(hooks.Result)
	// RunTurn runs one turn as `actctl run` does, for the workspace at
	// root (the prompt hooks of agents up does not hold).
	RunTurn func(ctx context.Context, root string, t mcpserver.Turn, reply, log io.Writer) (mcpserver.TurnResult, error)
	// Describe is `actctl describe`'s text and files of an agent with
	// up's status st, for the dashboard's agent page.
	Describe func(cfg *schema.Config, name string, st up.AgentStatus) (text string, files []dashboard.File)
	// HookRows are `actctl get hooks`'s rows (name, on, agents, action,
	// origin) of cfg's hooks (cfg may be nil) and of subs.
	HookRows func(cfg *schema.Config, subs []hooks.Subscription) [][]string
	// Launch starts an agent's backend (nil: as `actctl run` does,
	// agentprep.StartLogged); tests give their own.
	Launch up.LaunchFunc
	// Settled, if set, is up.Options.Settled of the agents up runs and
	// of those it holds on demand.
	Settled func()
	// Released, if set, is told each time up gave memory back to the
	// system (up.Options.ReleaseMemory: `actctl up` says so with
	// ACTCTL_DEBUG=1).
	Released func()
}

// Server is one `actctl up`: the config of the last cycle, the hooks bus
// built from it, and the manager of the agents.
type Server struct {
	o Options
	m *up.Manager
	// od holds the repo and tool agents, on demand: a process only while
	// a dashboard conversation holds one (demand.go).
	od  *up.Manager
	cfg atomic.Pointer[schema.Config]
	bus atomic.Pointer[hooks.Bus]
	ctx context.Context // ends at shutdown: hooks still running are killed
	// lastHooks is the context of the hooks of the shutdown's events
	// (LastEvents); endHooks ends it: ShutdownHookGrace after the agents
	// stopped, or at once on Force.
	lastHooks context.Context
	endHooks  context.CancelFunc
	// subs are the employees' runtime subscriptions, run by bus.
	subs *hooks.Registry
	// webhooks is the --webhooks listener, nil when off.
	webhooks *webhooks
	// prompter runs the prompt hooks (hookrun.go).
	prompter *hookPrompter
	// started publishes actctl:start once, after the first cycle.
	started sync.Once
	// reason is why up stops, once Stopping said it.
	reason atomic.Pointer[string]
	ui     atomic.Pointer[dashboard.Server] // nil with --ui off (ui.go)

	mu      sync.Mutex
	cycle   int
	filesAt map[string]int  // per agent, the cycle that last changed its files
	logged  map[string]bool // agents already reported as not runnable
}

// New returns the up of o, running no agent until its first cycle.
func New(o Options) *Server {
	s := &Server{o: o, ctx: context.Background(), subs: hooks.NewRegistry(), filesAt: map[string]int{}, logged: map[string]bool{}}
	launch := o.Launch
	if launch == nil {
		launch = s.launch
	}
	s.m = up.New(up.Options{Launch: launch, Publish: s.publish, Logf: o.Logf, Grace: o.Grace, Loops: o.Loops, Subscriptions: s.subs,
		StartTimeout: o.StartTimeout, TurnGrace: o.TurnGrace, Canvas: s.canvasChanged,
		TaskStarted: s.taskStarted, ReleaseMemory: s.releaseMemory, Settled: o.Settled})
	s.od = s.demandManager()
	s.lastHooks, s.endHooks = context.WithCancel(context.Background())
	s.prompter = &hookPrompter{s: s, busy: map[string]*sync.Mutex{}}
	return s
}

// releaseMemory gives memory back to the system and says so (Released).
func (s *Server) releaseMemory() {
	debug.FreeOSMemory()
	if s.o.Released != nil {
		s.o.Released()
	}
}

// Prompter runs the prompt hooks of this up: the apply's buses take it too.
func (s *Server) Prompter() hooks.Prompter { return s.prompter }

// Close releases what New and ListenWebhooks took (the webhook listener,
// the context of the last events' hooks); after Run, or instead of it.
func (s *Server) Close() {
	s.endHooks()
	if s.webhooks != nil {
		s.webhooks.ln.Close()
	}
}

// Stopping records why up stops (a signal's name) and gives the hooks of
// up's last events a context of their own (lastHooks), so that they run
// while those still running are killed.
func (s *Server) Stopping(reason string) {
	s.reason.Store(&reason)
	s.LastEvents()
}

// LastEvents gives the hooks of the events from now on (up's shutdown:
// process:stop, the task:failed of cancelled turns) the context of the
// last events, bounded by ShutdownHookGrace.
func (s *Server) LastEvents() {
	if b := s.bus.Load(); b != nil {
		b.Within(s.lastHooks)
	}
}

// Force kills every agent's process group at once and ends the hooks of
// the last events (a second signal: docs/runtime.md, "actctl up").
func (s *Server) Force() {
	s.endHooks()
	s.m.Kill()
	s.od.Kill()
}

// ShutdownHookGrace bounds the hooks of up's last events (process:stop,
// the task:failed of cancelled turns): once every agent has stopped they
// get at most this long, each within its own timeout (docs/runtime.md).
const ShutdownHookGrace = 10 * time.Second

func (s *Server) publish(ev hooks.Event) {
	if b := s.bus.Load(); b != nil {
		b.Publish(ev)
	}
}

// wait waits for the hooks still running (killed at shutdown, those of
// the shutdown's events bounded by ShutdownHookGrace).
func (s *Server) wait() {
	if b := s.bus.Load(); b != nil {
		b.Wait()
	}
}

// logf prints one of up's log lines.
func (s *Server) logf(format string, args ...any) { s.o.Logf(format, args...) }
