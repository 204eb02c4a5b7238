package up

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/schedule"
)

// TestPromptCarriesHookChain (issue #20 item 12): a prompt caused by hooks
// (a prompt hook's context, or a control request from a hook's `actctl
// prompt`) passes its chain to the events of its task: an employee's
// task:done and idle, a service's session:end. A chain longer than the
// bound is dropped before anything runs, with one warning per chain; a
// malformed chain is refused.
func TestPromptCarriesHookChain(t *testing.T) {
	h := newHarness(t, nil)
	var mu sync.Mutex
	var warned []string
	h.m.opts.Loops = hooks.NewGuard(0, func(msg string) {
		mu.Lock()
		warned = append(warned, msg)
		mu.Unlock()
	})
	h.m.Sync([]Spec{employee(t, "emp", schedule.Spec{}), service(t, "svc")})
	h.wait("process:start", "emp")
	h.wait("process:start", "svc")
	chainOf := func(ev hooks.Event) string { return ev.Chain.Root + ":" + ev.Chain.String() }

	req := control.Request{Op: control.OpPrompt, Agent: "emp", Text: "hello", Chain: []byte(`{"root":"r1","hooks":["x","y"]}`)}
	if _, err := h.m.Handle(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"task:done", "idle"} {
		if got := chainOf(h.wait(name, "emp")); got != "r1:x -> y" {
			t.Errorf("%s carries %q, want r1:x -> y", name, got)
		}
	}
	ctx := hooks.WithChain(context.Background(), hooks.Chain{Root: "r2", Hooks: []string{"z"}})
	if _, err := h.m.Prompt(ctx, "svc", "hello", true, nil); err != nil {
		t.Fatal(err)
	}
	if got := chainOf(h.wait("session:end", "svc")); got != "r2:z" {
		t.Errorf("session:end carries %q, want r2:z", got)
	}

	before := len(h.promptLines())
	long := `{"root":"r3","hooks":["a","b","a","b","a","b","a","b","a"]}`
	for range 2 {
		req := control.Request{Op: control.OpPrompt, Agent: "emp", Text: "hello", Chain: []byte(long)}
		if _, err := h.m.Handle(context.Background(), req, nil); !errors.Is(err, hooks.ErrLoop) || !strings.Contains(err.Error(), "a prompt to emp caused through 9 hooks (a -> b -> a -> b -> a -> b -> a -> b -> a) was dropped: more than 8") {
			t.Errorf("a chain of 9: %v", err)
		}
	}
	req.Chain = []byte(`{"hooks":["a"]}`)
	if _, err := h.m.Handle(context.Background(), req, nil); err == nil || !strings.Contains(err.Error(), "invalid hook chain") {
		t.Errorf("a chain without a root: %v", err)
	}
	if n := len(h.promptLines()); n != before {
		t.Errorf("dropped prompts reached the agent: %d prompts, want %d", n, before)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warned) != 1 {
		t.Errorf("warnings %q, want one for the chain", warned)
	}
}
