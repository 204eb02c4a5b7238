package up

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/internal/clock"
)

// Manager holds the running agents of one workspace.
type Manager struct {
	opts Options
	// taskCtx ends first at shutdown (no new turn, running turns
	// cancelled); procCtx then stops the processes.
	taskCtx, procCtx     context.Context
	stopTasks, stopProcs context.CancelFunc
	tasks, procs         sync.WaitGroup
	mu                   sync.Mutex
	agents               map[string]*agent
	// leaving holds the agents being removed, by name, until their
	// process has stopped: work on a name is serialised (as
	// controller-runtime keys its queue), so a replacement never runs
	// beside the process it replaces.
	leaving map[string]*leaving
	closed  bool
	drained chan struct{} // closed once Shutdown drained every agent
	settled *settler      // calls Options.ReleaseMemory and Settled (nil without either)
	idle    *settler      // calls Options.ReleaseMemory after reads (ReleaseLater; nil without it)

	// leaseFault, set by tests before any lease, is called at points of
	// the lease path (fault) to inject a panic there.
	leaseFault func(where string)
}

// New returns a manager with no agent; Sync gives it its agents.
func New(opts Options) *Manager {
	if opts.Clock == nil {
		opts.Clock = clock.Real()
	}
	if opts.Publish == nil {
		opts.Publish = func(hooks.Event) {}
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.TurnGrace <= 0 {
		opts.TurnGrace = DefaultTurnGrace
	}
	m := &Manager{opts: opts, agents: map[string]*agent{}, leaving: map[string]*leaving{}, drained: make(chan struct{})}
	m.taskCtx, m.stopTasks = context.WithCancel(context.Background())
	m.procCtx, m.stopProcs = context.WithCancel(context.Background())
	if opts.ReleaseMemory != nil || opts.Settled != nil {
		m.settled = &settler{clk: opts.Clock, ctx: m.procCtx, f: func() {
			for _, f := range []func(){opts.Settled, opts.ReleaseMemory} {
				if f != nil {
					f()
				}
			}
		}}
	}
	if opts.ReleaseMemory != nil {
		m.idle = &settler{clk: opts.Clock, ctx: m.procCtx, f: opts.ReleaseMemory}
	}
	return m
}

// ReleaseLater calls Options.ReleaseMemory once nothing called
// ReleaseLater for SettleAfter: a reader that makes much garbage (the
// dashboard's agent page renders and reads the agent's files) says so,
// and a burst of them gives its memory back once, after the last
// (docs/runtime.md, "Limits"). It does nothing without ReleaseMemory.
func (m *Manager) ReleaseLater() { m.idle.poke() }

// leaving is an agent being removed: it stays known by its name until
// its process has stopped (done), and next, if set, is the spec of the
// agent that then takes the name (the last Sync's).
type leaving struct {
	a    *agent
	done chan struct{}
	next *Spec
}

// Sync makes the running set match specs: a new agent is added and
// started, a removed one stopped, and one whose Digest changed is
// restarted between two turns (never in the middle of one). An agent of
// another shape is replaced once the old one's process has stopped; until
// then further Syncs only change what replaces it. Sync does not wait for
// processes.
func (m *Manager) Sync(specs []Spec) {
	if m.opts.ReleaseMemory != nil && m.starts(specs) {
		m.opts.ReleaseMemory()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	want := map[string]Spec{}
	for _, s := range specs {
		want[s.Name] = s
	}
	for name, l := range m.leaving {
		if _, ok := want[name]; !ok {
			l.next = nil // gone from the config: nothing replaces it
		}
	}
	for name, a := range m.agents {
		if _, ok := want[name]; !ok {
			m.retire(a, nil)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		s := want[name]
		if l, ok := m.leaving[name]; ok {
			l.next = &s // started once the old process has stopped
			continue
		}
		if a, ok := m.agents[name]; ok {
			if a.sameShape(s) {
				a.update(s)
				continue
			}
			// Another archetype or launch mode: another supervisor policy,
			// a queue or none. The agent is replaced once the old one has
			// stopped (its queue does not carry over).
			m.retire(a, &s)
			continue
		}
		m.add(s)
	}
}

// starts reports whether a Sync of specs starts an agent: one it does
// not hold or retire yet.
func (m *Manager) starts(specs []Spec) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range specs {
		_, held := m.agents[s.Name]
		_, going := m.leaving[s.Name]
		if !held && !going {
			return true
		}
	}
	return false
}

// retire removes a from the running set and stops it; next, if not nil,
// is added once a's process has stopped. m.mu is held.
func (m *Manager) retire(a *agent, next *Spec) {
	l := &leaving{a: a, done: make(chan struct{}), next: next}
	delete(m.agents, a.name)
	m.leaving[a.name] = l
	go func() {
		a.remove()
		m.mu.Lock()
		defer m.mu.Unlock()
		delete(m.leaving, a.name)
		close(l.done)
		if l.next != nil && !m.closed {
			m.add(*l.next)
		}
	}()
}

// add creates and starts the agent of s; m.mu is held.
func (m *Manager) add(s Spec) {
	a, err := newAgent(m, s)
	if err != nil {
		m.opts.Logf("%s: %v", s.Name, err)
		return
	}
	m.agents[s.Name] = a
	a.run()
}

// agent returns the running agent name, or an error naming those that run.
func (m *Manager) agent(name string) (*agent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if a, ok := m.agents[name]; ok {
		return a, nil
	}
	if l, ok := m.leaving[name]; ok && l.next != nil {
		return nil, fmt.Errorf("agent %s is being replaced (its old process is stopping); try again once it has started", name)
	}
	names := slices.Sorted(maps.Keys(m.agents))
	if len(names) == 0 {
		return nil, fmt.Errorf("agent %s is not run by this actctl up (it runs no agent)", name)
	}
	return nil, fmt.Errorf("agent %s is not run by this actctl up (it runs: %s)", name, strings.Join(names, ", "))
}

// Names returns the agents the manager runs, sorted.
func (m *Manager) Names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Sorted(maps.Keys(m.agents))
}

// Shutdown stops taking tasks, cancels running turns and waits for them
// (each gets its grace), then stops every agent (SIGTERM, grace, kill of
// the process group) and returns once nothing is left.
func (m *Manager) Shutdown() {
	m.mu.Lock()
	again := m.closed
	m.closed = true
	agents := slices.Collect(maps.Values(m.agents))
	var left []chan struct{}
	for _, l := range m.leaving {
		left = append(left, l.done)
	}
	m.mu.Unlock()
	for _, a := range agents {
		// A process killed because its cancelled turn would not end
		// is stopped by up, not crashed, and is not restarted.
		_ = a.sup.Drain(context.Background())
	}
	if !again {
		close(m.drained)
	}
	m.stopTasks()
	m.tasks.Wait()
	m.stopProcs()
	m.procs.Wait()
	for _, done := range left {
		<-done // its removal has returned: nothing of it is left
	}
	for _, a := range agents {
		a.releaseLock()
	}
}

// Kill kills every agent's process group, its terminals and what carries
// its session mark, at once: a second signal during a slow shutdown
// (docs/runtime.md). It waits until Shutdown has drained the agents, so
// each end is a stop, never a crash to restart; the stops under way then
// end without their grace, and Shutdown still waits for them.
func (m *Manager) Kill() {
	<-m.drained
	m.mu.Lock()
	agents := slices.Collect(maps.Values(m.agents))
	for _, l := range m.leaving {
		agents = append(agents, l.a) // in its stop's grace
	}
	m.mu.Unlock()
	for _, a := range agents {
		a.mu.Lock()
		c := a.client
		a.mu.Unlock()
		if c != nil {
			_ = c.Kill()
		}
	}
}
