package main

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
)

// applyEvents fires agent:created, agent:modified and agent:destroyed
// hooks for what an apply did (docs/runtime.md). It reads, before the
// apply, which agents the state already holds: an agent it did not hold
// was created.
type applyEvents struct {
	g     *globals
	bus   *hooks.Bus
	known map[string]*reconcile.AgentState
}

// newApplyEvents returns nil when no hook listens to agent:* events, so
// an apply without such hooks reads nothing more.
func newApplyEvents(g *globals, cfg *schema.Config) *applyEvents {
	listens := map[string]schema.Hook{}
	for name, h := range cfg.Hooks {
		if strings.HasPrefix(h.On, "agent:") {
			listens[name] = h
		}
	}
	if len(listens) == 0 {
		return nil
	}
	a := &applyEvents{g: g}
	bus, err := hooks.New(listens, hooks.Options{Dir: cfg.Root, Report: a.report})
	if err != nil {
		g.Warn("hooks: %v", err)
		return nil
	}
	st, _, err := reconcile.ReadState(filepath.Join(cfg.Root, reconcile.MetaDir, reconcile.StateFile))
	if err != nil {
		g.Warn("hooks: %v", err)
		return nil
	}
	a.bus, a.known = bus, st.Agents
	return a
}

// fire publishes one event per agent the apply changed and waits for the
// hooks (each bounded by its timeout), so that none outlives actctl.
func (a *applyEvents) fire(res *reconcile.Result) {
	if a == nil || res == nil || res.DryRun {
		return
	}
	files := map[string][]string{}
	for _, it := range res.Items {
		switch it.Action {
		case reconcile.ActCreate, reconcile.ActUpdate, reconcile.ActDelete, reconcile.ActRestore:
			for _, ag := range it.Agents {
				files[ag] = append(files[ag], it.Path)
			}
		}
	}
	now := time.Now()
	pruned := map[string]bool{}
	for _, name := range res.Pruned {
		pruned[name] = true
		a.bus.Publish(hooks.Event{Name: "agent:destroyed", Agent: name, Time: now})
	}
	for _, name := range sortedNames(files) {
		if pruned[name] {
			continue
		}
		ev := hooks.Event{Name: "agent:modified", Agent: name, Time: now, Data: map[string]any{"files": files[name]}}
		if a.known[name] == nil {
			ev.Name = "agent:created"
		}
		a.bus.Publish(ev)
	}
	a.bus.Wait()
}

func (a *applyEvents) report(r hooks.Result) {
	if r.Err == nil {
		return
	}
	msg := r.Err.Error()
	if r.Output != "" {
		msg += ": " + r.Output
	}
	a.g.Warn("hook %s (%s %s): %s", r.Hook, r.Event.Name, r.Event.Agent, msg)
}
