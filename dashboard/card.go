package dashboard

import (
	"fmt"
	"strings"
	"time"
)

// card is what an agent's card shows, its words decided here for the
// page and its live updates alike.
type card struct {
	Name       string `json:"name"`
	Archetype  string `json:"archetype"`
	Backend    string `json:"backend"`
	Template   string `json:"template,omitempty"`
	State      string `json:"state"`
	StateText  string `json:"stateText"`
	Class      string `json:"class"` // ok, wait, bad, off
	Pid        int    `json:"pid,omitempty"`
	StartedAt  string `json:"startedAt,omitempty"` // RFC 3339
	Uptime     string `json:"uptime,omitempty"`
	Restarts   int    `json:"restarts"`
	NextTick   string `json:"nextTick,omitempty"` // RFC 3339
	NextTickAt string `json:"nextTickText,omitempty"`
	LastTask   string `json:"lastTask,omitempty"`
	Queued     int    `json:"queued"`
	Running    uint64 `json:"running,omitempty"`
	Employee   bool   `json:"employee"`
	// Up is whether up holds a process for the agent or is bringing one
	// up (running, starting, backoff, stopping): Start is offered when
	// it is not, Stop when it is.
	Up bool `json:"up"`
	// OnDemand marks a repo or tool agent: no Start or Stop, a
	// conversation starts its process (its states "on demand" and "in
	// conversation").
	OnDemand bool `json:"onDemand,omitempty"`
	// Select puts a box on the card to choose it for a bulk action (the
	// agents page).
	Select bool `json:"-"`
}

// stamp is how a time is written on the server's pages: the zone of up.
const stamp = "2006-01-02 15:04:05 MST"

func cardOf(a Agent, now time.Time) card {
	c := card{Name: a.Name, Archetype: a.Archetype, Backend: a.Backend, Template: a.Template, State: string(a.State), Pid: a.Pid,
		Restarts: a.Restarts, Queued: a.Queued, Running: a.Running, Employee: a.Archetype == "employee"}
	c.StateText, c.Class = stateWords(a)
	switch a.State {
	case "running", "starting", "backoff", "stopping":
		c.Up = true
	}
	if a.OnDemand {
		c.OnDemand, c.Up = true, false
		c.State, c.StateText, c.Class = demandWords(a, c.State, c.StateText, c.Class)
	}
	if a.StartedAt != nil {
		c.StartedAt = a.StartedAt.Format(time.RFC3339)
		c.Uptime = now.Sub(*a.StartedAt).Round(time.Second).String()
	}
	if a.NextTick != nil {
		c.NextTick, c.NextTickAt = a.NextTick.Format(time.RFC3339), a.NextTick.Local().Format(stamp)
	}
	if t := a.LastTask; t != nil {
		c.LastTask = fmt.Sprintf("#%d %s: %s", t.Task, t.Source, t.StopReason)
		if t.Error != "" {
			c.LastTask += " (" + t.Error + ")"
		}
	}
	return c
}

// stateWords says an agent's state in words and its colour class.
func stateWords(a Agent) (string, string) {
	switch a.State {
	case "running":
		return "running", "ok"
	case "starting":
		return "starting", "wait"
	case "backoff":
		words := "backoff"
		if a.NextStart != nil {
			words += ": next restart at " + a.NextStart.Local().Format(stamp)
		}
		if l, _, _ := strings.Cut(strings.TrimSpace(a.LastError), "\n"); l != "" {
			words += " (last error: " + l + ")"
		}
		return words, "wait"
	case "crashed", "fatal":
		if a.LastError != "" {
			return string(a.State) + ": " + a.LastError, "bad"
		}
		return string(a.State), "bad"
	case "stopping":
		return "stopping", "wait"
	}
	return string(a.State), "off"
}

// Words of an on-demand agent's states (docs/dashboard.md, "Repo and
// tool agents").
const (
	StateOnDemand       = "on demand"       // no process: a conversation starts one
	StateInConversation = "in conversation" // its process runs for its conversations
)

// demandWords are an on-demand agent's state, its words and class: no
// process is "on demand" (its last one stopped, or never started), one
// running is "in conversation"; a crash and a start stay what they are.
func demandWords(a Agent, state, text, class string) (string, string, string) {
	switch a.State {
	case "created", "stopped":
		return StateOnDemand, StateOnDemand, "off"
	case "running":
		return StateInConversation, StateInConversation, "ok"
	}
	return state, text, class
}
