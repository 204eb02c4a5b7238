package main

import (
	"context"
	"errors"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/schema"
)

// withRuntimeHooks adds to `get hooks` the subscriptions the employees of
// the workspace's running up made (docs/runtime.md, "Runtime
// subscriptions"), after the config's; without an up there are none.
func withRuntimeHooks(g *globals, rows [][]string, js []hookJSON) ([][]string, []hookJSON) {
	var subs []hooks.Subscription
	err := callUp(context.Background(), g, control.Request{Op: control.OpHooks}, nil, &subs)
	if err != nil {
		if !errors.Is(err, control.ErrNoUp) {
			g.Warn("get hooks: the runtime subscriptions of actctl up: %v", err)
		}
		return rows, js
	}
	for _, s := range subs {
		h := subscriptionJSON(s)
		js = append(js, h)
		rows = append(rows, hookRow(h))
	}
	return rows, js
}

// subscriptionJSON is an employee's subscription as `get hooks` lists it.
func subscriptionJSON(s hooks.Subscription) hookJSON {
	return hookJSON{Name: s.HookName(), Origin: "agent " + s.Agent + " (runtime)",
		Hook: schema.Hook{On: s.Event, Agents: s.Agents, Prompt: &schema.HookPrompt{Agent: s.Agent, Text: s.Prompt}}}
}
