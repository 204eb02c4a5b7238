package clock

import (
	"testing"
	"time"
)

func TestFakeFiresInOrderAtDueTimes(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := NewFake(start)
	a := f.NewTimer(2 * time.Second)
	b := f.NewTimer(time.Second)
	c := f.NewTimer(time.Minute)
	f.Advance(1500 * time.Millisecond)
	if got := <-b.C(); !got.Equal(start.Add(time.Second)) {
		t.Errorf("b fired at %v", got)
	}
	select {
	case <-a.C():
		t.Fatal("a fired early")
	default:
	}
	f.Advance(time.Second)
	if got := <-a.C(); !got.Equal(start.Add(2 * time.Second)) {
		t.Errorf("a fired at %v", got)
	}
	if !c.Stop() || c.Stop() {
		t.Error("Stop should report true once")
	}
	if f.Pending() != 0 {
		t.Errorf("pending = %d", f.Pending())
	}
	if d := f.NewTimer(0); len(d.C()) != 1 {
		t.Error("a zero timer fires at once")
	}
}

func TestFakeWaitPending(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	done := make(chan struct{})
	go func() {
		f.WaitPending(1)
		close(done)
	}()
	f.NewTimer(time.Hour)
	<-done
	if due, ok := f.NextDue(); !ok || !due.Equal(time.Unix(3600, 0)) {
		t.Errorf("next due %v %v", due, ok)
	}
}
