package launch

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// fakeProc is one process of a scripted table. Time advances by one tick
// per pause of the sweep.
type fakeProc struct {
	env      string // entries, each ending in NUL
	state    byte
	flags    uint64
	start    uint64
	pgrp     uint64
	execFor  int   // ticks left in an exec: no environment in memory yet
	dieAfter int   // ticks a SIGKILL takes to reach exit; -1: never dies
	exiting  int   // ticks left in exit: memory released, not yet a zombie
	killed   bool  // SIGKILL received
	forks    []int // pids that appear (marked) when the sweep first reads its environment
	// execDone: the exec completes right after the sweep's read found no
	// environment, before it looks at the process's stat.
	execDone bool
}

type fakeTable struct {
	t     *testing.T
	procs map[int]*fakeProc
	order []int
	ticks int
	clock time.Time // advances a second a tick
}

func (f *fakeTable) add(pid int, p *fakeProc) {
	if p.state == 0 {
		p.state = 'S'
	}
	f.procs[pid] = p
	f.order = append(f.order, pid)
}

func (f *fakeTable) pids() ([]int, error) { return append([]int(nil), f.order...), nil }

func (f *fakeTable) environ(pid int) ([]byte, error) {
	p, ok := f.procs[pid]
	if !ok {
		return nil, errGone
	}
	for _, c := range p.forks {
		f.add(c, &fakeProc{env: p.env, start: 99})
	}
	p.forks = nil
	if p.execFor > 0 || p.exiting > 0 || p.state == 'Z' {
		if p.execDone {
			p.execFor = 0
		}
		return []byte{}, nil
	}
	return []byte(p.env), nil
}

func (f *fakeTable) stat(pid int) (procStat, error) {
	p, ok := f.procs[pid]
	if !ok {
		return procStat{}, errGone
	}
	st := procStat{state: p.state, pgrp: p.pgrp, flags: p.flags, start: p.start, envEnd: 1}
	if p.execFor > 0 || p.exiting > 0 || p.state == 'Z' || p.flags&pfKthread != 0 {
		st.envEnd = 0
	}
	if p.exiting > 0 {
		st.flags |= pfExiting
	}
	return st, nil
}

func (f *fakeTable) kill(pid int) error {
	p, ok := f.procs[pid]
	if !ok {
		return errGone
	}
	if !p.killed && p.dieAfter == 0 {
		p.exiting = exitTicks
	}
	p.killed = true
	return nil
}

func (f *fakeTable) tick() {
	f.ticks++
	f.clock = f.clock.Add(time.Second)
	if f.ticks > 1000 {
		f.t.Fatal("sweep does not end")
	}
	for _, p := range f.procs {
		if p.execFor > 0 {
			p.execFor--
		}
		switch {
		case p.exiting > 0:
			p.exiting--
			if p.exiting == 0 {
				p.state = 'Z'
			}
		case p.killed && p.dieAfter > 0:
			p.dieAfter--
			if p.dieAfter == 0 {
				p.exiting = exitTicks
			}
		}
	}
}

// exitTicks is how long a killed process takes from releasing its memory
// (its environment reads as empty from then on) to being a zombie.
const exitTicks = 2

var errGone = &fakeErr{"no such process"}

type fakeErr struct{ s string }

func (e *fakeErr) Error() string { return e.s }

const (
	ours   = "HOME=/h\x00" + MarkVar + "=m1\x00"
	theirs = "HOME=/h\x00" + MarkVar + "=m10\x00"
)

// sweepTable sweeps a table of procs (pid 1 is the sweeper) for up to
// timeout ticks.
func sweepTable(t *testing.T, timeout int, procs map[int]*fakeProc) (*fakeTable, int, error) {
	t.Helper()
	f := &fakeTable{t: t, procs: map[int]*fakeProc{}}
	for pid := 1; pid <= 20; pid++ {
		if p, ok := procs[pid]; ok {
			f.add(pid, p)
		}
	}
	s := newSweep(f, "m1", 1)
	s.pause = f.tick
	s.now = func() time.Time { return f.clock }
	err := s.run(f.clock.Add(time.Duration(timeout) * time.Second))
	return f, len(s.signalled), err
}

func TestSweepKillsMarkedProcesses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		procs  map[int]*fakeProc
		killed []int // pids that must end up killed and zombies
		spared []int // pids that must not be signalled
	}{
		{"marked and unmarked", map[int]*fakeProc{
			1: {env: ours}, // the sweeper itself
			2: {env: ours}, 3: {env: theirs}, 4: {env: "A=b\x00"},
		}, []int{2}, []int{1, 3, 4}},
		// The reported leak: a daemon still in its exec reads as an empty
		// environment; it must be looked at again, not skipped.
		{"mid-exec", map[int]*fakeProc{
			2: {env: ours, execFor: 5}, 3: {env: theirs, execFor: 3},
		}, []int{2}, []int{3}},
		// A SIGKILLed process keeps running for a while: the sweep waits.
		{"slow to die", map[int]*fakeProc{
			2: {env: ours, dieAfter: 7}, 3: {env: ours, dieAfter: 2},
		}, []int{2, 3}, nil},
		// Empty environments that are not an exec are not waited for.
		{"kernel thread, zombie, exiting, empty env", map[int]*fakeProc{
			2: {flags: pfKthread}, 3: {state: 'Z'}, 4: {flags: pfExiting, execFor: 1 << 30},
			5: {env: ours},
		}, []int{5}, []int{2, 3, 4}},
		// A marked process forks while the pass runs: the child is found
		// by the next pass.
		{"fork during a pass", map[int]*fakeProc{
			2: {env: ours, dieAfter: 1, forks: []int{9}},
		}, []int{2, 9}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, n, err := sweepTable(t, 100, tc.procs)
			if err != nil {
				t.Fatal(err)
			}
			if n != len(tc.killed) {
				t.Errorf("signalled %d processes, want %d", n, len(tc.killed))
			}
			for _, pid := range tc.killed {
				if p := f.procs[pid]; !p.killed || p.state != 'Z' {
					t.Errorf("process %d: killed %v, state %c; want killed and a zombie", pid, p.killed, p.state)
				}
			}
			for _, pid := range tc.spared {
				if f.procs[pid].killed {
					t.Errorf("process %d was signalled", pid)
				}
			}
		})
	}
}

// A process that does not die in time is reported, by pid.
func TestSweepReportsSurvivors(t *testing.T) {
	_, n, err := sweepTable(t, 50, map[int]*fakeProc{2: {env: ours, dieAfter: -1}, 3: {env: ours, dieAfter: 3}})
	if n != 2 || err == nil || !strings.Contains(err.Error(), "process(es) [2] still alive") {
		t.Fatalf("signalled %d, error %v; want 2 and process 2 reported", n, err)
	}
}

// A signalled pid that now belongs to another process counts as dead.
func TestSweepPidReused(t *testing.T) {
	f := &fakeTable{t: t, procs: map[int]*fakeProc{}}
	f.add(2, &fakeProc{env: ours, start: 5, dieAfter: -1})
	s := newSweep(f, "m1", 1)
	s.pause = func() {
		f.tick()
		f.procs[2] = &fakeProc{env: "A=b\x00", state: 'S', start: 6}
	}
	if err := s.run(time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
}

func TestParseStat(t *testing.T) {
	line := "27617 (sl ee) p) R 1 27616 27616 0 -1 4194304 69 0 0 0 0 0 0 0 20 0 1 0 123456 4096 0 " +
		"18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	st, err := parseStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := procStat{state: 'R', pgrp: 27616, flags: 4194304, start: 123456, envEnd: 0}
	if st != want || !st.execing() {
		t.Errorf("parseStat = %+v (execing %v), want %+v, execing", st, st.execing(), want)
	}
	if _, err := parseStat([]byte("1 (x) S 0")); err == nil {
		t.Error("short stat line parsed")
	}
}

// On the real /proc: a marked process killed right after exec.Cmd.Start
// returns, sometimes still inside its exec (its environment not yet
// readable), is dead (a zombie, as it is our child) when KillMarked
// returns, not merely signalled.
func TestKillMarkedJustStarted(t *testing.T) {
	mark := NewMark()
	for i := 0; i < 50; i++ {
		c := exec.Command("sleep", "1000")
		c.Env = []string{"PATH=" + os.Getenv("PATH"), MarkVar + "=" + mark}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		n, err := KillMarked(mark)
		st, serr := procFS{}.stat(c.Process.Pid)
		_ = c.Process.Kill()
		_ = c.Wait()
		if err != nil || serr != nil || n != 1 || !st.dead() {
			t.Fatalf("start %d: KillMarked = %d, %v; then state %c (%v), want 1 killed and a zombie", i, n, err, st.state, serr)
		}
	}
}

// An exec that completes between the read of the environment (empty) and
// the read of the stat (environment in place) is not taken for a process
// without the mark: the environment is read again.
func TestSweepExecDoneBetweenReads(t *testing.T) {
	f := &fakeTable{t: t, procs: map[int]*fakeProc{}}
	f.add(2, &fakeProc{env: ours, start: 5, execFor: 1, execDone: true})
	s := newSweep(f, "m1", 1)
	s.pause = f.tick
	if err := s.run(time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if !f.procs[2].killed {
		t.Error("the process whose exec completed between two reads was not killed")
	}
}
