package agentprep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/plugin"
	"github.com/actctl/actctl/schema"
)

// withPlugins adds agent r's session plugins to o (docs/plugins.md): the
// Filter of each session its client opens; agent plugins ask their
// sub-agents through SubAgent.
func withPlugins(o *acpclient.Options, cfg *schema.Config, r *schema.Resolved, clientDir string) error {
	set, err := Plugins(cfg, r, clientDir)
	if err != nil {
		return err
	}
	o.Filter = set.FilterFunc()
	return nil
}

// Plugins is agent r's session plugins (nil: none) for a client whose
// project is clientDir: agent plugins ask their sub-agents through
// SubAgents.
func Plugins(cfg *schema.Config, r *schema.Resolved, clientDir string) (*plugin.Set, error) {
	return plugin.ForAgent(cfg, r, plugin.Options{SubAgents: SubAgents(cfg, clientDir)})
}

// Plugins is the prepared agent's session plugins (`actctl proxy` runs
// them on the relay: docs/plugins.md).
func (p *Prepared) Plugins() (*plugin.Set, error) {
	return Plugins(p.Config, p.Agent, p.ClientDir)
}

// SubAgents is plugin.Options.SubAgents (docs/plugins.md, "The model"):
// per main session and agent plugin, one sub-agent session, on the
// agent (or an ephemeral agent of the template) the plugin names,
// prepared as `actctl run` prepares it, under the plugin's preset, with
// no plugins of its own, started on the plugin's first turn and used
// again by the next ones (one at a time), until the main session ends;
// the reply is the text of its message chunks. Its backend's stderr is
// dropped (a sub-agent has no client to show it to); a failure names
// its exit and stderr tail, and the next turn starts a new one.
func SubAgents(cfg *schema.Config, clientDir string) func() plugin.SubAgents {
	return func() plugin.SubAgents {
		return &subAgents{cfg: cfg, clientDir: clientDir, byPlugin: map[string]*subAgent{}}
	}
}

// subAgents are one main session's sub-agents, by plugin.
type subAgents struct {
	cfg       *schema.Config
	clientDir string

	mu       sync.Mutex
	byPlugin map[string]*subAgent
	closed   bool
}

// subAgent is one plugin's sub-agent: turn holds its one turn at a time
// (and the start of its backend); c and p are under subAgents.mu.
type subAgent struct {
	turn  chan struct{} // a semaphore of one
	p     *Prepared     // nil until started
	c     *acpclient.Client
	reply *replyText
}

func (sa *subAgents) Ask(ctx context.Context, t plugin.AgentTurn) (reply string, err error) {
	sa.mu.Lock()
	if sa.closed {
		sa.mu.Unlock()
		return "", errEnded
	}
	a := sa.byPlugin[t.Plugin]
	if a == nil {
		a = &subAgent{turn: make(chan struct{}, 1)}
		sa.byPlugin[t.Plugin] = a
	}
	sa.mu.Unlock()
	select {
	case a.turn <- struct{}{}:
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
	defer func() { sa.release(a, err != nil) }()
	sa.mu.Lock()
	c := a.c
	sa.mu.Unlock()
	if c == nil {
		if c, err = sa.start(ctx, a, t); err != nil {
			return "", err
		}
	}
	return a.ask(ctx, c, t)
}

// release ends a's turn; a's backend is stopped after a failure (the
// next turn starts a new one) or once the main session ended (Close).
// The check and the release are one step under mu, as Close's are.
func (sa *subAgents) release(a *subAgent, failed bool) {
	sa.mu.Lock()
	var c *acpclient.Client
	var p *Prepared
	if failed || sa.closed {
		c, p, a.c, a.p = a.c, a.p, nil, nil
	}
	<-a.turn
	sa.mu.Unlock()
	stopBackend(c, p)
}

// stopBackend ends a sub-agent's backend and what was prepared for it.
func stopBackend(c *acpclient.Client, p *Prepared) {
	if c != nil {
		c.Close()
	}
	if p != nil {
		p.Cleanup()
	}
}

// errEnded is a sub-agent turn asked after its main session ended.
var errEnded = errors.New("the session has ended")

// start prepares and starts a's backend for t's agent and preset.
func (sa *subAgents) start(ctx context.Context, a *subAgent, t plugin.AgentTurn) (*acpclient.Client, error) {
	req := Request{Verb: VerbRun, ClientDir: sa.clientDir}
	if _, ok := sa.cfg.Agents[t.Agent]; ok {
		req.Name = t.Agent
	} else {
		req.Template = t.Agent
	}
	p, err := prepareSubAgent(ctx, sa.cfg, req)
	if err != nil {
		return nil, err
	}
	o, err := Backend(p.Config, p.Agent, p.ClientDir, acpclient.RuleFor(schema.Permissions{Preset: t.Preset}))
	if err != nil {
		p.Cleanup()
		return nil, err
	}
	o.Filter = nil // a sub-agent runs no plugins: none asks itself
	a.reply = &replyText{}
	o.Observer = a.reply
	c, err := acpclient.Start(ctx, o)
	if err != nil {
		p.Cleanup()
		return nil, fmt.Errorf("agent %s: %w", p.Agent.Name, err)
	}
	sa.mu.Lock()
	a.p, a.c = p, c
	sa.mu.Unlock()
	return c, nil
}

// ask runs one turn of a's session on c.
func (a *subAgent) ask(ctx context.Context, c *acpclient.Client, t plugin.AgentTurn) (string, error) {
	a.reply.reset()
	res, err := c.Prompt(ctx, t.Prompt)
	if err != nil {
		return "", fmt.Errorf("agent %s: %w", t.Agent, err)
	}
	if res.StopReason != acp.StopReasonEndTurn {
		return "", fmt.Errorf("agent %s: the turn ended: %s", t.Agent, res.StopReason)
	}
	return a.reply.String(), nil
}

// Close ends the sub-agents: an idle one here, one whose turn runs by
// cutting the turn short (its Ask then stops it: release).
func (sa *subAgents) Close() {
	type backend struct {
		c *acpclient.Client
		p *Prepared
	}
	var idle []backend
	var running []*acpclient.Client
	sa.mu.Lock()
	sa.closed = true
	for _, a := range sa.byPlugin {
		select {
		case a.turn <- struct{}{}:
			idle = append(idle, backend{a.c, a.p})
			a.c, a.p = nil, nil
			<-a.turn
		default:
			if a.c != nil {
				running = append(running, a.c)
			}
		}
	}
	sa.mu.Unlock()
	for _, b := range idle {
		stopBackend(b.c, b.p)
	}
	for _, c := range running {
		c.Close()
	}
}

// subAgentMu serialises the preparation of sub-agents: Choose adds the
// agent it makes to the config it is given.
var subAgentMu sync.Mutex

// prepareSubAgent prepares a sub-agent on a copy of cfg whose agents are
// its own, so that the client's config is left as it was.
func prepareSubAgent(ctx context.Context, cfg *schema.Config, req Request) (*Prepared, error) {
	subAgentMu.Lock()
	defer subAgentMu.Unlock()
	own := *cfg
	own.Agents = maps.Clone(cfg.Agents)
	return Prepare(ctx, &own, req, Options{Stderr: io.Discard})
}

// replyText collects the text of a session's agent message chunks.
type replyText struct {
	mu sync.Mutex
	b  strings.Builder
}

func (r *replyText) Message([]byte) {}

func (r *replyText) Event(e acpclient.Event) {
	if e.Kind == acpclient.EventText {
		r.mu.Lock()
		r.b.WriteString(e.Text)
		r.mu.Unlock()
	}
}

func (r *replyText) reset() {
	r.mu.Lock()
	r.b.Reset()
	r.mu.Unlock()
}

func (r *replyText) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.b.String()
}
