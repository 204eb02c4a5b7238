package model

import (
	"strings"
)

// The events of actctl's bus (docs/runtime.md, "Events"), named once:
// validation, the publishers and the docs' list all derive from Events.
const (
	EventAgentCreated   = "agent:created"
	EventAgentModified  = "agent:modified"
	EventAgentDestroyed = "agent:destroyed"
	EventSourceUpdated  = "source:updated"
	EventActctlStart    = "actctl:start"
	EventActctlStop     = "actctl:stop"
	EventProcessStart   = "process:start"
	EventProcessStop    = "process:stop"
	EventProcessCrash   = "process:crash"
	EventProcessRestart = "process:restart"
	EventSessionStart   = "session:start"
	EventSessionEnd     = "session:end"
	EventPromptBefore   = "prompt:before"
	EventPromptAfter    = "prompt:after"
	EventTaskDone       = "task:done"
	EventTaskFailed     = "task:failed"
	EventTaskStalled    = "task:stalled"
	EventHeartbeatTick  = "heartbeat:tick"
	EventCronTick       = "cron:tick"
	EventIdle           = "idle"
	EventError          = "error"
	EventUserPrompt     = "user:prompt"
	EventPluginError    = "plugin:error"
	// EventWebhook is the prefix of webhook:NAME, NAME a declared webhook.
	EventWebhook = "webhook:"
)

// EventSpec documents one event: its name (webhook:NAME for the
// webhooks), whether it concerns one agent, who publishes it, and its
// data (the keys of Event.Data in package hooks).
type EventSpec struct {
	Name  string
	Agent bool
	From  string
	Data  string
}

// Events is every event a hook may listen to, in the docs' order.
var Events = []EventSpec{
	{EventAgentCreated, true, "apply (also without up): an agent's files were written for the first time", "files"},
	{EventAgentModified, true, "apply: an agent's files were updated or restored", "files"},
	{EventAgentDestroyed, true, "apply (prune), delete: an agent's files were removed", "none"},
	{EventSourceUpdated, false, "apply --watch, up, hub update: a hub source with an interval moved", "source, from, to"},
	{EventActctlStart, false, "up, once its first config cycle started its agents", "pid, agents (those it runs), webhooks (the listener's address, when on)"},
	{EventActctlStop, false, "up, when it begins to stop", "reason (signal or error)"},
	{EventProcessStart, true, "up: an agent's process started", "state, restarts, pid"},
	{EventProcessStop, true, "up: an agent's process was stopped", "state, restarts, pid"},
	{EventProcessCrash, true, "up: an agent's process exited unasked", "state, restarts, pid, error"},
	{EventProcessRestart, true, "up: an agent's process is started again after a crash", "state, restarts, backoff"},
	{EventSessionStart, true, "up: a session of the agent was opened: its primary one as its process starts, a service's session for a prompt", "sessionId, and primary (true) or task"},
	{EventSessionEnd, true, "up: a service's prompt session ended", "sessionId, task"},
	{EventPromptBefore, true, "up, task: a turn begins: a prompt is sent to the agent", "task, source, prompt"},
	{EventPromptAfter, true, "up, task: a turn ended", "task, source, stopReason, error (when it failed)"},
	{EventTaskDone, true, "up: an employee's task ended", "task, kind, source, coalesced"},
	{EventTaskFailed, true, "up: an employee's task failed", "task, kind, source, error"},
	{EventTaskStalled, true, "up: a running turn had no update from the agent for stallAfter (its deadline, turnTimeout, ends it)", "task, kind, source, since (the agent's last update)"},
	{EventHeartbeatTick, true, "up: an employee's heartbeat queued a task", "task, kind, coalesced"},
	{EventCronTick, true, "up: an employee's cron entry queued a task", "task, kind, coalesced"},
	{EventIdle, true, "up: an employee's queue ran empty", "none"},
	{EventError, true, "up, task: a turn of the agent ended in an error (no process, a failed prompt, a stop reason other than end_turn)", "task, source, error"},
	{EventUserPrompt, true, "up: a person prompted the agent (actctl prompt, the dashboard)", "task, source, prompt"},
	{EventPluginError, true, "up, task: a session plugin failed (docs/plugins.md): its text went on unchanged, or the turn failed", "plugin, direction, outcome (passed or failed), error"},
	{EventWebhook + "NAME", false, "up --webhooks: a signed delivery to webhook NAME was accepted", "event, delivery, headers, payload"},
}

// HookEvents are the names a hook's on may be, webhook:NAME aside.
var HookEvents = func() []string {
	var out []string
	for _, e := range Events {
		if !strings.HasPrefix(e.Name, EventWebhook) {
			out = append(out, e.Name)
		}
	}
	return out
}()

// EventHasAgent reports whether events of this name concern one agent.
func EventHasAgent(name string) bool {
	if strings.HasPrefix(name, EventWebhook) {
		return false
	}
	for _, e := range Events {
		if e.Name == name {
			return e.Agent
		}
	}
	return false
}
