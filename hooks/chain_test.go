package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/actctl/actctl/model"
)

// loopPrompter stands for up: every prompt is a task that ends at once in
// task:done for the prompted agent, carrying the prompt's hook chain.
type loopPrompter struct {
	bus    *Bus
	mu     sync.Mutex
	chains []Chain
}

func (p *loopPrompter) Prompt(ctx context.Context, agent, text string) error {
	c := ChainOf(ctx)
	p.mu.Lock()
	p.chains = append(p.chains, c)
	p.mu.Unlock()
	p.bus.Publish(Event{Name: "task:done", Agent: agent, Chain: c})
	return nil
}

type warnings struct {
	mu  sync.Mutex
	all []string
}

func (w *warnings) add(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all = append(w.all, msg)
}

// allResults keeps every result, in the order reported.
type allResults struct {
	mu  sync.Mutex
	all []Result
}

func (r *allResults) add(res Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all = append(r.all, res)
}

// loopBus is a bus whose prompt hooks prompt each other through a
// loopPrompter, with a guard that records its warnings.
func loopBus(t *testing.T, hs map[string]model.Hook) (*Bus, *loopPrompter, *warnings, *allResults) {
	t.Helper()
	p, w, res := &loopPrompter{}, &warnings{}, &allResults{}
	b, err := New(hs, Options{Dir: t.TempDir(), Prompter: p, Guard: NewGuard(0, w.add), Report: res.add})
	if err != nil {
		t.Fatal(err)
	}
	p.bus = b
	return b, p, w, res
}

func promptHook(on, about, to string) model.Hook {
	return model.Hook{On: on, Agents: []string{about}, Prompt: &model.HookPrompt{Agent: to, Text: about + " is done"}}
}

// TestHookLoopBounded (issue #20 item 12): two agents whose task:done
// hooks prompt each other get MaxChain prompts, every one carrying the
// chain that caused it; the next is dropped with one warning naming the
// chain. Before, the loop never ended.
func TestHookLoopBounded(t *testing.T) {
	b, p, w, res := loopBus(t, map[string]model.Hook{
		"a-done": promptHook("task:done", "a", "b"),
		"b-done": promptHook("task:done", "b", "a"),
	})
	b.Publish(Event{Name: "task:done", Agent: "a"})
	b.Wait()
	if len(p.chains) != MaxChain {
		t.Fatalf("%d prompts, want %d", len(p.chains), MaxChain)
	}
	root := p.chains[0].Root
	for i, c := range p.chains {
		want := []string{"a-done", "b-done", "a-done", "b-done", "a-done", "b-done", "a-done", "b-done"}[:i+1]
		if c.Root == "" || c.Root != root || strings.Join(c.Hooks, ",") != strings.Join(want, ",") {
			t.Errorf("prompt %d: chain %+v, want root %s and %v", i, c, root, want)
		}
	}
	want := "hook loop: a prompt to b caused through 9 hooks (a-done -> b-done -> a-done -> b-done -> a-done -> b-done -> a-done -> b-done -> a-done) was dropped: more than 8 (further drops in this chain are not reported)"
	if len(w.all) != 1 || w.all[0] != want {
		t.Errorf("warnings %q, want [%q]", w.all, want)
	}
	var dropped []Result
	for _, r := range res.all {
		if r.Err != nil || r.Dropped {
			dropped = append(dropped, r)
		}
	}
	if len(dropped) != 1 || dropped[0].Hook != "a-done" || !dropped[0].Dropped || !errors.Is(dropped[0].Err, ErrLoop) || len(res.all) != MaxChain+1 {
		t.Errorf("results: %d, the dropped ones %+v", len(res.all), dropped)
	}
}

// TestHookLoopFanOutWarnsOnce: a loop that fans out (two hooks prompt b
// on a's task:done) drops many prompts of one chain, with one warning;
// a second event starts a chain of its own, warned of again.
func TestHookLoopFanOutWarnsOnce(t *testing.T) {
	b, p, w, _ := loopBus(t, map[string]model.Hook{
		"a-done":   promptHook("task:done", "a", "b"),
		"a-done-2": promptHook("task:done", "a", "b"),
		"b-done":   promptHook("task:done", "b", "a"),
	})
	b.Publish(Event{Name: "task:done", Agent: "a"})
	b.Wait()
	for _, c := range p.chains {
		if len(c.Hooks) > MaxChain {
			t.Fatalf("a prompt through %d hooks went through: %v", len(c.Hooks), c)
		}
	}
	if len(w.all) != 1 {
		t.Fatalf("%d warnings for one chain: %q", len(w.all), w.all)
	}
	b.Publish(Event{Name: "task:done", Agent: "a"})
	b.Wait()
	if len(w.all) != 2 {
		t.Errorf("%d warnings after a second chain, want 2: %q", len(w.all), w.all)
	}
}

// TestRunHookGetsChain: a run hook finds the event's chain in ACTCTL_EVENT
// and its own chain (the event's, then itself) in ACTCTL_HOOK_CHAIN, for
// `actctl prompt` to hand back to up; an event no hook caused starts a
// chain at the hook.
func TestRunHookGetsChain(t *testing.T) {
	dir := t.TempDir()
	b, res := newBus(t, map[string]model.Hook{
		"record": {On: "task:done", Run: sh(`printf '%s' "$ACTCTL_EVENT" > "$DIR/event.$ACTCTL_TEST_N"; printf '%s' "$ACTCTL_HOOK_CHAIN" > "$DIR/chain.$ACTCTL_TEST_N"`, map[string]string{"DIR": dir})},
	}, nil)
	for n, ev := range []Event{
		{Name: "task:done", Agent: "a", Chain: Chain{Root: "r1", Hooks: []string{"x", "y"}}},
		{Name: "task:done", Agent: "a"},
	} {
		b.hooks[0].spec.Run.Env["ACTCTL_TEST_N"] = fmt.Sprint(n)
		b.Publish(ev)
		b.Wait()
		if r := res.all["record"]; r.Err != nil {
			t.Fatalf("record: %+v", r)
		}
	}
	read := func(name string, v any) {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s %q: %v", name, raw, err)
		}
	}
	var ev Event
	var chain Chain
	read("event.0", &ev)
	read("chain.0", &chain)
	if ev.Chain.Root != "r1" || strings.Join(ev.Chain.Hooks, ",") != "x,y" {
		t.Errorf("ACTCTL_EVENT chain %+v", ev.Chain)
	}
	if chain.Root != "r1" || strings.Join(chain.Hooks, ",") != "x,y,record" {
		t.Errorf("ACTCTL_HOOK_CHAIN %+v", chain)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "event.1"))
	if strings.Contains(string(raw), "chain") {
		t.Errorf("an event no hook caused carries a chain: %s", raw)
	}
	chain = Chain{}
	read("chain.1", &chain)
	if chain.Root == "" || strings.Join(chain.Hooks, ",") != "record" {
		t.Errorf("a new chain: %+v", chain)
	}
}

// TestParseChain: a chain from outside (ACTCTL_HOOK_CHAIN, a control
// request) is refused with a message when malformed.
func TestParseChain(t *testing.T) {
	if c, err := ParseChain(`{"root":"r","hooks":["a","b"]}`); err != nil || c.String() != "a -> b" {
		t.Errorf("valid chain: %+v %v", c, err)
	}
	long := `{"root":"r","hooks":[` + strings.Repeat(`"a",`, maxChainLen) + `"a"]}`
	for in, want := range map[string]string{
		`nope`:                      `invalid hook chain "nope"`,
		`{"hooks":["a"]}`:           "no root",
		`{"root":"r","hooks":[""]}`: "a hook without a name",
		long:                        "1025 hooks (at most 1024)",
	} {
		if _, err := ParseChain(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseChain(%.40s) = %v, want %q", in, err, want)
		}
	}
}

// TestGuardNil: a nil guard still drops, silently.
func TestGuardNil(t *testing.T) {
	var g *Guard
	c := Chain{Root: "r", Hooks: make([]string, MaxChain)}
	if err := g.Admit("a", c); err != nil {
		t.Errorf("%d hooks refused: %v", MaxChain, err)
	}
	if err := g.Admit("a", c.Then("x")); !errors.Is(err, ErrLoop) {
		t.Errorf("%d hooks: %v", MaxChain+1, err)
	}
}
