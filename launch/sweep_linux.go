package launch

import (
	"fmt"
	"slices"
	"time"
)

// procTable is the process table a sweep reads and signals: /proc in
// KillMarked, a scripted table in the tests.
type procTable interface {
	pids() ([]int, error)
	environ(pid int) ([]byte, error)
	stat(pid int) (procStat, error)
	kill(pid int) error
}

// procStat holds the fields of /proc/PID/stat a sweep looks at.
type procStat struct {
	state  byte   // R, S, D, T, Z, X, ...
	pgrp   uint64 // its process group
	flags  uint64 // PF_* flags
	start  uint64 // start time since boot: tells a reused pid apart
	envEnd uint64 // end of the environment in memory; 0 while there is none
}

const (
	pfExiting = 0x4      // PF_EXITING: the process is dying
	pfKthread = 0x200000 // PF_KTHREAD: a kernel thread, never ours
)

// dead reports whether the process is past running any code of its own.
func (s procStat) dead() bool { return s.state == 'Z' || s.state == 'X' }

// execing reports whether the process has no environment in memory only
// because it is in the middle of an exec: the kernel has swapped in the
// new program's memory but not yet copied the environment into it, so
// /proc/PID/environ reads as empty (its cmdline too) for that moment.
// Under load a process can sit there for a long time.
func (s procStat) execing() bool {
	return s.envEnd == 0 && s.flags&(pfExiting|pfKthread) == 0 && !s.dead()
}

// A sweep kills every process that carries the session mark. It rescans
// the table until a pass finds none alive (a marked process may fork
// while a pass runs; its child is caught by the next pass), waits out the
// processes that are mid-exec (see procStat.execing) instead of taking
// their empty environment for an unmarked one, and finally waits until
// every process it signalled is dead.
type sweep struct {
	t         procTable
	needle    []byte
	self      int
	pause     func()           // between two looks at the table
	now       func() time.Time // the clock deadlines are read on
	signalled map[int]procStat // by pid, as first signalled
}

func newSweep(t procTable, mark string, self int) *sweep {
	return &sweep{
		t: t, needle: []byte(MarkVar + "=" + mark + "\x00"), self: self,
		pause: func() {}, now: time.Now, signalled: map[int]procStat{},
	}
}

// What one look at a process found.
type finding int

const (
	unmarked finding = iota // not ours, gone, or dying
	marked                  // carries the mark (and was just signalled)
	execing                 // mid-exec: look again
)

func (s *sweep) run(deadline time.Time) error {
	for {
		found, err := s.pass(deadline)
		if err != nil {
			return err
		}
		if !found {
			return s.awaitDeath(deadline)
		}
		if s.now().After(deadline) {
			return s.survivors()
		}
		s.pause()
	}
}

// pass looks at every process once, signals the marked ones and looks
// again at those mid-exec until they are done. It reports whether it
// signalled any.
func (s *sweep) pass(deadline time.Time) (bool, error) {
	pids, err := s.t.pids()
	if err != nil {
		return false, fmt.Errorf("list processes: %w", err)
	}
	found := false
	var pending []int
	for _, pid := range pids {
		switch s.look(pid) {
		case marked:
			found = true
		case execing:
			pending = append(pending, pid)
		}
	}
	for len(pending) > 0 && !s.now().After(deadline) {
		s.pause()
		pending = slices.DeleteFunc(pending, func(pid int) bool {
			f := s.look(pid)
			found = found || f == marked
			return f != execing
		})
	}
	return found, nil
}

// look classifies one process and signals it if it is marked.
func (s *sweep) look(pid int) finding {
	if pid <= 1 || pid == s.self {
		return unmarked // never init, whatever it carries
	}
	env, err := s.t.environ(pid)
	if err != nil {
		return unmarked // gone, or another user's
	}
	if len(env) == 0 {
		st, err := s.t.stat(pid)
		if err != nil {
			return unmarked
		}
		if st.execing() {
			return execing
		}
		// The exec may have completed between the two reads: its
		// environment is in place now.
		if env, err = s.t.environ(pid); err != nil || len(env) == 0 {
			return unmarked
		}
	}
	if !hasEnvEntry(env, s.needle) {
		return unmarked
	}
	st, err := s.t.stat(pid)
	if err != nil || s.t.kill(pid) != nil {
		return unmarked // exited meanwhile
	}
	if _, ok := s.signalled[pid]; !ok {
		s.signalled[pid] = st
	}
	return marked
}

// awaitDeath waits until every signalled process is gone or a zombie.
func (s *sweep) awaitDeath(deadline time.Time) error {
	for !s.allDead() {
		if s.now().After(deadline) {
			return s.survivors()
		}
		s.pause()
	}
	return nil
}

func (s *sweep) allDead() bool {
	for pid := range s.signalled {
		if s.alive(pid) {
			return false
		}
	}
	return true
}

// alive reports whether the signalled process pid is still running (and
// its pid not reused by another process since).
func (s *sweep) alive(pid int) bool {
	st, err := s.t.stat(pid)
	return err == nil && st.start == s.signalled[pid].start && !st.dead()
}

func (s *sweep) survivors() error {
	var left []int
	for pid := range s.signalled {
		if s.alive(pid) {
			left = append(left, pid)
		}
	}
	slices.Sort(left)
	return fmt.Errorf("process(es) %v still alive %s after SIGKILL", left, killMarkedTimeout)
}
