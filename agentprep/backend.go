package agentprep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/employee"
	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schema"
)

// Backend is how actctl's ACP client starts agent r (run, chat, task,
// up, the MCP tool run_agent): its backend's acp command, its MCP
// servers, the permission rule (rule, else the agent's preset and its
// own allow, deny and ask rules), the
// session mode that goes with it and the preset, which binds the client
// methods the agent may call, and its session plugins (docs/plugins.md);
// clientDir is the client's project (docs/run.md).
func Backend(cfg *schema.Config, r *schema.Resolved, clientDir string, rule acpclient.Rule) (acpclient.Options, error) {
	l, err := launch.Resolve(r, schema.ModeACP)
	if err != nil {
		return acpclient.Options{}, err
	}
	lookup := func(ref string) (schema.MCPServer, bool) { return cfg.MCPServerFor(ref, r.Name) }
	mcp, err := acpclient.MCPServers(lookup, r.Template.MCPServers)
	if err != nil {
		return acpclient.Options{}, fmt.Errorf("agent %s: %w", r.Name, err)
	}
	preset := acpclient.RuleFor(r.Permissions)
	mode := acpclient.ModeFor(r.Permissions)
	rules := acpclient.RulesOf(r.Permissions)
	if rule == "" {
		rule = preset
	} else {
		// A flag answers what the mode would; the config's deny rules
		// still hold.
		mode = acpclient.ModeForRule(rule, mode)
		rules = rules.Denials()
	}
	o := acpclient.Options{Launch: l, ClientCwd: clientDir, MCPServers: mcp, Rule: rule, Rules: rules, Mode: mode, Preset: preset,
		Instance: r.Archetype.Workspace == schema.WorkspaceInstance}
	if err := withPlugins(&o, cfg, r, clientDir); err != nil {
		return acpclient.Options{}, err
	}
	return o, nil
}

// Backend is how the client of the prepared agent starts its backend:
// Backend with the client's project, rule overriding the preset ("" keeps
// it).
func (p *Prepared) Backend(rule acpclient.Rule) (acpclient.Options, error) {
	return Backend(p.Config, p.Agent, p.ClientDir, rule)
}

// Resident is how `up` and `task` start agent r, which has no client
// project: Backend with the agent's preset and its workspace as the
// session's cwd, or an employee's checkout when it declares one
// (docs/runtime.md). The checkout is not synced here.
func Resident(cfg *schema.Config, r *schema.Resolved) (acpclient.Options, error) {
	o, err := Backend(cfg, r, r.Dir, "")
	if err != nil {
		return acpclient.Options{}, err
	}
	// Its agent plugins' sub-agents are asked from the workspace's root:
	// its own directory may be an instance's, no client's project.
	if err := withPlugins(&o, cfg, r, cfg.Root); err != nil {
		return acpclient.Options{}, err
	}
	employee.CheckoutCwd(&o, employee.CheckoutOf(cfg.Root, r))
	return o, nil
}

// SyncCheckout syncs an employee's checkout, if it declares one, before
// up starts its process: the session's cwd that Resident gives must
// exist. up syncs it again before each task (docs/runtime.md).
func SyncCheckout(ctx context.Context, cfg *schema.Config, r *schema.Resolved) error {
	co := employee.CheckoutOf(cfg.Root, r)
	if co == nil {
		return nil
	}
	_, err := co.Sync(ctx)
	return err
}

// OpenLog opens (appending) agent r's log file, which receives its
// backend's stderr (proxy sessions log there too).
func OpenLog(r *schema.Resolved) (*os.File, error) {
	p := runrecord.LogPath(r)
	if err := layout.NoLinks(r.Dir, p); err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	// Never through a link (a checkout may bring one): the agent's
	// stderr would land in the file it names.
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND|layout.NoFollow, 0o644)
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	return f, nil
}

// StartLogged starts the backend o describes (acpclient.Start) with its
// stderr appended to agent r's log (OpenLog; none when it cannot be
// opened), the file closed when the backend ends: how up and task start
// a resident agent.
func StartLogged(ctx context.Context, r *schema.Resolved, o acpclient.Options) (*acpclient.Client, error) {
	log, lerr := OpenLog(r)
	if lerr == nil {
		o.BackendStderr = log
	}
	c, err := acpclient.Start(ctx, o)
	if log != nil {
		if err != nil {
			log.Close()
		} else {
			c.AfterDone(func() { log.Close() })
		}
	}
	return c, err
}
