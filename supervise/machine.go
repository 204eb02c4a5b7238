// Package supervise keeps one agent process alive the way its launch mode
// asks (docs/runtime.md, "Supervision"): an acp-service is restarted when
// it exits, with exponential backoff, and declared fatal when it keeps
// failing; an acp-background process is left crashed. The lifecycle is
// the state machine of Machine (created, starting, running, stopping,
// stopped, crashed, backoff, fatal); Supervisor drives it with a real
// process behind the Starter interface (in up, an ACP client started and
// its primary session opened: up's agent.Start), an injected clock, and
// reports process:* events to an observer.
package supervise

import (
	"time"

	"github.com/actctl/actctl/model"
)

// State is where a supervised process is in its lifecycle.
type State string

const (
	Created  State = "created"  // declared, never started
	Starting State = "starting" // being launched
	Running  State = "running"
	Stopping State = "stopping" // asked to stop, within its grace period
	Stopped  State = "stopped"  // stopped on request
	Crashed  State = "crashed"  // exited on its own, not restarted (its restart policy says so)
	Backoff  State = "backoff"  // exited on its own, waiting to be restarted
	Fatal    State = "fatal"    // failed too often; waits for a start or a config change
)

// States lists every state, in lifecycle order: the values of `actctl
// status`'s state (docs/json.md) and of up's process events.
var States = []State{Created, Starting, Running, Stopping, Stopped, Crashed, Backoff, Fatal}

// Policy says how failures are handled.
type Policy struct {
	// Restart: restart the process when it exits on its own; with
	// OnFailure, not when it exited with status 0 (InExitOK).
	Restart, OnFailure bool
	// The first restart waits InitialBackoff; each further failure doubles
	// the wait, up to MaxBackoff. A run of at least ResetAfter resets it.
	InitialBackoff, MaxBackoff, ResetAfter time.Duration
	// MaxFailures failed runs that all started within FailureWindow make
	// the process fatal (as systemd's StartLimitBurst/IntervalSec).
	MaxFailures   int
	FailureWindow time.Duration
	// Grace is how long a stop waits after SIGTERM before killing the
	// process group.
	Grace time.Duration
	// StartTimeout bounds a start: a process not up within it (for an
	// ACP agent: no answer to initialize or session/new) has failed to
	// start, as if it had crashed (0: no bound).
	StartTimeout time.Duration
}

// DefaultStartTimeout is the start bound of both policies (docs/runtime.md, "Supervision").
const DefaultStartTimeout = time.Minute

// ServicePolicy is restart "always"'s: restart, 1 s doubling to 60 s,
// reset after 60 s up, fatal after 5 failures started within 60 s.
func ServicePolicy() Policy {
	return Policy{Restart: true, InitialBackoff: time.Second, MaxBackoff: time.Minute, ResetAfter: time.Minute,
		MaxFailures: 5, FailureWindow: time.Minute, Grace: 5 * time.Second, StartTimeout: DefaultStartTimeout}
}

// BackgroundPolicy is restart "never"'s: never restarted.
func BackgroundPolicy() Policy {
	return Policy{Grace: 5 * time.Second, StartTimeout: DefaultStartTimeout}
}

// PolicyFor returns the policy of a template's restart field
// (docs/runtime.md, "Supervision"): "always" is ServicePolicy, "never"
// BackgroundPolicy, and "on-failure" (and "", the default of employees
// and services) ServicePolicy that leaves an exit with status 0 crashed.
func PolicyFor(restart string) Policy {
	switch restart {
	case model.RestartAlways:
		return ServicePolicy()
	case model.RestartNever:
		return BackgroundPolicy()
	}
	p := ServicePolicy()
	p.OnFailure = true
	return p
}

// Stop is where a stopping process is: the sub-states of Stopping.
type Stop int

const (
	NotStopping     Stop = iota
	CancellingStart      // asked to stop while starting: the start is cancelled
	Terminating          // SIGTERM sent to the group; the grace timer runs
	Killing              // killed (grace over, or SIGTERM failed): waiting for its exit
)

// Timer is which timer the machine has armed; one at most.
type Timer int

const (
	NoTimer      Timer = iota
	StartTimer         // the start bound (Policy.StartTimeout)
	BackoffTimer       // the wait before a restart
	GraceTimer         // a stop's grace before the group is killed
)

// Input is what happens to a supervised process: a request or what its
// process (or the armed timer) did.
type Input int

const (
	InStart       Input = iota // a start asked for (a person, a config change)
	InStop                     // a stop asked for; answered once stopped
	InRestart                  // a stop, then a start; answered once starting again
	InDrain                    // its end is to be a stop, never a crash (Supervisor.Drain)
	InShutdown                 // Run ends: stop, and no restart
	InUp                       // the start under way succeeded: the process is up
	InStartFailed              // the start under way failed
	InExit                     // the process exited
	InTimer                    // the armed timer fired
	InTermFailed               // SIGTERM could not be sent
	InExitOK                   // the process exited with status 0
)

var inputNames = [...]string{"start", "stop", "restart", "drain", "shutdown", "up", "start-failed", "exit", "timer", "term-failed", "exit-ok"}

func (i Input) String() string { return inputNames[i] }

// Emit is one lifecycle event an input causes, with the state it reports.
type Emit struct {
	Name  string // EventStart, EventRestart, EventStop, EventCrash
	State State
	// Restarting marks the stop of a restart (process:stop with a start
	// to follow at once).
	Restarting bool
	// Delay, on a crash into backoff, is the wait before the restart.
	Delay time.Duration
}

// Action is what the driver of a Machine does after an input, in this
// order: stop the armed timer, cancel the start under way, arm a timer,
// emit the events, launch, signal, answer.
type Action struct {
	Disarm      bool  // stop the armed timer
	CancelStart bool  // cancel the start under way (TimedOut: with the start bound's error)
	TimedOut    bool  // the start bound passed
	Arm         Timer // arm this timer for Delay (NoTimer: none)
	Delay       time.Duration
	Emit        []Emit
	Launch      bool // start a process (Restart: as a restart, reported as process:restart once up)
	Restart     bool
	Terminate   bool // SIGTERM the process group (a failure comes back as InTermFailed)
	Kill        bool // SIGKILL the process group
	Answer      bool // answer the stop and restart requests waiting
	Refuse      bool // refuse this start: the process is stopping
}

// Machine is the pure lifecycle state machine (docs/runtime.md,
// "Supervision"): it holds no process and reads no clock; Handle gets each
// input with the time and says what to do. Supervisor drives it.
type Machine struct {
	policy    Policy
	state     State
	stop      Stop  // within Stopping
	timer     Timer // the one armed
	starting  bool  // a start is under way (Starting, or Stopping from it)
	restart   bool  // the start under way is a restart
	then      bool  // start again once stopped (a restart request)
	draining  bool  // an end is a stop (InDrain), until the next launch
	startedAt time.Time
	backoff   time.Duration // the next restart's wait
	failures  []time.Time   // start times of recent failed runs
	restarts  int
}

// NewMachine returns a machine in state created.
func NewMachine(p Policy) *Machine {
	return &Machine{policy: p, state: Created, backoff: p.InitialBackoff}
}

// State returns the current state.
func (m *Machine) State() State { return m.state }

// Restarts counts the automatic restarts so far.
func (m *Machine) Restarts() int { return m.restarts }

// StartedAt is when the current (or last) run started.
func (m *Machine) StartedAt() time.Time { return m.startedAt }

// Handle takes one input at now and returns the state it leads to and
// what to do. An input that does not apply in the current state (an exit
// with no process, a timer none armed) changes nothing.
func (m *Machine) Handle(in Input, now time.Time) (State, Action) {
	var a Action
	switch in {
	case InStart:
		a = m.onStart(now)
	case InStop, InRestart, InShutdown:
		if in == InShutdown {
			m.then = false
		}
		a = m.onStop(in == InRestart, now)
	case InDrain:
		a = m.onDrain()
	case InUp:
		a = m.onUp(now)
	case InStartFailed:
		if m.starting {
			m.starting = false
			a = m.disarm(StartTimer)
			m.ended(&a, now, false)
		}
	case InExit, InExitOK:
		if m.state == Running || m.state == Stopping && !m.starting {
			a.Disarm, m.timer = m.timer != NoTimer, NoTimer
			m.ended(&a, now, in == InExitOK)
		}
	case InTimer:
		a = m.onTimer(now)
	case InTermFailed:
		if m.stop == Terminating {
			a = m.disarm(GraceTimer)
			m.stop, a.Kill = Killing, true
		}
	}
	return m.state, a
}

// disarm is an action stopping t if it is the armed timer.
func (m *Machine) disarm(t Timer) Action {
	if m.timer != t {
		return Action{}
	}
	m.timer = NoTimer
	return Action{Disarm: true}
}

func (m *Machine) onStart(now time.Time) Action {
	switch m.state {
	case Stopping:
		return Action{Refuse: true}
	case Starting, Running:
		return Action{}
	}
	a := Action{Disarm: m.timer != NoTimer}
	m.timer = NoTimer
	m.failures = nil // a fatal process gets another chance
	m.backoff = m.policy.InitialBackoff
	m.launch(&a, false, now)
	return a
}

// onStop stops the process; with then it starts again once stopped. The
// request waits for Answer.
func (m *Machine) onStop(then bool, now time.Time) Action {
	m.then = m.then || then
	switch m.state {
	case Stopping:
		return Action{} // already on its way
	case Starting:
		m.state, m.stop = Stopping, CancellingStart
		return Action{CancelStart: true}
	case Running:
		return m.terminate()
	}
	a := Action{Disarm: m.timer != NoTimer}
	m.timer = NoTimer
	m.state = Stopped
	m.stopped(&a, now)
	return a
}

// terminate sends SIGTERM and arms the grace.
func (m *Machine) terminate() Action {
	m.state, m.stop = Stopping, Terminating
	m.timer = GraceTimer
	return Action{Terminate: true, Arm: GraceTimer, Delay: m.policy.Grace}
}

func (m *Machine) onDrain() Action {
	m.draining = true
	if m.state != Backoff {
		return Action{}
	}
	// No restart is coming: stopped at once, no event, nobody to answer.
	a := m.disarm(BackoffTimer)
	m.state = Stopped
	return a
}

func (m *Machine) onUp(now time.Time) Action {
	if !m.starting {
		return Action{}
	}
	m.starting = false
	a := m.disarm(StartTimer)
	if m.state == Stopping {
		t := m.terminate()
		t.Disarm = a.Disarm
		return t
	}
	m.state, m.startedAt = Running, now
	a.Emit = append(a.Emit, Emit{Name: EventStart, State: Running})
	if m.restart {
		a.Emit = append(a.Emit, Emit{Name: EventRestart, State: Running})
	}
	return a
}

func (m *Machine) onTimer(now time.Time) Action {
	t := m.timer
	m.timer = NoTimer
	switch {
	case t == BackoffTimer && m.state == Backoff:
		var a Action
		m.restarts++
		m.launch(&a, true, now)
		return a
	case t == GraceTimer && m.stop == Terminating:
		m.stop = Killing
		return Action{Kill: true}
	case t == StartTimer && m.starting:
		return Action{CancelStart: true, TimedOut: true}
	}
	m.timer = t
	return Action{}
}

// launch starts a process: Starting, bounded by the start timeout.
func (m *Machine) launch(a *Action, restart bool, now time.Time) {
	m.state, m.stop, m.startedAt = Starting, NotStopping, now
	m.starting, m.restart, m.draining = true, restart, false
	a.Launch, a.Restart = true, restart
	if d := m.policy.StartTimeout; d > 0 {
		m.timer, a.Arm, a.Delay = StartTimer, StartTimer, d
	}
}

// ended takes the end of the process (or of its start): a stop when it
// was asked to stop (or is draining), else a failure; ok is an exit with
// status 0.
func (m *Machine) ended(a *Action, now time.Time, ok bool) {
	if m.state == Stopping || m.draining && (m.state == Running || m.state == Starting) {
		m.state, m.stop = Stopped, NotStopping
		a.Emit = append(a.Emit, Emit{Name: EventStop, State: Stopped, Restarting: m.then})
		m.stopped(a, now)
		return
	}
	wait := m.failed(now, ok)
	if m.state == Backoff {
		m.timer, a.Arm, a.Delay = BackoffTimer, BackoffTimer, wait
	}
	a.Emit = append(a.Emit, Emit{Name: EventCrash, State: m.state, Delay: wait})
}

// stopped starts again after a restart, then answers the requests
// waiting, once the status shows it: whoever waited for a restart must
// not see the agent stopped.
func (m *Machine) stopped(a *Action, now time.Time) {
	if m.then {
		m.then = false
		m.failures = nil
		m.backoff = m.policy.InitialBackoff
		m.launch(a, true, now)
	}
	a.Answer = true
}

// failed: the process ended on its own (ok: with status 0), or failed to
// start: crashed without Restart (or ok with OnFailure), else backoff
// (returning the wait before the restart) or fatal.
func (m *Machine) failed(now time.Time, ok bool) time.Duration {
	if !m.policy.Restart || ok && m.policy.OnFailure {
		m.state = Crashed
		return 0
	}
	if m.state == Running && now.Sub(m.startedAt) >= m.policy.ResetAfter {
		m.backoff = m.policy.InitialBackoff
	}
	m.failures = append(m.failures, m.startedAt)
	keep := m.failures[:0]
	for _, t := range m.failures {
		if now.Sub(t) <= m.policy.FailureWindow {
			keep = append(keep, t)
		}
	}
	m.failures = keep
	if len(m.failures) >= m.policy.MaxFailures {
		m.state = Fatal
		return 0
	}
	m.state = Backoff
	wait := m.backoff
	m.backoff = min(2*m.backoff, m.policy.MaxBackoff)
	return wait
}
