package upserve

import (
	"context"
	"io"
	"net"
	"strings"
	"time"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/webhook"
)

// WatchFunc runs the watch loop of the workspace until ctx ends, calling
// after with each cycle's config (nil when it did not load) and, per
// agent, the files its apply changed (nil when the apply failed).
type WatchFunc func(ctx context.Context, after func(cfg *schema.Config, changed map[string][]string)) error

// Serve is what Run serves: the workspace's first config, the control
// socket and its owner, the dashboard plan and the watch loop.
type Serve struct {
	Config  *schema.Config
	Control net.Listener
	// Owner is the control directory's owner: closed once the agents
	// stopped (control.Acquire).
	Owner io.Closer
	// UI is the dashboard to serve (nil: none).
	UI    *UIPlan
	Watch WatchFunc
}

// Run serves the control socket, the dashboard and the webhooks while the
// watch loop keeps the agents in line with the config; once ctx ends (or
// the loop fails) it publishes actctl:stop, stops every agent and waits
// for the hooks. It returns the loop's error.
func (s *Server) Run(ctx context.Context, sv Serve) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = ctx
	cfg := sv.Config
	if err := control.RemoveUI(cfg.Root); err != nil { // a killed up's
		return err
	}
	if sv.UI != nil {
		stopUI, err := s.startUI(sv.UI, cfg.Root, cfg.Home)
		if err != nil {
			return err
		}
		defer stopUI()
	}
	served := make(chan error, 1)
	// Until the socket is closed, a request that comes while up stops
	// is told so.
	go func() { served <- control.ServeUntilClosed(ctx, sv.Control, handler{s.m, s}) }()
	s.logf("control socket %s; Ctrl-C stops every agent", sv.Control.Addr())
	if wh := s.webhooks; wh != nil {
		wh.serve(ctx)
		s.logf("webhooks on http://%s/webhooks/ (%s)", wh.ln.Addr(), webhookNames(cfg))
	} else if len(cfg.Webhooks) > 0 {
		s.logf("actant.cue declares webhooks (%s) but up serves none: give --webhooks ADDR (127.0.0.1:8787) to serve them", webhookNames(cfg))
	}
	err := sv.Watch(ctx, s.after)
	s.LastEvents()
	s.publish(hooks.Event{Name: schema.EventActctlStop, Data: map[string]any{"reason": s.stopReason(err)}})
	cancel()
	s.shutdown(sv.Owner, served)
	return err
}

// shutdown stops every agent, then the control socket and the webhooks,
// and waits for the hooks (those of the last events ShutdownHookGrace at
// most) and the hook turns.
func (s *Server) shutdown(owner io.Closer, served <-chan error) {
	s.logf("stopping")
	s.shutdownAgents()
	if cerr := owner.Close(); cerr != nil {
		s.logf("%v", cerr)
	}
	<-served
	if werr := s.webhooks.wait(); werr != nil {
		s.logf("webhooks: %v", werr)
	}
	bound := time.AfterFunc(ShutdownHookGrace, s.endHooks)
	s.wait()
	s.prompter.wait()
	bound.Stop()
}

// after is called after every watch cycle: the agents to run follow the
// config, and those whose files or launch changed are restarted.
func (s *Server) after(cfg *schema.Config, changed map[string][]string) {
	if cfg == nil {
		return // the config did not load: keep what runs
	}
	s.cfg.Store(cfg)
	s.setBus(cfg)
	s.webhooks.set(cfg, s.o.Warn)
	specs := s.cycleSpecs(cfg, changed)
	s.m.Sync(specs)
	s.od.Sync(s.demandSpecs(cfg))
	s.started.Do(func() { s.publish(s.startEvent(specs)) })
}

// launch starts agent's backend as an ACP client, as `actctl run` does,
// with its workspace as the session's cwd (up has no client project).
func (s *Server) launch(ctx context.Context, agent string, obs acpclient.Observer) (*acpclient.Client, error) {
	cfg := s.cfg.Load()
	r, err := cfg.Resolve(agent)
	if err != nil {
		return nil, err
	}
	o, err := agentprep.Resident(cfg, r)
	if err != nil {
		return nil, err
	}
	if err := agentprep.SyncCheckout(ctx, cfg, r); err != nil {
		return nil, err
	}
	o.Observer, o.Grace = obs, s.o.Grace
	o.Warn = func(msg string) { s.logf("%s: warning: %s", agent, msg) }
	return agentprep.StartLogged(ctx, r, o)
}

// setBus gives the bus of the runtime events cfg's hooks (agent:* and
// source:updated are the watch loop's). up keeps one bus for its life:
// every cycle sets its hooks, so nothing grows with the cycles.
func (s *Server) setBus(cfg *schema.Config) {
	listens := map[string]schema.Hook{}
	for name, h := range cfg.Hooks {
		if !strings.HasPrefix(h.On, "agent:") && h.On != "source:updated" {
			listens[name] = h
		}
	}
	if b := s.bus.Load(); b != nil {
		if err := b.Set(listens); err != nil {
			s.o.Warn("hooks: %v", err)
			_ = b.Set(nil) // as a bus that failed to build: no hook runs
		}
		return
	}
	b, err := hooks.New(listens, hooks.Options{Dir: cfg.Root, Context: s.ctx, Prompter: s.prompter, Guard: s.o.Loops, Runtime: s.subs,
		Report: s.o.Report})
	if err != nil {
		s.o.Warn("hooks: %v", err)
		return
	}
	s.observe(b)
	s.bus.Store(b)
}

// delivered publishes a webhook's accepted delivery (from the
// listener's worker).
func (s *Server) delivered(d webhook.Delivery) {
	s.logf("webhook %s: %s delivery %s", d.Webhook, d.Event, d.Delivery)
	s.publish(webhookEvent(d))
}
