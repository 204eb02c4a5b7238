//go:build unix

package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/schema"
)

// maxOutput bounds the output kept from a run hook.
const maxOutput = 4 << 10

// run executes a run hook in its own process group: the group is killed
// when ctx ends (the timeout) and once the command exits, so nothing a
// hook started outlives it; the hook itself does not outlive actctl.
// The command gets the event in ACTCTL_EVENT and chain (the event's
// chain, then this hook) in ChainVar.
func run(ctx context.Context, dir string, r schema.HookRun, ev Event, chain Chain) (string, error) {
	payload, err := json.Marshal(ev)
	if err != nil {
		return "", fmt.Errorf("encode event: %w", err)
	}
	chainJSON, err := json.Marshal(chain)
	if err != nil {
		return "", fmt.Errorf("encode hook chain: %w", err)
	}
	cmd := exec.CommandContext(ctx, r.Command, r.Args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), launch.EnvList(r.Env)...)
	cmd.Env = append(cmd.Env, "ACTCTL_EVENT="+string(payload), ChainVar+"="+string(chainJSON))
	// Its own group, and on Linux the parent-death signal: a hook dies
	// with actctl even when actctl is killed (launch, as for backends).
	launch.SetProcessGroup(cmd)
	cmd.Cancel = func() error { return launch.KillGroup(cmd.Process.Pid) }
	// Output pipes stay open while a stray child holds them: stop waiting
	// for them shortly after the hook itself ended.
	cmd.WaitDelay = time.Second
	out := &tail{max: maxOutput}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start %s: %w", r.Command, err)
	}
	err = cmd.Wait()
	launch.KillGroup(cmd.Process.Pid)
	if err != nil {
		return out.String(), fmt.Errorf("%s: %w", r.Command, err)
	}
	return out.String(), nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string { return strings.TrimSpace(string(t.b)) }
