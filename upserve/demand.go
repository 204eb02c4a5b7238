package upserve

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/dashboard"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/supervise"
	"github.com/actctl/actctl/up"
)

// The repo and tool agents (docs/dashboard.md, "Repo and tool agents"):
// up never starts them by itself, but holds them on demand in a manager
// of their own (Server.od), so that the dashboard shows them and talks
// with them. A conversation starts the agent's process (as `actctl chat`
// starts it: its backend's acp command, its own cwd policy, the workspace
// root as the client's project); it stops once no conversation holds it,
// and with up. The control socket reaches them too (control.go): a lease
// (`actctl chat`, `proxy --lease`) or a prompt starts the process as a
// conversation does and holds it while it lasts; `status` shows it.

// demandManager is the manager of the on-demand agents: up's options,
// their own launch.
func (s *Server) demandManager() *up.Manager {
	launch := s.o.Launch
	if launch == nil {
		launch = s.launchDemand
	}
	return up.New(up.Options{Launch: launch, Publish: s.publish, Logf: s.o.Logf, Grace: s.o.Grace, Loops: s.o.Loops,
		StartTimeout: s.o.StartTimeout, TurnGrace: s.o.TurnGrace, TaskStarted: s.taskStarted, Settled: s.o.Settled})
}

// onDemand reports whether r is an agent up holds on demand: one it does
// not run (no start) that offers chat (an acp command).
func onDemand(r *schema.Resolved) bool {
	return !r.HeldByUp() && r.Offer(schema.InteractChat)
}

// demandSpecs are the on-demand agents of cfg.
func (s *Server) demandSpecs(cfg *schema.Config) []up.Spec {
	s.mu.Lock()
	filesAt := maps.Clone(s.filesAt)
	s.mu.Unlock()
	var out []up.Spec
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents)) {
		r, err := cfg.Resolve(name)
		if err != nil || !onDemand(r) {
			continue
		}
		sp, err := spec(cfg, r, filesAt[name])
		if err != nil {
			s.once(name, "%s: %v", name, err)
			continue
		}
		sp.OnDemand, sp.Restart, sp.Schedule, sp.Checkout = true, "never", nil, nil
		out = append(out, sp)
	}
	return out
}

// launchDemand starts an on-demand agent's backend as `actctl chat` does
// from the workspace's root (agentprep.Backend: its session cwd policy
// picks the root or its workspace), refusing while another process
// serves it (its runtime record names a live one: an `actctl chat` of
// it, an attached process).
func (s *Server) launchDemand(ctx context.Context, agent string, obs acpclient.Observer) (*acpclient.Client, error) {
	cfg := s.cfg.Load()
	r, err := cfg.Resolve(agent)
	if err != nil {
		return nil, err
	}
	if rec, err := runrecord.Read(runrecord.Path(r)); err == nil && rec.Live() {
		return nil, fmt.Errorf("process %d serves %s already (%s); up starts no second one", rec.PID, agent, rec.ProcessOwnership)
	}
	o, err := agentprep.Backend(cfg, r, cfg.Root, "")
	if err != nil {
		return nil, err
	}
	o.Observer, o.Grace = obs, s.o.Grace
	o.Warn = func(msg string) { s.logf("%s: warning: %s", agent, msg) }
	return agentprep.StartLogged(ctx, r, o)
}

// shutdownAgents stops the agents up runs and the on-demand ones, side
// by side (each within its grace).
func (s *Server) shutdownAgents() {
	var wg sync.WaitGroup
	for _, m := range []*up.Manager{s.m, s.od} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.Shutdown()
		}()
	}
	wg.Wait()
}

// manager is the manager that holds agent: the on-demand one's, else
// up's (which names the agents it runs when it holds none of that name).
func (s *Server) manager(agent string) *up.Manager {
	if _, err := s.od.StatusOf(agent); err == nil {
		return s.od
	}
	return s.m
}

// notOnDemand refuses what up does only for the agents it runs (start,
// stop, restart; the dashboard's one-shot prompt box) on an agent it
// holds on demand.
func (s *Server) notOnDemand(agent string) error {
	if s.manager(agent) != s.od {
		return nil
	}
	return fmt.Errorf("up holds %s on demand: a conversation (its page, actctl chat %s) starts its process, which stops once none holds it (no start or stop of its own)", agent, agent)
}

// demandStatus is what `actctl status` hears of the on-demand agents:
// those whose process runs ("in conversation", as their card says) or
// ended in a crash. One with no process is left out: status then reads
// its runtime record, which names a process of its own (a cold chat's).
func (s *Server) demandStatus() []up.AgentStatus {
	var out []up.AgentStatus
	for _, st := range s.od.Status() {
		switch st.State {
		case supervise.Created, supervise.Stopped:
			continue
		case supervise.Running:
			st.State, st.LastError = dashboard.StateInConversation, "" // a crash before this process
		}
		out = append(out, st)
	}
	return out
}

// sessions are the dashboard's conversations and task controls, each
// asked of the manager that holds the agent.
type sessions struct{ s *Server }

func (x sessions) CancelTask(agent string, id uint64) error {
	return x.s.manager(agent).CancelTask(agent, id)
}

func (x sessions) NewConversation(ctx context.Context, agent string) (string, error) {
	return x.s.manager(agent).NewConversation(ctx, agent)
}

func (x sessions) Conversations(agent string) ([]up.Conversation, error) {
	return x.s.manager(agent).Conversations(agent)
}

func (x sessions) Conversation(agent, id string) (up.Conversation, error) {
	return x.s.manager(agent).Conversation(agent, id)
}

func (x sessions) Say(ctx context.Context, agent, id, text string) (uint64, error) {
	return x.s.manager(agent).Say(ctx, agent, id, text)
}

func (x sessions) CancelTurn(agent, id string) error { return x.s.manager(agent).CancelTurn(agent, id) }

func (x sessions) Answer(agent, id, call, option string) error {
	return x.s.manager(agent).Answer(agent, id, call, option)
}

func (x sessions) CloseConversation(agent, id string) error {
	return x.s.manager(agent).CloseConversation(agent, id)
}
