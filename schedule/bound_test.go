package schedule

import (
	"context"
	"errors"
	"testing"

	"github.com/actctl/actctl/internal/clock"
)

// TestQueueBound: prompts (tasks without a source) wait up to MaxWaiting;
// one more is refused with ErrQueueFull and no ID, a tick (with a source)
// is still taken, and once the queue drains prompts are taken again.
func TestQueueBound(t *testing.T) {
	ran := make(chan uint64, MaxWaiting+2)
	q := NewQueue(ExecutorFunc(func(_ context.Context, t Task) error { ran <- t.ID; return nil }), clock.NewFake(t0), nil)
	for i := range MaxWaiting {
		if task, _, _ := q.Push(Task{Kind: KindPrompt, Prompt: "p"}); task.ID != uint64(i+1) {
			t.Fatalf("prompt %d: ID %d", i+1, task.ID)
		}
	}
	over, done, _ := q.Push(Task{Kind: KindPrompt, Prompt: "one too many"})
	select {
	case err := <-done: // refused at once
		if over.ID != 0 || !errors.Is(err, ErrQueueFull) {
			t.Fatalf("prompt past the bound: ID %d, %v", over.ID, err)
		}
	default:
		t.Fatalf("prompt past the bound queued as task %d", over.ID)
	}
	if tick, _, _ := q.Push(Task{Kind: KindHeartbeat, Source: "heartbeat"}); tick.ID != MaxWaiting+1 {
		t.Fatalf("a tick past the bound: ID %d", tick.ID)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- q.Run(ctx) }()
	defer func() { cancel(); <-stopped }()
	for range MaxWaiting + 1 {
		<-ran
	}
	after, done, _ := q.Push(Task{Kind: KindPrompt, Prompt: "later"})
	if err := <-done; after.ID != MaxWaiting+2 || err != nil {
		t.Fatalf("prompt after the drain: ID %d, %v", after.ID, err)
	}
}
