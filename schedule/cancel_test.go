package schedule

import (
	"context"
	"errors"
	"testing"

	"github.com/actctl/actctl/internal/clock"
)

// TestRemoveWaiting: a waiting task taken out of the queue never runs and
// its waiter learns it was cancelled; the running task and unknown ids
// are not removed; the others run in their order.
func TestRemoveWaiting(t *testing.T) {
	started := make(chan uint64)
	release := make(chan struct{})
	q := NewQueue(ExecutorFunc(func(_ context.Context, tk Task) error {
		started <- tk.ID
		<-release
		return nil
	}), clock.NewFake(t0), nil)
	first, _, _ := q.Push(Task{Kind: KindPrompt, Prompt: "one"})
	second, secondDone, _ := q.Push(Task{Kind: KindPrompt, Prompt: "two"})
	third, thirdDone, _ := q.Push(Task{Kind: KindPrompt, Prompt: "three"})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); q.Run(ctx) }()
	defer func() { cancel(); <-ran }()
	if id := <-started; id != first.ID {
		t.Fatalf("first to run: %d, want %d", id, first.ID)
	}
	if _, ok := q.Remove(first.ID, nil); ok {
		t.Errorf("Remove took the running task")
	}
	if _, ok := q.Remove(99, nil); ok {
		t.Errorf("Remove took an unknown task")
	}
	var told Task
	got, ok := q.Remove(second.ID, func(tk Task) { told = tk })
	if !ok || got.Prompt != "two" || told.ID != second.ID {
		t.Fatalf("Remove(%d): %+v %v", second.ID, got, ok)
	}
	if err := <-secondDone; !errors.Is(err, ErrCancelled) {
		t.Errorf("removed task's result: %v", err)
	}
	if p := q.Pending(); len(p) != 1 || p[0].ID != third.ID {
		t.Errorf("waiting after Remove: %+v", p)
	}
	release <- struct{}{}
	if id := <-started; id != third.ID {
		t.Fatalf("next to run: %d, want %d (the removed one ran)", id, third.ID)
	}
	release <- struct{}{}
	if err := <-thirdDone; err != nil {
		t.Errorf("third: %v", err)
	}
}
