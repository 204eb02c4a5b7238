// Package hooks is actctl's event bus (docs/runtime.md): apply and `up`
// publish events (agent:created, process:crash, task:done, ...) and the
// bus runs the workspace's hooks that match, fire-and-forget. A run hook
// executes a command with the event as JSON in $ACTCTL_EVENT, killed with
// its process group at its timeout; a prompt hook hands its text, with
// {{event.*}} filled, to a Prompter (the agent's task queue in `up`). A
// hook that fails is reported and never blocks the publisher. Every event
// carries the chain of hooks that caused it, and a Guard drops a prompt
// caused through more than MaxChain hooks (docs/runtime.md, "Hook loops").
package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/actctl/actctl/model"
)

// Event is what happened; it is the JSON in $ACTCTL_EVENT.
type Event struct {
	Name  string         `json:"name"`
	Agent string         `json:"agent,omitempty"`
	Time  time.Time      `json:"time"`
	Data  map[string]any `json:"data,omitempty"`
	// Chain is the hooks that caused the event (docs/runtime.md, "Hook
	// loops"); zero when none did.
	Chain Chain `json:"chain,omitzero"`
}

// Prompter gives an agent a prompt: in `up`, a task on its queue. The
// context carries the hook chain that caused the prompt (ChainOf): the
// events of the task carry it on.
type Prompter interface {
	Prompt(ctx context.Context, agent, text string) error
}

// Result is the outcome of one hook run.
type Result struct {
	Hook     string
	Event    Event
	Err      error
	Output   string // run hooks: the end of their stdout and stderr
	Duration time.Duration
	// Dropped is set when the hook's prompt (a prompt hook's, or the
	// `actctl prompt` a run hook ran) was dropped as a hook loop: Err says
	// so, and the Guard already warned once for its chain.
	Dropped bool
}

// Options configure a Bus.
type Options struct {
	// Dir is where run hooks run (the workspace root).
	Dir string
	// Prompter receives prompt hooks; without one they fail.
	Prompter Prompter
	// Report, if set, gets every hook's result (failures are logged
	// through it by the caller); it is called from the hook's goroutine.
	Report func(Result)
	// Context, if set, ends every running hook when it is done (a run
	// hook's process group is killed): a shutting-down actctl does not
	// wait out their timeouts.
	Context context.Context
	// Guard drops prompts caused through too many hooks (nil: a guard of
	// the bus's own, bound MaxChain, warning nobody).
	Guard *Guard
	// Runtime, if set, holds the agents' runtime subscriptions, run as
	// prompt hooks after the config's.
	Runtime *Registry
}

type hook struct {
	name    string
	spec    model.Hook
	timeout time.Duration
}

// Bus dispatches events to the hooks that match them.
type Bus struct {
	opts Options
	wg   sync.WaitGroup

	mu    sync.RWMutex
	hooks []hook
	ctx   context.Context // of the hooks started from now on (Within)

	obs observers // observe.go
}

// New returns a bus for the workspace's hooks (already validated by the
// schema).
func New(hooks map[string]model.Hook, opts Options) (*Bus, error) {
	if opts.Guard == nil {
		opts.Guard = NewGuard(MaxChain, nil)
	}
	b := &Bus{opts: opts, ctx: opts.Context}
	if b.ctx == nil {
		b.ctx = context.Background()
	}
	if err := b.Set(hooks); err != nil {
		return nil, err
	}
	return b, nil
}

// Set replaces the bus's hooks (a process that outlives its config
// cycles keeps one bus); hooks already running go on. On an error the
// hooks stay as they were.
func (b *Bus) Set(hooks map[string]model.Hook) error {
	var hs []hook
	for _, n := range slices.Sorted(maps.Keys(hooks)) {
		h := hook{name: n, spec: hooks[n], timeout: model.DefaultHookTimeout}
		if r := h.spec.Run; r != nil {
			d, err := r.TimeoutDuration()
			if err != nil {
				return fmt.Errorf("hook %s: %w", n, err)
			}
			h.timeout = d
		}
		hs = append(hs, h)
	}
	b.mu.Lock()
	b.hooks = hs
	b.mu.Unlock()
	return nil
}

// Within makes the hooks started from now on end when ctx is done
// instead of Options.Context; those running keep theirs. A process
// shutting down gives the hooks of its last events (process:stop) a
// context of their own, bounded, while it kills those still running.
func (b *Bus) Within(ctx context.Context) {
	b.mu.Lock()
	b.ctx = ctx
	b.mu.Unlock()
}

// current returns the hooks (the config's, then the runtime
// subscriptions) and the context hooks start in now.
func (b *Bus) current() ([]hook, context.Context) {
	b.mu.RLock()
	hs, ctx := b.hooks, b.ctx
	b.mu.RUnlock()
	if b.opts.Runtime != nil {
		hs = append(slices.Clip(hs), b.opts.Runtime.hooks()...)
	}
	return hs, ctx
}

// Matching returns the names of the hooks ev would run, in name order.
func (b *Bus) Matching(ev Event) []string {
	var out []string
	hs, _ := b.current()
	for _, h := range hs {
		if h.matches(ev) {
			out = append(out, h.name)
		}
	}
	return out
}

func (h hook) matches(ev Event) bool {
	if h.spec.On != ev.Name {
		return false
	}
	if len(h.spec.Agents) == 0 {
		return true
	}
	for _, a := range h.spec.Agents {
		if a == ev.Agent {
			return true
		}
	}
	return false
}

// Publish starts every matching hook in its own goroutine and returns at
// once. Its time is set when zero. The hooks of an event that no hook
// caused start a chain (a new root) that every event they cause carries.
func (b *Bus) Publish(ev Event) {
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	b.obs.send(Observation{Event: ev})
	chain := ev.Chain
	hs, ctx := b.current()
	for _, h := range hs {
		if !h.matches(ev) {
			continue
		}
		if chain.Root == "" {
			chain.Root = newRoot()
		}
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			b.fire(ctx, h, ev, chain.Then(h.name))
		}()
	}
}

// Wait blocks until every hook started so far has ended: before a process
// exits, so that hooks get their chance (each is bounded by its timeout).
// Call it once nothing publishes any more (a sync.WaitGroup rule).
func (b *Bus) Wait() { b.wg.Wait() }

// fire runs h for ev within parent; chain is what h causes (ev's
// chain, then h).
func (b *Bus) fire(parent context.Context, h hook, ev Event, chain Chain) {
	start := time.Now()
	res := Result{Hook: h.name, Event: ev}
	ctx, cancel := context.WithTimeout(parent, h.timeout)
	defer cancel()
	switch {
	case h.spec.Run != nil:
		res.Output, res.Err = run(ctx, b.opts.Dir, *h.spec.Run, ev, chain)
		res.Dropped = res.Err != nil && b.opts.Guard.wasDropped(chain)
	case b.opts.Prompter == nil:
		res.Err = errors.New("prompt hooks need `actctl up` (no agent to prompt here)")
	default:
		res.Err = b.opts.Guard.Admit(h.spec.Prompt.Agent, chain)
		res.Dropped = res.Err != nil
		if res.Err == nil {
			res.Err = b.opts.Prompter.Prompt(WithChain(ctx, chain), h.spec.Prompt.Agent, Fill(h.spec.Prompt.Text, ev))
		}
	}
	switch {
	case res.Err == nil:
	case parent.Err() != nil:
		res.Err = fmt.Errorf("cancelled: %w", res.Err)
	case ctx.Err() == context.DeadlineExceeded:
		res.Err = fmt.Errorf("timed out after %v: %w", h.timeout, res.Err)
	}
	res.Duration = time.Since(start)
	if b.opts.Report != nil {
		b.opts.Report(res)
	}
	b.obs.send(Observation{Event: ev, Hook: &res})
}

// placeholder matches {{event.PATH}}. Compiled on first use, not at
// start-up (every actctl command links this package).
var placeholder = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\{\{\s*event\.([A-Za-z0-9_.:-]+)\s*\}\}`)
})

// Fill replaces {{event.PATH}} in text with the value at PATH in the
// event's JSON ({{event.name}}, {{event.agent}}, {{event.time}},
// {{event.data.KEY}}, any depth: {{event.data.payload.issue.title}},
// a list's element by its index, {{event.data.payload.commits.0.id}});
// unknown paths are left as they are.
func Fill(text string, ev Event) string {
	var root map[string]any
	b, _ := json.Marshal(ev)
	json.Unmarshal(b, &root)
	return placeholder().ReplaceAllStringFunc(text, func(m string) string {
		path := placeholder().FindStringSubmatch(m)[1]
		v, ok := lookup(root, strings.Split(path, "."))
		if !ok {
			return m
		}
		if s, ok := v.(string); ok {
			return s
		}
		out, _ := json.Marshal(v)
		return string(out)
	})
}

// lookup follows path through v's objects and lists (an index).
func lookup(v any, path []string) (any, bool) {
	for _, k := range path {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
