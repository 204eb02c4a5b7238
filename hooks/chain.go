package hooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/actctl/actctl/model"
)

// MaxChain is how many hooks may lie between an event nobody's hook
// caused and a prompt (docs/runtime.md, "Hook loops"): a prompt caused
// through more hooks is dropped.
const MaxChain = model.MaxHookChain

// ChainVar is the environment variable in which a run hook's command gets
// the chain that led to it, the hook itself included, as JSON. `actctl
// prompt` hands it back to up, so that a loop through a command (a hook
// running `actctl prompt`) is bounded as one through a prompt hook is.
const ChainVar = "ACTCTL_HOOK_CHAIN"

// maxChainLen bounds a chain read from outside (ParseChain): far above
// MaxChain, it only keeps a forged chain from being large.
const maxChainLen = 1024

// Chain is the hooks that caused an event, oldest first. Root names the
// event that started it (every hook it fires shares the root); it is empty
// on an event that no hook caused.
type Chain struct {
	Root  string   `json:"root"`
	Hooks []string `json:"hooks"`
}

// IsZero reports whether no hook caused the event.
func (c Chain) IsZero() bool { return c.Root == "" && len(c.Hooks) == 0 }

// Then is the chain of what hook causes: c followed by hook.
func (c Chain) Then(hook string) Chain {
	return Chain{Root: c.Root, Hooks: append(slices.Clip(c.Hooks), hook)}
}

// String is the hooks, "a -> b -> a".
func (c Chain) String() string { return strings.Join(c.Hooks, " -> ") }

// key identifies the chain, root and hooks.
func (c Chain) key() string { return c.Root + "\x00" + strings.Join(c.Hooks, "\x00") }

// ParseChain reads a chain as ChainVar carries it.
func ParseChain(s string) (Chain, error) {
	var c Chain
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return Chain{}, fmt.Errorf("invalid hook chain %q: %w", s, err)
	}
	switch {
	case c.Root == "":
		return Chain{}, fmt.Errorf("invalid hook chain %q: no root", s)
	case len(c.Hooks) > maxChainLen:
		return Chain{}, fmt.Errorf("invalid hook chain: %d hooks (at most %d)", len(c.Hooks), maxChainLen)
	case slices.Contains(c.Hooks, ""):
		return Chain{}, fmt.Errorf("invalid hook chain %q: a hook without a name", s)
	}
	return c, nil
}

// newRoot returns a fresh chain root.
func newRoot() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

type chainKey struct{}

// WithChain returns ctx carrying c: how a prompt hook tells the Prompter
// (and up's control requests tell up) which hooks caused the prompt.
func WithChain(ctx context.Context, c Chain) context.Context {
	return context.WithValue(ctx, chainKey{}, c)
}

// ChainOf returns the chain ctx carries (zero: no hook caused it).
func ChainOf(ctx context.Context) Chain {
	c, _ := ctx.Value(chainKey{}).(Chain)
	return c
}

// ErrLoop is the error of a dropped prompt.
var ErrLoop = errors.New("hook loop")

// Guard drops the prompts caused through more than its bound of hooks,
// with one warning per chain (its root): a loop that fans out is reported
// once, not once per drop. One Guard serves a whole `actctl up`, its
// control requests and every hooks bus it builds. A nil Guard drops at
// MaxChain and warns of nothing.
type Guard struct {
	max  int
	warn func(msg string)

	mu      sync.Mutex
	warned  map[string]bool // roots warned of
	dropped map[string]bool // chains dropped (key)
}

// NewGuard returns a guard with bound max (0: MaxChain) that reports the
// first drop of each chain to warn (nil: nobody).
func NewGuard(max int, warn func(msg string)) *Guard {
	if max <= 0 {
		max = MaxChain
	}
	return &Guard{max: max, warn: warn, warned: map[string]bool{}, dropped: map[string]bool{}}
}

// forget is how many roots and chains a guard remembers before it starts
// afresh: each one is a loop that was cut, so they are few; the bound only
// keeps a long-running up's memory flat.
const forget = 1024

// Admit returns nil when a prompt to agent caused through c may go ahead,
// else an error wrapping ErrLoop (and the first drop of c's root warns).
func (g *Guard) Admit(agent string, c Chain) error {
	max := MaxChain
	if g != nil {
		max = g.max
	}
	if len(c.Hooks) <= max {
		return nil
	}
	err := fmt.Errorf("%w: a prompt to %s caused through %d hooks (%s) was dropped: more than %d", ErrLoop, agent, len(c.Hooks), c, max)
	if g == nil {
		return err
	}
	g.mu.Lock()
	if len(g.dropped) >= forget {
		clear(g.dropped)
	}
	if len(g.warned) >= forget {
		clear(g.warned)
	}
	g.dropped[c.key()] = true
	first := !g.warned[c.Root]
	g.warned[c.Root] = true
	g.mu.Unlock()
	if first && g.warn != nil {
		g.warn(err.Error() + " (further drops in this chain are not reported)")
	}
	return err
}

// wasDropped reports whether a prompt caused through exactly c was dropped:
// a run hook that failed because the `actctl prompt` it ran was dropped
// is not reported again (the drop's warning said it).
func (g *Guard) wasDropped(c Chain) bool {
	if g == nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.dropped[c.key()]
}
