package schedule

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/clock"
)

// TestTickBeforeTask: a tick is reported before its task can start, so
// hooks and tests see heartbeat:tick (or cron:tick) before anything the
// task does. While the tick is reported, the queue runs between tasks
// twice (Between): had the task been startable, it would have run by the
// second time.
func TestTickBeforeTask(t *testing.T) {
	clk := clock.NewFake(t0)
	var mu sync.Mutex
	var order []string
	record := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	ran := make(chan struct{}, 10)
	q := NewQueue(ExecutorFunc(func(context.Context, Task) error {
		record("task")
		ran <- struct{}{}
		return nil
	}), clk, nil)
	s := New(Spec{Heartbeat: &Heartbeat{Interval: time.Minute}}, clk, q, func(ev Event) {
		if ev.Name != EventHeartbeatTick {
			return
		}
		<-q.Between(func() {})
		<-q.Between(func() {})
		if _, running := q.Running(); running {
			t.Errorf("tick of task %d reported while it runs", ev.Task.ID)
		}
		record("tick")
	})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); q.Run(ctx) }()
	go func() { defer wg.Done(); s.Run(ctx) }()
	defer func() { cancel(); wg.Wait() }()
	for range 3 {
		clk.WaitPending(1)
		clk.Advance(time.Minute)
		<-ran
	}
	mu.Lock()
	defer mu.Unlock()
	if want := "[tick task tick task tick task]"; fmt.Sprint(order) != want {
		t.Fatalf("order %v, want %s", order, want)
	}
}
