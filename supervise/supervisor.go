package supervise

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/actctl/actctl/internal/clock"
)

// Process is a started agent process, the leader of its own process group.
type Process interface {
	Pid() int
	// Done is closed when the process has exited and its group was killed.
	Done() <-chan struct{}
	// Err is the exit error, once Done is closed.
	Err() error
	// Terminate asks the process group to end (SIGTERM).
	Terminate() error
	// Kill ends the process group (SIGKILL).
	Kill() error
}

// Starter launches the process; Start returns once it is up (for an ACP
// agent: initialized). ctx is cancelled when a stop arrives meanwhile.
type Starter interface {
	Start(ctx context.Context) (Process, error)
}

// Event names, as hooks see them.
const (
	EventStart   = "process:start"   // the process is up (every start, restarts included)
	EventStop    = "process:stop"    // it stopped on request
	EventCrash   = "process:crash"   // it exited on its own, or failed to start
	EventRestart = "process:restart" // it is up again after a crash or a restart request
)

// Event is one lifecycle event of the supervised process.
type Event struct {
	Name     string
	Agent    string
	Pid      int
	State    State // the state after the event
	Err      error // exit or start error (crash)
	Restarts int
	Delay    time.Duration // crash into backoff: the wait before the restart
	Time     time.Time
	// Restarting marks the stop of a restart: a start follows at once.
	Restarting bool
}

// Status is a snapshot for `actctl status`.
type Status struct {
	State     State
	Pid       int
	StartedAt time.Time // of the current run, when running
	Restarts  int
	LastErr   error
	NextStart time.Time // in backoff: when the restart is due
}

// Supervisor runs one process under a Policy. Run drives it; Start, Stop
// and Restart are requests from other goroutines.
type Supervisor struct {
	name    string
	starter Starter
	clock   clock.Clock
	policy  Policy
	observe func(Event)
	reqs    chan request
	quit    chan struct{} // closed when Run returns

	mu     sync.Mutex
	status Status
}

type request struct {
	in    Input // InStart, InStop, InRestart or InDrain
	reply chan error
}

// ErrNotRunning is returned by requests after Run has returned.
var ErrNotRunning = errors.New("supervisor is not running")

// New returns a supervisor for agent name. observe, if not nil, gets the
// events from Run's goroutine and must not block for long.
func New(name string, s Starter, p Policy, clk clock.Clock, observe func(Event)) *Supervisor {
	if observe == nil {
		observe = func(Event) {}
	}
	return &Supervisor{name: name, starter: s, clock: clk, policy: p, observe: observe,
		reqs: make(chan request), quit: make(chan struct{}), status: Status{State: Created}}
}

// Status returns the current status.
func (s *Supervisor) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

// Start starts the process (a fatal or crashed one too) and returns once
// the request is taken; it does not wait for the process to be up.
func (s *Supervisor) Start(ctx context.Context) error { return s.ask(ctx, InStart) }

// Stop stops the process (grace, then the group is killed) and returns
// once it is stopped.
func (s *Supervisor) Stop(ctx context.Context) error { return s.ask(ctx, InStop) }

// Restart stops the process if it runs and starts it again: what a config
// change does.
func (s *Supervisor) Restart(ctx context.Context) error { return s.ask(ctx, InRestart) }

// Drain says that the process is about to be ended on purpose (up is
// shutting down, or a restart cancels a turn that would not end): from
// now on its exit is a stop (process:stop), not a crash, and nothing is
// restarted, until the next Start or Restart.
func (s *Supervisor) Drain(ctx context.Context) error { return s.ask(ctx, InDrain) }

func (s *Supervisor) ask(ctx context.Context, in Input) error {
	r := request{in: in, reply: make(chan error, 1)}
	select {
	case s.reqs <- r:
	case <-s.quit:
		return ErrNotRunning
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	select {
	case err := <-r.reply:
		return err
	case <-s.quit:
		return ErrNotRunning
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
