package employee

import (
	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/schedule"
)

// PromptBeforeData is the data of prompt:before as task t's turn begins
// (model.Events), as up and `actctl task` publish it; source is who or
// what made the task (docs/runtime.md, "Events").
func PromptBeforeData(t schedule.Task, source string) map[string]any {
	return map[string]any{"task": t.ID, "source": source, "prompt": t.Prompt}
}

// PromptAfterData is the data of prompt:after as task t's turn ends, with
// its result and error; errData is error's, nil when the turn did not
// fail.
func PromptAfterData(t schedule.Task, source string, res acpclient.Result, err error) (data, errData map[string]any) {
	data = map[string]any{"task": t.ID, "source": source, "stopReason": string(res.StopReason)}
	if err != nil {
		data["error"] = err.Error()
		errData = map[string]any{"task": t.ID, "source": source, "error": err.Error()}
	}
	return data, errData
}
