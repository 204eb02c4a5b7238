package launch

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"

	"github.com/actctl/actctl/model"
)

// Launch is everything needed to start an agent's backend: what `actctl
// resolve` prints for callers that spawn the backend themselves, and what
// the proxy and `open` start.
type Launch struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	// Cwd is the backend process's working directory (the archetype's
	// processCwd: the agent's workspace).
	Cwd string `json:"cwd"`
	// Workspace is the agent's materialized workspace.
	Workspace string `json:"workspace"`
	// SessionCwd is the archetype's policy for ACP session cwds:
	// "client" (passed through) or "workspace" (rewritten to Workspace).
	SessionCwd string `json:"sessionCwd"`
	// Install is the backend's install hint, for error messages.
	Install string `json:"install,omitempty"`
}

// EnvList returns Env as KEY=VALUE pairs, sorted, for exec.Cmd.Env.
func (l Launch) EnvList() []string { return EnvList(l.Env) }

// EnvList returns env as KEY=VALUE pairs, sorted, for exec.Cmd.Env.
func EnvList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// Resolve computes how to start the agent's backend in mode ("acp" or
// "open") on this OS.
func Resolve(r *model.Resolved, mode string) (Launch, error) {
	var c *model.Command
	switch mode {
	case model.ModeACP:
		c = r.Backend.ACP
	case model.ModeOpen:
		c = r.Backend.Open
	default:
		return Launch{}, fmt.Errorf("unknown launch mode %q", mode)
	}
	if c == nil || !r.Backend.HasMode(mode) {
		msg := fmt.Sprintf("agent %s: backend %s has no %s command", r.Name, r.BackendName, mode)
		if h := r.Backend.InstallHint(); h != "" {
			msg += " (install: " + h + ")"
		}
		return Launch{}, fmt.Errorf("%s", msg)
	}
	cmd := *c
	if v, ok := c.OS[runtime.GOOS]; ok {
		cmd.Command, cmd.Args = v.Command, v.Args
		if v.Env != nil {
			cmd.Env = v.Env
		}
	}
	l := Launch{
		Command: cmd.Command, Args: cmd.Args, Env: map[string]string{},
		Cwd: r.Dir, Workspace: r.Dir, SessionCwd: r.Archetype.SessionCwd, Install: r.Backend.InstallHint(),
	}
	if l.Args == nil {
		l.Args = []string{}
	}
	for k, v := range cmd.Env {
		l.Env[k] = v
	}
	l.Env[AgentVar] = r.Name
	l.Env[ChainVar] = strings.Join(append(Chain(os.Getenv(ChainVar)), r.Name), ",")
	return l, nil
}

// AgentVar names, in the environment of every backend actctl starts, the
// agent it serves: `actctl mcp` started beneath it without --as knows its
// caller from it (README, "actctl mcp").
const AgentVar = "ACTCTL_AGENT"

// ChainVar lists, in the environment of every backend actctl starts, the
// agents of the delegation chain that backend ends, outermost first
// ("lead,reviewer"): the chain actctl itself runs in (its own ChainVar,
// set when an agent's `actctl mcp` started it) and the agent started.
// `actctl mcp` refuses to run or prompt an agent already in its chain,
// and a chain of MaxChain agents (README, "actctl mcp").
const ChainVar = "ACTCTL_CHAIN"

// MaxChain is how many agents deep delegation may go: an agent at that
// depth can no longer run or prompt another.
const MaxChain = 4

// Chain splits a ChainVar value into agent names.
func Chain(v string) []string {
	var out []string
	for _, name := range strings.Split(v, ",") {
		if name = strings.TrimSpace(name); name != "" {
			out = append(out, name)
		}
	}
	return out
}
