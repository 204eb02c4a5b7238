package model

import (
	"fmt"
	"time"
)

// MaxHookChain is how many hooks may lie between an event no hook caused
// and a prompt; `actctl up` drops a prompt caused through more
// (docs/runtime.md, "Hook loops").
const MaxHookChain = 8

// DefaultHookTimeout bounds a run hook with no timeout of its own.
const DefaultHookTimeout = 30 * time.Second

// TimeoutDuration returns the run hook's timeout, DefaultHookTimeout when unset.
func (r HookRun) TimeoutDuration() (time.Duration, error) {
	if r.Timeout == "" {
		return DefaultHookTimeout, nil
	}
	d, err := time.ParseDuration(r.Timeout)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("invalid timeout %q: want a positive duration such as \"30s\"", r.Timeout)
	}
	return d, nil
}

// HeldByUp reports whether `actctl up` holds r's process: r offers start
// (a launch mode up runs, acp-service or acp-background, and start in its
// archetype's interactionModes); up prompts any other agent as `actctl
// run` does (docs/runtime.md, "Hooks").
func (r *Resolved) HeldByUp() bool { return r.Offer(InteractStart) }
