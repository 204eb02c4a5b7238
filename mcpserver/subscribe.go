package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/up"
)

// The runtime subscription tools (docs/runtime.md, "Runtime
// subscriptions"): employees only.
const (
	Subscribe   = "subscribe"
	Unsubscribe = "unsubscribe"
)

type subscribeIn struct {
	Event  string   `json:"event" jsonschema:"the event to be prompted on: task:done, idle, webhook:NAME, ... (docs/runtime.md, Events)"`
	Prompt string   `json:"prompt" jsonschema:"the prompt you get when the event fires; {{event.agent}} and {{event.data.KEY}} are filled in"`
	Agents []string `json:"agents,omitempty" jsonschema:"only events about these agents (default: every agent)"`
}

// SubscriptionOut is subscribe's and unsubscribe's result (docs/json.md):
// the subscription.
type SubscriptionOut struct {
	ID      string    `json:"id" jsonschema:"the subscription's id, for unsubscribe"`
	Agent   string    `json:"agent"`
	Event   string    `json:"event"`
	Agents  []string  `json:"agents,omitempty"`
	Prompt  string    `json:"prompt"`
	Created time.Time `json:"created"`
}

type unsubscribeIn struct {
	ID string `json:"id" jsonschema:"the id subscribe returned"`
}

// subscriber is the calling employee: a person (no caller) has no
// process for a subscription to live in.
func (s *Server) subscriber(tool string) error {
	if s.caller == "" {
		return fmt.Errorf("%s: a subscription prompts the employee that made it, and this actctl mcp runs for no agent (--as): only an employee subscribes", tool)
	}
	return nil
}

// subscribe asks up to prompt the calling employee with in.Prompt on
// in.Event, for as long as its process lives.
func (s *Server) subscribe(ctx context.Context, req *mcp.CallToolRequest, in subscribeIn) (*mcp.CallToolResult, SubscriptionOut, error) {
	if err := s.subscriber(Subscribe); err != nil {
		return nil, SubscriptionOut{}, err
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return nil, SubscriptionOut{}, errors.New("subscribe: the prompt is empty")
	}
	if err := up.CheckSubscriptionPrompt(in.Prompt); err != nil {
		return nil, SubscriptionOut{}, err
	}
	cfg, err := s.runner.Load(io.Discard)
	if err != nil {
		return nil, SubscriptionOut{}, err
	}
	if err := checkSubscription(cfg, in); err != nil {
		return nil, SubscriptionOut{}, err
	}
	var out SubscriptionOut
	err = s.runner.Up(ctx, control.Request{Op: control.OpSubscribe, Agent: s.caller, Event: in.Event, Agents: in.Agents, Text: in.Prompt}, nil, &out)
	return nil, out, err
}

// checkSubscription checks the event and agents against cfg, as
// validation checks a hook's.
func checkSubscription(cfg *schema.Config, in subscribeIn) error {
	if name, ok := strings.CutPrefix(in.Event, schema.EventWebhook); ok {
		if _, declared := cfg.Webhooks[name]; !declared {
			return fmt.Errorf("subscribe: unknown webhook %q in event %q: actant.cue declares no such webhook", name, in.Event)
		}
	} else if !slices.Contains(schema.HookEvents, in.Event) {
		return fmt.Errorf("subscribe: unknown event %q; events are %s and webhook:NAME", in.Event, strings.Join(schema.HookEvents, ", "))
	}
	if len(in.Agents) > 0 && !schema.EventHasAgent(in.Event) {
		return fmt.Errorf("subscribe: %s concerns no agent, so a subscription to it cannot be limited to agents; drop agents", in.Event)
	}
	for _, a := range in.Agents {
		if _, ok := cfg.Agents[a]; !ok {
			return fmt.Errorf("subscribe: %w", agentprep.UnknownAgent(cfg, a))
		}
	}
	return nil
}

// unsubscribe removes one of the calling employee's subscriptions.
func (s *Server) unsubscribe(ctx context.Context, req *mcp.CallToolRequest, in unsubscribeIn) (*mcp.CallToolResult, SubscriptionOut, error) {
	if err := s.subscriber(Unsubscribe); err != nil {
		return nil, SubscriptionOut{}, err
	}
	if in.ID == "" {
		return nil, SubscriptionOut{}, errors.New("unsubscribe: no id (the one subscribe returned)")
	}
	var out SubscriptionOut
	err := s.runner.Up(ctx, control.Request{Op: control.OpUnsubscribe, Agent: s.caller, ID: in.ID}, nil, &out)
	return nil, out, err
}
