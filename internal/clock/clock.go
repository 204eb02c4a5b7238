// Package clock is the time source of the long-running parts of actctl
// (the scheduler and the supervisor, see docs/runtime.md). They take a
// Clock instead of calling the time package, so that tests drive them with
// Fake: a clock that moves only when the test says so, and that tells the
// test when a timer is waiting. No test of theirs waits real time.
package clock

import (
	"sort"
	"sync"
	"time"
)

// Clock gives the current time and timers.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that fires once, d from now.
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer.
type Timer interface {
	// C receives the clock's time when the timer fires.
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it did.
	Stop() bool
}

// Real is the wall clock.
func Real() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time { return t.t.C }
func (t realTimer) Stop() bool          { return t.t.Stop() }

// Fake is a manual clock for tests: its time moves only with Advance or
// Set, which fire every timer that has come due, in order of due time.
type Fake struct {
	mu     sync.Mutex
	cond   *sync.Cond
	now    time.Time
	timers []*fakeTimer
	made   int
}

// NewFake returns a fake clock reading start.
func NewFake(start time.Time) *Fake {
	f := &Fake{now: start}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// NewTimer registers a timer due d from the fake now. A timer with d <= 0
// fires at once.
func (f *Fake) NewTimer(d time.Duration) Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{f: f, due: f.now.Add(d), c: make(chan time.Time, 1)}
	f.made++
	if d <= 0 {
		t.c <- f.now
	} else {
		f.timers = append(f.timers, t)
	}
	f.cond.Broadcast()
	return t
}

// Advance moves the clock forward by d, firing the timers that come due.
func (f *Fake) Advance(d time.Duration) { f.Set(f.Now().Add(d)) }

// Set moves the clock to t (never backwards), firing the timers due by
// then; each timer receives its own due time.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.After(f.now) {
		f.now = t
	}
	sort.SliceStable(f.timers, func(i, j int) bool { return f.timers[i].due.Before(f.timers[j].due) })
	keep := f.timers[:0]
	for _, tm := range f.timers {
		if tm.due.After(f.now) {
			keep = append(keep, tm)
			continue
		}
		tm.c <- tm.due
	}
	f.timers = keep
	f.cond.Broadcast()
}

// Pending returns how many timers are waiting to fire.
func (f *Fake) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timers)
}

// Made returns how many timers were created so far.
func (f *Fake) Made() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.made
}

// WaitMade blocks until at least n timers were created in total: the way
// a test knows that the code under test has armed its next timer and is
// ready for the clock to move.
func (f *Fake) WaitMade(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.made < n {
		f.cond.Wait()
	}
}

// WaitPending blocks until at least n timers are waiting to fire. After
// Advance has fired a timer, WaitPending(1) returns once the code under
// test has handled it and armed its next one.
func (f *Fake) WaitPending(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.timers) < n {
		f.cond.Wait()
	}
}

// NextDue returns the due time of the earliest waiting timer.
func (f *Fake) NextDue() (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.timers) == 0 {
		return time.Time{}, false
	}
	min := f.timers[0].due
	for _, t := range f.timers[1:] {
		if t.due.Before(min) {
			min = t.due
		}
	}
	return min, true
}

type fakeTimer struct {
	f   *Fake
	due time.Time
	c   chan time.Time
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	for i, x := range t.f.timers {
		if x == t {
			t.f.timers = append(t.f.timers[:i], t.f.timers[i+1:]...)
			t.f.cond.Broadcast()
			return true
		}
	}
	return false
}
