package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actctl/actctl/model"
)

type results struct {
	mu  sync.Mutex
	all map[string]Result
}

func (r *results) add(res Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.all == nil {
		r.all = map[string]Result{}
	}
	r.all[res.Hook] = res
}

func sh(script string, env map[string]string) *model.HookRun {
	return &model.HookRun{Command: "/bin/sh", Args: []string{"-c", script}, Env: env}
}

func newBus(t *testing.T, hooks map[string]model.Hook, p Prompter) (*Bus, *results) {
	t.Helper()
	res := &results{}
	b, err := New(hooks, Options{Dir: t.TempDir(), Prompter: p, Report: res.add})
	if err != nil {
		t.Fatal(err)
	}
	return b, res
}

// TestRunHookGetsEvent: a run hook sees the event as JSON in ACTCTL_EVENT,
// its own env, and runs only for its event and agents.
func TestRunHookGetsEvent(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "event.json")
	b, res := newBus(t, map[string]model.Hook{
		"record":  {On: "process:crash", Agents: []string{"svc"}, Run: sh(`printf '%s' "$ACTCTL_EVENT" > "$OUT"`, map[string]string{"OUT": out})},
		"other":   {On: "process:crash", Agents: []string{"someone-else"}, Run: sh("exit 0", nil)},
		"startup": {On: "process:start", Run: sh("exit 0", nil)},
	}, nil)
	ev := Event{Name: "process:crash", Agent: "svc", Time: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), Data: map[string]any{"pid": 42, "error": "signal: killed"}}
	if got := b.Matching(ev); strings.Join(got, ",") != "record" {
		t.Fatalf("matching %v", got)
	}
	b.Publish(ev)
	b.Wait()
	if r := res.all["record"]; r.Err != nil || len(res.all) != 1 {
		t.Fatalf("results %+v", res.all)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got Event
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("ACTCTL_EVENT %q: %v", raw, err)
	}
	if got.Name != "process:crash" || got.Agent != "svc" || !got.Time.Equal(ev.Time) || got.Data["pid"] != float64(42) || got.Data["error"] != "signal: killed" {
		t.Errorf("event %+v from %s", got, raw)
	}
}

// TestFailingHookIsReported: a failing hook reports its error and output;
// the other hooks of the event still run.
func TestFailingHookIsReported(t *testing.T) {
	dir := t.TempDir()
	b, res := newBus(t, map[string]model.Hook{
		"fails":   {On: "task:failed", Run: sh("echo no luck >&2; exit 3", nil)},
		"missing": {On: "task:failed", Run: &model.HookRun{Command: filepath.Join(dir, "no-such-command")}},
		"works":   {On: "task:failed", Run: sh(`touch "$OUT"`, map[string]string{"OUT": filepath.Join(dir, "ran")})},
	}, nil)
	b.Publish(Event{Name: "task:failed", Agent: "e"})
	b.Wait()
	if r := res.all["fails"]; r.Err == nil || !strings.Contains(r.Err.Error(), "exit status 3") || r.Output != "no luck" {
		t.Errorf("fails: %+v", r)
	}
	if r := res.all["missing"]; r.Err == nil || !strings.Contains(r.Err.Error(), "no-such-command") {
		t.Errorf("missing: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err != nil || res.all["works"].Err != nil {
		t.Errorf("works did not run: %v %+v", err, res.all["works"])
	}
}

type prompts struct {
	mu  sync.Mutex
	got []string
}

func (p *prompts) Prompt(ctx context.Context, agent, text string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got = append(p.got, agent+": "+text)
	return nil
}

func TestPromptHook(t *testing.T) {
	p := &prompts{}
	b, res := newBus(t, map[string]model.Hook{
		"triage": {On: "process:crash", Prompt: &model.HookPrompt{Agent: "oncall", Text: "{{event.agent}} crashed ({{ event.data.error }}, pid {{event.data.pid}}) at {{event.time}}; {{event.data.nope}}"}},
	}, p)
	b.Publish(Event{Name: "process:crash", Agent: "svc", Time: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), Data: map[string]any{"error": "exit status 1", "pid": 7}})
	b.Wait()
	want := "oncall: svc crashed (exit status 1, pid 7) at 2026-05-01T12:00:00Z; {{event.data.nope}}"
	if len(p.got) != 1 || p.got[0] != want || res.all["triage"].Err != nil {
		t.Errorf("prompts %q, want %q; result %+v", p.got, want, res.all["triage"])
	}
	// Without a prompter (apply, no up) a prompt hook fails, reported.
	b2, res2 := newBus(t, map[string]model.Hook{"triage": {On: "agent:created", Prompt: &model.HookPrompt{Agent: "a", Text: "x"}}}, nil)
	b2.Publish(Event{Name: "agent:created", Agent: "a"})
	b2.Wait()
	if r := res2.all["triage"]; r.Err == nil || !strings.Contains(r.Err.Error(), "actctl up") {
		t.Errorf("no prompter: %+v", r)
	}
}

func TestNewRejectsBadTimeout(t *testing.T) {
	_, err := New(map[string]model.Hook{"x": {On: "idle", Run: &model.HookRun{Command: "true", Timeout: "never"}}}, Options{})
	if err == nil || !strings.Contains(err.Error(), `hook x: invalid timeout "never"`) {
		t.Errorf("err = %v", err)
	}
}
