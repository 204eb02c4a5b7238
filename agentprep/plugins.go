package agentprep

import (
	"context"
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
// SubAgent.
func Plugins(cfg *schema.Config, r *schema.Resolved, clientDir string) (*plugin.Set, error) {
	return plugin.ForAgent(cfg, r, plugin.Options{Runner: SubAgent(cfg, clientDir)})
}

// Plugins is the prepared agent's session plugins (`actctl proxy` runs
// them on the relay: docs/plugins.md).
func (p *Prepared) Plugins() (*plugin.Set, error) {
	return Plugins(p.Config, p.Agent, p.ClientDir)
}

// SubAgent is the plugin.Runner of agent plugins (docs/plugins.md): the
// agent (or an ephemeral agent of the template) the plugin names,
// prepared as `actctl run` prepares it, one turn under the plugin's
// preset, with no plugins of its own; the reply is the text of its
// message chunks. Its backend's stderr is dropped (a sub-agent has no
// client to show it to); a failure names its exit and stderr tail.
func SubAgent(cfg *schema.Config, clientDir string) plugin.Runner {
	return func(ctx context.Context, t plugin.AgentTurn) (string, error) {
		req := Request{Verb: VerbRun, ClientDir: clientDir}
		if _, ok := cfg.Agents[t.Agent]; ok {
			req.Name = t.Agent
		} else {
			req.Template = t.Agent
		}
		p, err := prepareSubAgent(ctx, cfg, req)
		if err != nil {
			return "", err
		}
		defer p.Cleanup()
		o, err := Backend(p.Config, p.Agent, p.ClientDir, acpclient.RuleFor(schema.Permissions{Preset: t.Preset}))
		if err != nil {
			return "", err
		}
		o.Filter = nil // a sub-agent runs no plugins: none asks itself
		var reply replyText
		o.Observer = &reply
		c, err := acpclient.Start(ctx, o)
		if err != nil {
			return "", fmt.Errorf("agent %s: %w", p.Agent.Name, err)
		}
		defer c.Close()
		res, err := c.Prompt(ctx, t.Prompt)
		if err != nil {
			return "", fmt.Errorf("agent %s: %w", p.Agent.Name, err)
		}
		if res.StopReason != acp.StopReasonEndTurn {
			return "", fmt.Errorf("agent %s: the turn ended: %s", p.Agent.Name, res.StopReason)
		}
		return reply.String(), nil
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

func (r *replyText) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.b.String()
}
