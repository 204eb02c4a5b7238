package upserve

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/employee"
	"github.com/actctl/actctl/internal/rpcpeer"
	"github.com/actctl/actctl/plugin"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/tasklog"
	"github.com/actctl/actctl/up"
)

// CheckNames refuses, before anything runs, an unknown agent or one that
// up cannot hold: one that does not offer start, said with the modes it
// offers.
func CheckNames(cfg *schema.Config, names []string) error {
	for _, name := range names {
		if _, ok := cfg.Agents[name]; !ok {
			return agentprep.UnknownAgent(cfg, name)
		}
		r, err := cfg.Resolve(name)
		if err != nil {
			return err
		}
		if !r.HeldByUp() {
			return fmt.Errorf("up: %s", r.NotOffered(schema.InteractStart))
		}
	}
	return nil
}

// Acts is the agents of cfg that up acts on: those named, else every
// autoStart agent it can start (its config warnings are about them).
func Acts(cfg *schema.Config, names []string) []string {
	if len(names) > 0 {
		return names
	}
	var out []string
	for name := range cfg.Agents {
		if r, err := cfg.Resolve(name); err == nil && r.Archetype.AutoStart && r.HeldByUp() {
			out = append(out, name)
		}
	}
	return out
}

// Held is the agents up runs: those named, else every agent up can run
// (schema.Resolved.HeldByUp), sorted.
func Held(cfg *schema.Config, names []string) []string {
	if len(names) > 0 {
		return names
	}
	var out []string
	for _, n := range slices.Sorted(maps.Keys(cfg.Agents)) {
		if r, err := cfg.Resolve(n); err == nil && r.HeldByUp() {
			out = append(out, n)
		}
	}
	return out
}

// cycleSpecs counts a cycle and returns its specs; changed is, per
// agent, the files the cycle's apply changed. An agent's digest names
// the last cycle that changed its files: a later cycle that changes none
// of them keeps it (a mark of this cycle only restarted the agent on the
// next cycle, whatever it changed).
func (s *Server) cycleSpecs(cfg *schema.Config, changed map[string][]string) []up.Spec {
	s.mu.Lock()
	s.cycle++
	for a := range changed {
		s.filesAt[a] = s.cycle
	}
	filesAt := maps.Clone(s.filesAt)
	s.mu.Unlock()
	return s.specs(cfg, filesAt)
}

// specs are the agents up runs under cfg: those named, else every agent
// whose archetype has autoStart.
func (s *Server) specs(cfg *schema.Config, filesAt map[string]int) []up.Spec {
	names := s.o.Names
	if len(names) == 0 {
		names = slices.Sorted(maps.Keys(cfg.Agents))
	}
	var out []up.Spec
	for _, name := range names {
		r, err := cfg.Resolve(name)
		if err != nil {
			s.once(name, "%s: %v", name, err)
			continue
		}
		if len(s.o.Names) == 0 && !r.Archetype.AutoStart {
			continue
		}
		if !r.HeldByUp() {
			s.once(name, "%s: autoStart, but not started: %s", name, r.NotOffered(schema.InteractStart))
			continue
		}
		sp, err := spec(cfg, r, filesAt[name])
		if err != nil {
			s.once(name, "%s: %v", name, err)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// spec derives what up needs of one agent; filesAt is the cycle that
// last changed its files.
func spec(cfg *schema.Config, r *schema.Resolved, filesAt int) (up.Spec, error) {
	sched, err := up.ScheduleOf(r.Template.Schedule)
	if err != nil {
		return up.Spec{}, err
	}
	if r.ArchetypeName != "employee" {
		sched = nil
	} else if sched == nil {
		sched = &schedule.Spec{}
	}
	o, err := agentprep.Resident(cfg, r) // as launch starts it
	if err != nil {
		return up.Spec{}, err
	}
	plugins, err := agentprep.Plugins(cfg, r, cfg.Root) // as Resident's
	if err != nil {
		return up.Spec{}, err
	}
	co := employee.CheckoutOf(cfg.Root, r)
	extra := []any{r.Template.Schedule, r.LaunchMode, fmt.Sprintf("files of cycle %d", filesAt), pluginsOf(cfg, r)}
	var ttl time.Duration
	if r.Archetype.LeaseTTL != "" {
		ttl, _ = time.ParseDuration(r.Archetype.LeaseTTL) // validated when the config loaded
	}
	live := r.Liveness()
	return up.Spec{Root: cfg.Root, Checkout: co, LeaseTTL: ttl, Name: r.Name, Archetype: r.ArchetypeName, LaunchMode: r.LaunchMode, Schedule: sched,
		Workspace: r.Dir, LogsDir: tasklog.Dir(r), Record: runrecord.Path(r), Digest: up.Digest(o, extra...),
		Restart: live.Restart, TurnTimeout: live.TurnTimeout, StallAfter: live.StallAfter, Redact: plugins.Redact, LeaseHooks: leaseHooks(plugins)}, nil
}

// leaseHooks makes the session plugins of a lease connection (nil: the
// agent has none, the lease relays its lines as they are).
func leaseHooks(set *plugin.Set) func(step func(string, acpclient.PluginStep)) *rpcpeer.Hooks {
	if set == nil {
		return nil
	}
	return func(step func(string, acpclient.PluginStep)) *rpcpeer.Hooks {
		return set.Hooks(context.Background(), plugin.RelayOptions{Step: step})
	}
}

// pluginsOf is what of agent r's session plugins shapes its session
// (their names in order and their declarations): the warm process's
// sessions get their Filter when it starts, so a change restarts it
// (docs/plugins.md).
func pluginsOf(cfg *schema.Config, r *schema.Resolved) []any {
	var out []any
	for _, n := range schema.PluginsOf(r) {
		out = append(out, n, cfg.Plugins[n])
	}
	return out
}

// once logs a message about an agent the first time only.
func (s *Server) once(agent, format string, args ...any) {
	s.mu.Lock()
	seen := s.logged[agent]
	s.logged[agent] = true
	s.mu.Unlock()
	if !seen {
		s.logf(format, args...)
	}
}
