package up

import (
	"context"
	"time"

	"github.com/actctl/actctl/acpclient"
	emp "github.com/actctl/actctl/employee"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/internal/clock"
	"github.com/actctl/actctl/internal/rpcpeer"
	"github.com/actctl/actctl/schedule"
)

// Spec is one agent as up runs it, derived from the config by the caller.
type Spec struct {
	Name       string
	Archetype  string
	LaunchMode string // acp-service (restarted) or acp-background (not)
	// Schedule is an employee's heartbeat and cron entries; nil for a
	// service, which only answers prompts.
	Schedule *schedule.Spec
	// Workspace is the agent's workspace, where .heartbeat is seeded.
	Workspace string
	// LogsDir is where its task logs go (tasklog.Dir).
	LogsDir string
	// Record is its runtime record (pid and status for other commands).
	Record string
	// Digest changes when anything that shapes the running agent changed
	// (its files, its launch command, its schedule): the agent is then
	// restarted between two turns.
	Digest string
	// Root is the workspace root: up holds the agent's lock there
	// (control.LockAgent) while it runs it, so that no `actctl task`,
	// `attach` or `detach` of it runs meanwhile ("": no lock, as in
	// tests).
	Root string
	// Checkout is an employee's repository, synced before each of its
	// tasks (nil: none).
	Checkout *emp.Checkout
	// LeaseTTL is how long a leased session outlives its client
	// (0: DefaultLeaseTTL).
	LeaseTTL time.Duration
	// Restart is the template's restart policy ("always", "on-failure",
	// "never"; "": on-failure): what the supervisor does when the process
	// exits unasked (supervise.PolicyFor).
	Restart string
	// TurnTimeout is each turn's deadline, StallAfter how long a turn may
	// go without an update from the agent before it is shown as stalled
	// (0: model.DefaultTurnTimeout, model.DefaultStallAfter).
	TurnTimeout, StallAfter time.Duration
	// Redact, if set, is applied to the prompt a task log records (the
	// agent's redact plugins, docs/plugins.md).
	Redact func(string) string
	// LeaseHooks, if set, makes the session plugins of each lease
	// connection (docs/plugins.md, "On the proxy"; nil: none); step is
	// given each plugin step of the connection's sessions (the lease's
	// message log records them).
	LeaseHooks func(step func(sessionID string, ps acpclient.PluginStep)) *rpcpeer.Hooks
	// OnDemand marks a repo or tool agent: no process until a
	// conversation asks for one, stopped once none holds it (ondemand.go).
	OnDemand bool
}

// employee reports whether the agent runs a task queue.
func (s Spec) employee() bool { return s.Schedule != nil }

// LaunchFunc starts an agent's backend as an ACP client with its primary
// session open; obs receives the primary session's messages.
type LaunchFunc func(ctx context.Context, agent string, obs acpclient.Observer) (*acpclient.Client, error)

// Options configure a Manager.
type Options struct {
	Launch LaunchFunc
	// Clock drives supervision backoff and schedules (nil: real time).
	Clock clock.Clock
	// Publish receives every runtime event for the hooks bus (nil: none).
	// It must not block.
	Publish func(hooks.Event)
	// Logf receives up's own log lines (nil: none).
	Logf func(format string, args ...any)
	// Grace is how long a stopping agent gets before its group is killed
	// (0: the supervise policy's), and how long a cancelled turn gets to
	// end before its process is killed.
	Grace time.Duration
	// Loops drops prompts caused through too many hooks (nil: at
	// hooks.MaxChain, warning nobody); the hooks buses share it.
	Loops *hooks.Guard
	// StartTimeout bounds an agent's start: initialize and session/new
	// (0: supervise.DefaultStartTimeout).
	StartTimeout time.Duration
	// TurnGrace is how long a restart waits for the running turn before
	// it cancels it (0: DefaultTurnGrace).
	TurnGrace time.Duration
	// Subscriptions holds the employees' runtime subscriptions (control's
	// OpSubscribe; nil: none are taken). An agent's are dropped when its
	// process stops or crashes.
	Subscriptions *hooks.Registry
	// Canvas, if set, is told that an employee's canvas changed
	// (SetCanvas; the dashboard's live pages). It must not block.
	Canvas func(agent string)
	// TaskStarted, if set, is told when a task's log begins (the
	// dashboard's live log). It must not block.
	TaskStarted func(agent string, task uint64)
	// AskWait is how long a permission request put to a person in a
	// dashboard conversation waits for the answer before the agent's
	// preset answers it (0: DefaultAskWait).
	AskWait time.Duration
	// Asked, if set, is told when a permission request of a conversation's
	// turn (task) was put to the person. It must not block.
	Asked func(agent string, task uint64)
	// ReleaseMemory, if set, is called before a Sync starts agents and
	// once processes have stopped starting and stopping (none for
	// SettleAfter): the garbage of what came before (the apply's
	// evaluation, the wave of starts) is given back to the system, and
	// the agents' buffers are laid in memory the kernel zeroes, untouched
	// until used (`actctl up` sets runtime/debug.FreeOSMemory;
	// docs/runtime.md, "Limits").
	ReleaseMemory func()
	// Settled, if set, is called once processes have stopped starting and
	// stopping (none for SettleAfter), before ReleaseMemory, which then
	// gives its garbage back too: each start and stop rewrote the agent's
	// runtime record (`actctl up` records the inputs again then, reading
	// every output: docs/design.md, "The apply fast path").
	Settled func()
}

// DefaultTurnGrace is how long a restart (a person's or a config
// change's) waits for the running turn before it cancels it (docs/runtime.md, "Turns").
const DefaultTurnGrace = 30 * time.Second
