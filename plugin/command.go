package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/schema"
)

// CommandInput is the one JSON object a command plugin reads on its
// stdin (docs/plugins.md, "Command plugins"): inbound, the prompt's
// content blocks; outbound, one session update (the "update" object of
// a session/update's params: an agent_message_chunk, a tool_call or a
// tool_call_update).
type CommandInput struct {
	Plugin    string             `json:"plugin"`
	Direction string             `json:"direction"` // "inbound" or "outbound"
	Prompt    []acp.ContentBlock `json:"prompt,omitempty"`
	Update    json.RawMessage    `json:"update,omitempty"`
}

// CommandOutput is the one JSON object a command plugin writes on its
// stdout: the prompt's blocks (inbound) or the update (outbound) to go on
// in their place. Anything else, or an exit status other than 0, is a
// failure of the plugin.
type CommandOutput struct {
	Prompt []acp.ContentBlock `json:"prompt,omitempty"`
	Update json.RawMessage    `json:"update,omitempty"`
}

// maxCommandOutput bounds what a command plugin may write on stdout.
const maxCommandOutput = 10 << 20

var errNoRunner = errors.New("no sub-agent runner here (agent plugins run under run, chat, task and up)")

// commandPrompt runs st's command on the prompt's blocks.
func (s *Set) commandPrompt(ctx context.Context, st *step, blocks []acp.ContentBlock) ([]acp.ContentBlock, error) {
	out, err := s.runCommand(ctx, st, CommandInput{Plugin: st.name, Direction: schema.OnInbound, Prompt: blocks})
	if err != nil {
		return nil, err
	}
	if len(out.Prompt) == 0 {
		return nil, errors.New(`its output has no "prompt" blocks`)
	}
	return out.Prompt, nil
}

// commandUpdate runs st's command on the update of params (left as they
// are) and returns the params with the update it wrote.
func (s *Set) commandUpdate(ctx context.Context, st *step, params map[string]any) (string, error) {
	out, err := s.runCommand(ctx, st, CommandInput{Plugin: st.name, Direction: schema.OnOutbound, Update: encode(params["update"])})
	if err != nil {
		return "", err
	}
	var body map[string]any
	if json.Unmarshal(out.Update, &body) != nil || body["sessionUpdate"] == nil {
		return "", errors.New(`its output has no "update" with a sessionUpdate`)
	}
	next := maps.Clone(params)
	next["update"] = body
	return string(encode(next)), nil
}

// runCommand runs st's command with in on stdin and decodes its stdout.
func (s *Set) runCommand(ctx context.Context, st *step, in CommandInput) (CommandOutput, error) {
	cmd := exec.CommandContext(ctx, st.p.Command, st.p.Args...)
	env := s.opts.Env
	if env == nil {
		env = os.Environ()
	}
	for k, v := range st.p.Env {
		env = append(env, k+"="+v)
	}
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(encode(in))
	var stdout, stderr limited
	stdout.n, stderr.n = maxCommandOutput, 4<<10
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if tail := strings.TrimSpace(stderr.b.String()); tail != "" {
			return CommandOutput{}, fmt.Errorf("%s: %w: %s", st.p.Command, err, tail)
		}
		return CommandOutput{}, fmt.Errorf("%s: %w", st.p.Command, err)
	}
	if stdout.over {
		return CommandOutput{}, fmt.Errorf("%s wrote more than %d MiB", st.p.Command, maxCommandOutput>>20)
	}
	var out CommandOutput
	if err := json.Unmarshal(stdout.b.Bytes(), &out); err != nil {
		return CommandOutput{}, fmt.Errorf("%s: its output is not the JSON object of docs/plugins.md: %w", st.p.Command, err)
	}
	return out, nil
}

// limited keeps the first n bytes written to it.
type limited struct {
	b    bytes.Buffer
	n    int
	over bool
}

func (l *limited) Write(p []byte) (int, error) {
	n := len(p)
	if room := l.n - l.b.Len(); len(p) > room {
		l.over = true
		p = p[:max(room, 0)]
	}
	l.b.Write(p)
	return n, nil
}
