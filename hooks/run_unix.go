//go:build unix

package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/actctl/actctl/internal/tail"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/model"
)

// maxOutput bounds the output kept from a run hook.
const maxOutput = 4 << 10

// run executes a run hook in its own process group: the group is killed
// when ctx ends (the timeout) and once the command exits, so nothing a
// hook started outlives it; the hook itself does not outlive actctl.
// The command gets the event in ACTCTL_EVENT and chain (the event's
// chain, then this hook) in ChainVar.
func run(ctx context.Context, dir string, r model.HookRun, ev Event, chain Chain) (string, error) {
	payload, err := json.Marshal(ev)
	if err != nil {
		return "", fmt.Errorf("encode event: %w", err)
	}
	chainJSON, err := json.Marshal(chain)
	if err != nil {
		return "", fmt.Errorf("encode hook chain: %w", err)
	}
	env := append(os.Environ(), launch.EnvList(r.Env)...)
	env = append(env, "ACTCTL_EVENT="+string(payload), ChainVar+"="+string(chainJSON))
	// Its own group, killed when ctx ends and once the hook exits, and on
	// Linux the parent-death signal: a hook dies with actctl even when
	// actctl is killed (launch.Supervise, as for backends). Output a stray
	// child holds open is waited for launch.OutputDelay at most.
	out := tail.New(maxOutput)
	p, err := launch.Supervise(launch.Spec{Command: r.Command, Args: r.Args, Env: env, Dir: dir, Output: out, Context: ctx})
	if err != nil {
		return "", fmt.Errorf("start %s: %w", r.Command, errors.Unwrap(err))
	}
	if err := p.Wait(); err != nil {
		return out.String(), fmt.Errorf("%s: %w", r.Command, err)
	}
	return out.String(), nil
}
