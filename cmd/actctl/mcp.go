package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/mcpserver"
	"github.com/actctl/actctl/schema"
)

func init() {
	register(&cli.Command{
		Name:  "mcp",
		Usage: "serve the workspace's agents as MCP tools on stdio (list_agents, agent_status, run_agent, prompt_agent)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "as", EnvVars: []string{launch.AgentVar}, Usage: "the calling `AGENT`: its archetype decides which tools it gets (default: a person, every tool)"},
		},
		OnUsageError: usageErrors,
		Action:       mcpCmd,
	})
}

// mcpCmd serves package mcpserver on stdin and stdout until the client
// goes or a signal comes (docs/run.md, "actctl mcp").
func mcpCmd(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("mcp: takes no arguments")
	}
	g := globalsOf(c)
	cfg, err := g.Load()
	if err != nil {
		return err
	}
	// Once a signal came, the next one ends actctl at once, even while
	// the running turns are being stopped.
	ctx, _, stop := onSignals(servePolicy)
	defer stop()
	chain, err := mcpserver.JoinChain()
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	s := mcpserver.New(cfg, mcpserver.Options{Root: cfg.Root, Caller: c.String("as"), Chain: chain, Version: actctlVersion(),
		Runner: mcpRunner{root: cfg.Root, home: g.Home}})
	if err := s.Serve(ctx, mcpserver.Stdio(os.Stdin, os.Stdout, g.Stderr)); err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// mcpRunner is what the MCP tools need of actctl's commands: the config,
// status, run and up's control socket, for the workspace at root.
type mcpRunner struct{ root, home string }

// globals are those of a command run in the workspace, writing to stdout
// and stderr.
func (r mcpRunner) globals(stdout, stderr io.Writer) *globals {
	return &globals{Dir: r.root, Home: r.home, Output: "text", NoColor: true, Stdout: stdout, Stderr: stderr}
}

func (r mcpRunner) Load(warn io.Writer) (*schema.Config, error) {
	return r.globals(io.Discard, warn).Load()
}

func (r mcpRunner) Status(cfg *schema.Config, agent string) (mcpserver.AgentStatusOut, error) {
	sts, err := agentStatuses(cfg, []string{agent}, nil)
	if err != nil {
		return mcpserver.AgentStatusOut{}, err
	}
	if len(sts) != 1 {
		return mcpserver.AgentStatusOut{}, fmt.Errorf("agent %q: no status", agent)
	}
	return mcpserver.AgentStatusOut{AgentStatus: sts[0].AgentStatus, Process: (*mcpserver.Process)(sts[0].Process)}, nil
}

func (r mcpRunner) Run(ctx context.Context, t mcpserver.Turn, reply, log io.Writer) (mcpserver.TurnResult, error) {
	if t.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, t.Timeout, exitStatus(exitTimeout, "timed out after "+t.Timeout.String()))
		defer cancel()
	}
	name, res, err := runTurn(ctx, r.globals(reply, log), agentSpec{agent: t.Agent, template: t.Template, cwd: t.Cwd}, t.Prompt)
	out := mcpserver.TurnResult{Agent: name, StopReason: string(res.StopReason), SessionID: res.SessionID}
	if err != nil {
		out.ExitCode = codeOf(err)
	}
	return out, err
}

func (r mcpRunner) Up(ctx context.Context, req control.Request, onFrame func(control.Frame), result any) error {
	return callUp(ctx, r.globals(io.Discard, io.Discard), req, onFrame, result)
}
