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

import "time"

// State is where a supervised process is in its lifecycle.
type State string

const (
	Created  State = "created"  // declared, never started
	Starting State = "starting" // being launched
	Running  State = "running"
	Stopping State = "stopping" // asked to stop, within its grace period
	Stopped  State = "stopped"  // stopped on request
	Crashed  State = "crashed"  // exited on its own, not restarted (acp-background)
	Backoff  State = "backoff"  // exited on its own, waiting to be restarted (acp-service)
	Fatal    State = "fatal"    // failed too often; waits for a start or a config change
)

// Policy says how failures are handled.
type Policy struct {
	// Restart: restart the process when it exits on its own.
	Restart bool
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

// DefaultStartTimeout is the start bound of both policies (SPEC 10.2).
const DefaultStartTimeout = time.Minute

// ServicePolicy is acp-service's: restart, 1 s doubling to 60 s, reset
// after 60 s up, fatal after 5 failures started within 60 s.
func ServicePolicy() Policy {
	return Policy{Restart: true, InitialBackoff: time.Second, MaxBackoff: time.Minute, ResetAfter: time.Minute,
		MaxFailures: 5, FailureWindow: time.Minute, Grace: 5 * time.Second, StartTimeout: DefaultStartTimeout}
}

// BackgroundPolicy is acp-background's: never restarted.
func BackgroundPolicy() Policy {
	return Policy{Grace: 5 * time.Second, StartTimeout: DefaultStartTimeout}
}

// PolicyFor returns the policy of a launch mode: ServicePolicy for
// acp-service, BackgroundPolicy otherwise.
func PolicyFor(launchMode string) Policy {
	if launchMode == "acp-service" {
		return ServicePolicy()
	}
	return BackgroundPolicy()
}

// Machine is the pure lifecycle state machine: it holds no process and
// reads no clock; every transition gets the time.
type Machine struct {
	policy    Policy
	state     State
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

// Start is a start asked for by a person or a config change: from any
// state but starting, running and stopping it goes to starting, and it
// forgets past failures (so a fatal process gets another chance).
func (m *Machine) Start(now time.Time) bool {
	switch m.state {
	case Starting, Running, Stopping:
		return false
	}
	m.failures = nil
	m.backoff = m.policy.InitialBackoff
	m.state = Starting
	m.startedAt = now
	return true
}

// Started: the process is up.
func (m *Machine) Started(now time.Time) bool {
	if m.state != Starting {
		return false
	}
	m.state = Running
	m.startedAt = now
	return true
}

// Exited: the process ended, or failed to start. After a stop it is
// stopped; otherwise a failure: crashed without Restart, else backoff
// (returning the wait before the restart) or fatal.
func (m *Machine) Exited(now time.Time) (State, time.Duration) {
	switch m.state {
	case Stopping:
		m.state = Stopped
		return m.state, 0
	case Starting, Running:
	default:
		return m.state, 0
	}
	if !m.policy.Restart {
		m.state = Crashed
		return m.state, 0
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
		return m.state, 0
	}
	m.state = Backoff
	wait := m.backoff
	m.backoff = min(2*m.backoff, m.policy.MaxBackoff)
	return m.state, wait
}

// BackoffDone: the wait is over; the process restarts.
func (m *Machine) BackoffDone(now time.Time) bool {
	if m.state != Backoff {
		return false
	}
	m.state = Starting
	m.startedAt = now
	m.restarts++
	return true
}

// Stop asks the process to stop. A running or starting process goes to
// stopping (true: it must be signalled); one waiting in backoff, crashed,
// fatal or never started is stopped at once.
func (m *Machine) Stop() bool {
	switch m.state {
	case Running, Starting:
		m.state = Stopping
		return true
	case Stopping:
		return false
	}
	m.state = Stopped
	return false
}
