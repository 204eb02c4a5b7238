package supervise

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/clock"
)

type failingStarter struct{}

func (failingStarter) Start(context.Context) (Process, error) {
	return nil, errors.New("no such agent")
}

// timerHookClock calls made once each timer is registered: the moment a
// test waiting with WaitPending is let go.
type timerHookClock struct {
	*clock.Fake
	made func()
}

func (c timerHookClock) NewTimer(d time.Duration) clock.Timer {
	t := c.Fake.NewTimer(d)
	c.made()
	return t
}

// TestBackoffStatusBeforeTimer: once the backoff timer can be seen
// (clock.WaitPending returns), the status already names the restart time.
// The time was set after the timer was made: a test reading the status
// right after WaitPending saw backoff with no next start.
func TestBackoffStatusBeforeTimer(t *testing.T) {
	fake := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	seen := make(chan Status, 1)
	var s *Supervisor
	clk := timerHookClock{Fake: fake, made: func() {
		select {
		case seen <- s.Status():
		default: // only the first timer matters
		}
	}}
	s = New("svc", failingStarter{}, unbounded(ServicePolicy()), clk, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	st := <-seen
	if st.State != Backoff || !st.NextStart.Equal(fake.Now().Add(time.Second)) {
		t.Fatalf("status when the backoff timer was made: %+v, want backoff with the next start in 1s", st)
	}
}

// unbounded is p without the start bound, for the tests that count the
// fake clock's timers (TestStartBound has its own).
func unbounded(p Policy) Policy {
	p.StartTimeout = 0
	return p
}
