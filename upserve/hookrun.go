package upserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/mcpserver"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/up"
)

// hookTurnTimeout bounds the turn a prompt hook runs on an agent up does
// not hold, as run_agent's and a task's are bounded.
const hookTurnTimeout = 30 * time.Minute

// hookPrompter is up's Prompter of prompt hooks (docs/runtime.md,
// "Hooks"): an agent up runs gets a task on its queue (up.HookPrompter);
// one it never holds (a tool or repo agent, launchMode direct) that
// offers `run` gets the prompt as `actctl run` gives it: one session on a
// backend of its own, its own cwd policy, the workspace root as the
// client's project. Such turns are not waited for by the hook (they
// outlive its timeout); one agent's run one after another; up waits for
// them at its stop (wait), cancelling them with up's context.
type hookPrompter struct {
	s *Server

	wg   sync.WaitGroup
	mu   sync.Mutex
	busy map[string]*sync.Mutex // per agent: its hook turns run one at a time
}

// Prompt implements hooks.Prompter.
func (p *hookPrompter) Prompt(ctx context.Context, agent, text string) error {
	cfg := p.s.cfg.Load()
	if cfg == nil {
		return up.HookPrompter{M: p.s.m}.Prompt(ctx, agent, text)
	}
	r, err := cfg.Resolve(agent)
	if err != nil || r.HeldByUp() {
		return up.HookPrompter{M: p.s.m}.Prompt(ctx, agent, text)
	}
	if !r.Offer(schema.InteractRun) { // validation refuses it; an agent of an older config
		return fmt.Errorf("agent %s is not one up holds (launchMode %q) and does not offer run", agent, r.LaunchMode)
	}
	if p.s.ctx.Err() != nil {
		return errors.New("up is stopping: no new turn starts")
	}
	chain := hooks.ChainOf(ctx)
	hook := "a hook"
	if n := len(chain.Hooks); n > 0 {
		hook = "hook " + chain.Hooks[n-1]
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.run(hook, r, cfg.Root, text)
	}()
	return nil
}

// run is one hook turn on agent: its reply and run's lines (tool calls,
// warnings) are appended to the agent's log file, up's log says that it
// runs and how it ended.
func (p *hookPrompter) run(hook string, r *schema.Resolved, root, text string) {
	agent := r.Name
	mu := p.agentLock(agent)
	mu.Lock()
	defer mu.Unlock()
	if p.s.ctx.Err() != nil {
		p.s.logf("%s: %s: not run: up is stopping", hook, agent)
		return
	}
	p.s.logf("%s: prompting %s (a %s agent up does not hold: one session, as actctl run; its reply in %s)", hook, agent, r.ArchetypeName, runrecord.LogPath(r))
	out := io.Discard
	if f, err := agentprep.OpenLog(r); err == nil {
		defer f.Close()
		fmt.Fprintf(f, "actctl up: %s: prompt to %s at %s\n", hook, agent, time.Now().UTC().Format(time.RFC3339))
		out = f
	}
	res, err := p.s.o.RunTurn(p.s.ctx, root, mcpserver.Turn{Agent: agent, Cwd: root, Prompt: text, Timeout: hookTurnTimeout}, out, out)
	if err != nil {
		p.s.logf("%s: %s: the turn failed: %v", hook, agent, err)
		return
	}
	p.s.logf("%s: %s: %s (session %s)", hook, agent, res.StopReason, res.SessionID)
}

func (p *hookPrompter) agentLock(agent string) *sync.Mutex {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.busy[agent] == nil {
		p.busy[agent] = &sync.Mutex{}
	}
	return p.busy[agent]
}

// wait waits for the hook turns still running (cancelled with up's
// context at its stop).
func (p *hookPrompter) wait() { p.wg.Wait() }
