package employee

import (
	"maps"
	"slices"
	"testing"

	"github.com/actctl/actctl/model"
)

// TestHooks: the run hooks of a task's events for the agent; its prompt
// hooks skipped; other events and other agents' hooks left out.
func TestHooks(t *testing.T) {
	run := &model.HookRun{Command: "true"}
	prompt := &model.HookPrompt{Agent: "helper", Text: "x"}
	all := map[string]model.Hook{
		"tick":        {On: "heartbeat:tick", Run: run},
		"cron":        {On: "cron:tick", Run: run, Agents: []string{"triage", "other"}},
		"done":        {On: "task:done", Run: run},
		"failed":      {On: "task:failed", Run: run},
		"other-agent": {On: "task:done", Run: run, Agents: []string{"other"}},
		"start":       {On: "process:start", Run: run},
		"tell":        {On: "task:done", Prompt: prompt},
		"tell-other":  {On: "task:done", Prompt: prompt, Agents: []string{"other"}},
		"idle":        {On: "idle", Prompt: prompt},
	}
	got, skipped := Hooks(all, "triage")
	if names := slices.Sorted(maps.Keys(got)); !slices.Equal(names, []string{"cron", "done", "failed", "tick"}) {
		t.Errorf("run hooks %v", names)
	}
	if !slices.Equal(skipped, []string{"tell"}) {
		t.Errorf("skipped %v, want [tell]", skipped)
	}
}
