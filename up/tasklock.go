package up

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/launch"
)

// takeLock takes the agent's lock (an employee's task lock) for as long
// as up runs it (released by remove and Shutdown, or by the kernel when
// up dies): an `actctl task`, `attach` or `detach` of the agent is
// refused meanwhile, naming up's pid, and up does not start an employee
// whose task is running (docs/runtime.md, "actctl task", "One agent, one
// process"). Out of file handles it names the limit (a *launch.LimitError):
// newAgent then leaves the lock to the agent's start (lockAtStart), retried
// with its backoff.
func (a *agent) takeLock() error {
	if a.spec.Root == "" {
		return nil
	}
	release, err := heldLocks.take(a.spec.Root, a.name)
	if lim := launch.HitLimit(err); lim != nil {
		return fmt.Errorf("agent %s's lock: %w", a.name, lim)
	}
	if err != nil {
		return fmt.Errorf("%w: up does not run it (restart up once that task ended)", err)
	}
	a.mu.Lock()
	a.unlockTask = release
	a.mu.Unlock()
	return nil
}

// lockAtStart takes the lock that a limit kept newAgent from taking (see
// takeLock); its error fails the start.
func (a *agent) lockAtStart() error {
	a.mu.Lock()
	later := a.lockLater
	a.mu.Unlock()
	if !later {
		return nil
	}
	if err := a.takeLock(); err != nil {
		return err
	}
	a.mu.Lock()
	a.lockLater = false
	a.mu.Unlock()
	return nil
}

// releaseLock releases what takeLock took (once).
func (a *agent) releaseLock() {
	a.mu.Lock()
	release := a.unlockTask
	a.unlockTask = nil
	a.mu.Unlock()
	if release != nil {
		release()
	}
}

// heldLocks are the task locks this process holds, counted: an agent
// replaced (another shape, removed and declared again) is added while
// the old one is still stopping, and must not find its own lock busy.
var heldLocks = &lockSet{m: map[string]*countedLock{}}

type lockSet struct {
	mu sync.Mutex
	m  map[string]*countedLock
}

type countedLock struct {
	l *control.AgentLock
	n int
}

// take takes agent's lock in root, or counts one more holder of it.
func (s *lockSet) take(root, agent string) (release func(), _ error) {
	key := filepath.Join(root, agent)
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.m[key]
	if c == nil {
		l, err := control.LockAgent(root, agent, "up")
		if err != nil {
			return nil, err
		}
		c = &countedLock{l: l}
		s.m[key] = c
	}
	c.n++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if c.n--; c.n == 0 {
			c.l.Close()
			delete(s.m, key)
		}
	}, nil
}
