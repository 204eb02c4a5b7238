package up

import (
	"github.com/actctl/actctl/acpclient"
	emp "github.com/actctl/actctl/employee"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/model"
	"github.com/actctl/actctl/schedule"
)

// The events of a turn (docs/runtime.md, "Events"): their data are
// model.Events'.

// userPrompt publishes user:prompt for a person's prompt (actctl
// prompt, the dashboard's prompt box): not one a hook's command made (it
// has a chain).
func (a *agent) userPrompt(id uint64, text string, run *taskRun) {
	if run.source != SourceCLI && run.source != SourceDashboard || !run.chain.IsZero() {
		return
	}
	a.publish(model.EventUserPrompt, run.chain, map[string]any{"task": id, "source": run.source, "prompt": text})
}

// promptBefore publishes prompt:before as a turn begins.
func (a *agent) promptBefore(t schedule.Task, source string, run *taskRun) {
	a.publish(model.EventPromptBefore, run.chain, emp.PromptBeforeData(t, source))
}

// promptAfter publishes prompt:after as a turn ends, and error when it
// failed.
func (a *agent) promptAfter(t schedule.Task, source string, run *taskRun, res acpclient.Result, err error) {
	data, failed := emp.PromptAfterData(t, source, res, err)
	a.publish(model.EventPromptAfter, run.chain, data)
	if failed != nil {
		a.publish(model.EventError, run.chain, failed)
	}
}

// sessionEvent publishes session:start or session:end of a service's
// prompt session.
func (a *agent) sessionEvent(name, id string, t schedule.Task, run *taskRun) {
	a.publish(name, run.chain, map[string]any{"sessionId": id, "task": t.ID})
}

// primaryStarted publishes session:start of the primary session the
// process just started with.
func (a *agent) primaryStarted() {
	a.mu.Lock()
	c := a.client
	a.mu.Unlock()
	if c != nil {
		a.publish(model.EventSessionStart, hooks.Chain{}, map[string]any{"sessionId": c.SessionID(), "primary": true})
	}
}

func (a *agent) publish(name string, chain hooks.Chain, data map[string]any) {
	a.m.opts.Publish(hooks.Event{Name: name, Agent: a.name, Time: a.m.opts.Clock.Now(), Data: data, Chain: chain})
}
