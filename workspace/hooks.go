package workspace

import (
	"context"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/actctl/actctl/deploy"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
)

// applyEvents fires agent:created, agent:modified and agent:destroyed
// hooks for what an apply did (docs/runtime.md). It reads, before the
// apply, which agents the state already holds: an agent it did not hold
// was created.
type applyEvents struct {
	bus   *hooks.Bus
	known map[string]*reconcile.AgentState
}

// newApplyEvents returns nil when no hook listens to agent:* events, so
// an apply without such hooks reads nothing more. Hooks still running
// when ctx ends are killed.
func newApplyEvents(ctx context.Context, o Options, cfg *schema.Config) *applyEvents {
	bus := hookBus(ctx, o, cfg, func(on string) bool { return strings.HasPrefix(on, "agent:") })
	if bus == nil {
		return nil
	}
	st, err := RecordedState(cfg)
	if err != nil {
		o.warn("hooks: %v", err)
		return nil
	}
	return &applyEvents{bus: bus, known: st.Agents}
}

// hookBus returns a bus for the hooks whose event passes want, failures
// reported as warnings; nil when there is none.
func hookBus(ctx context.Context, o Options, cfg *schema.Config, want func(on string) bool) *hooks.Bus {
	listens := map[string]schema.Hook{}
	for name, h := range cfg.Hooks {
		if want(h.On) {
			listens[name] = h
		}
	}
	if len(listens) == 0 {
		return nil
	}
	bus, err := hooks.New(listens, hooks.Options{Dir: cfg.Root, Context: ctx, Prompter: o.Prompter, Guard: o.Loops, Report: func(r hooks.Result) { ReportHook(o.Stderr, r) }})
	if err != nil {
		o.warn("hooks: %v", err)
		return nil
	}
	return bus
}

// fire publishes one event per agent the apply changed; the hooks run in
// the background (see wait).
func (a *applyEvents) fire(res *Result) {
	if a == nil || res == nil || res.DryRun {
		return
	}
	files := ChangedFiles(res)
	now := time.Now()
	pruned := map[string]bool{}
	for _, name := range res.Pruned {
		pruned[name] = true
		if strings.HasPrefix(name, deploy.OwnerPrefix) {
			continue // a deploy target's files, no agent (docs/deploy.md)
		}
		a.bus.Publish(hooks.Event{Name: schema.EventAgentDestroyed, Agent: name, Time: now})
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if pruned[name] || strings.HasPrefix(name, deploy.OwnerPrefix) {
			continue
		}
		ev := hooks.Event{Name: schema.EventAgentModified, Agent: name, Time: now, Data: map[string]any{"files": files[name]}}
		if a.known[name] == nil {
			ev.Name = schema.EventAgentCreated
		}
		a.bus.Publish(ev)
	}
}

// wait blocks until the hooks fired have ended (each is bounded by its
// timeout), so that none outlives actctl.
func (a *applyEvents) wait() {
	if a != nil {
		a.bus.Wait()
	}
}

// ReportHook prints a failed hook r as a warning on w; a hook that
// succeeded, or was dropped as a loop, prints nothing.
func ReportHook(w io.Writer, r hooks.Result) {
	if r.Err == nil || r.Dropped {
		return // a dropped loop: the guard warned once for its chain
	}
	msg := r.Err.Error()
	if r.Output != "" {
		msg += ": " + r.Output
	}
	warnf(w, "hook %s (%s %s): %s", r.Hook, r.Event.Name, r.Event.Agent, msg)
}

// Background tracks hooks still running after their cycle, for a watch
// (or hub update) that must not wait for them between cycles but must
// before it exits.
type Background struct{ wg sync.WaitGroup }

// Wait blocks until every hook b tracks has ended.
func (b *Background) Wait() { b.wg.Wait() }

func (b *Background) add(a *applyEvents) {
	if a == nil {
		return
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		a.wait()
	}()
}

// SourceUpdated fires source:updated hooks for a hub source that moved;
// bg tracks them.
func SourceUpdated(ctx context.Context, o Options, cfg *schema.Config, bg *Background, name, from, to string) {
	bus := hookBus(ctx, o, cfg, func(on string) bool { return on == schema.EventSourceUpdated })
	if bus == nil {
		return
	}
	bus.Publish(hooks.Event{Name: schema.EventSourceUpdated, Data: map[string]any{"source": name, "from": from, "to": to}})
	bg.add(&applyEvents{bus: bus})
}

// ChangedFiles is, per agent, the files an apply created, updated,
// deleted or restored.
func ChangedFiles(res *Result) map[string][]string {
	files := map[string][]string{}
	for _, it := range res.Items {
		switch it.Action {
		case reconcile.ActCreate, reconcile.ActUpdate, reconcile.ActDelete, reconcile.ActRestore:
			for _, ag := range it.Agents {
				files[ag] = append(files[ag], it.Path)
			}
		}
	}
	return files
}
