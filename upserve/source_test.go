package upserve

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/dashboard"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/supervise"
	"github.com/actctl/actctl/up"
)

// TestSourceStoppedAgent: the dashboard's data of agents up runs and a
// person stopped: their cards (state, backend, template), an employee's
// page (describe's text and files as the command line gives them, its
// schedule, no task, an empty queue) and the hooks as get hooks lists
// them, in-process with no backend.
func TestSourceStoppedAgent(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	cfg := load(t, root, home, team+`hooks: notify: {on: "process:stop", run: command: "true"}
`)
	log := &logLines{}
	s := New(Options{Logf: log.logf, Warn: log.logf,
		Launch: func(context.Context, string, acpclient.Observer) (*acpclient.Client, error) {
			return nil, errors.New("no backend in this test")
		},
		Describe: func(_ *schema.Config, name string, st up.AgentStatus) (string, []dashboard.File) {
			return "describe " + name + " " + string(st.State), []dashboard.File{{Path: "SCRIPTED.md", Mode: "file", State: "in sync"}}
		},
		HookRows: func(cfg *schema.Config, subs []hooks.Subscription) [][]string {
			var rows [][]string
			for name, h := range cfg.Hooks {
				rows = append(rows, []string{name, h.On, "*", "run " + h.Run.Command, "actant.cue"})
			}
			return rows
		}})
	t.Cleanup(func() { s.shutdownAgents(); s.Close() })
	r, err := cfg.Resolve("triage")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil { // as apply makes it
		t.Fatal(err)
	}
	s.after(cfg, nil)
	for _, name := range []string{"api", "triage"} {
		if _, err := s.m.Stop(context.Background(), name); err != nil {
			t.Fatalf("stop %s: %v\n%q", name, err, log.lines)
		}
	}
	src := s.Source()
	var cards []string
	for _, a := range src.Agents() {
		cards = append(cards, a.Name+" "+string(a.State)+" "+a.Backend+" "+a.Template)
	}
	// helper, a tool agent, is held on demand: no process until a
	// conversation asks for one.
	if want := []string{"api stopped scripted svc", "triage stopped scripted emp", "helper created scripted tool"}; !slices.Equal(cards, want) {
		t.Errorf("cards %q, want %q", cards, want)
	}
	d, err := src.Detail("triage")
	if err != nil {
		t.Fatal(err)
	}
	if d.Describe != "describe triage "+string(supervise.Stopped) || len(d.Files) != 1 || d.Files[0].Path != "SCRIPTED.md" {
		t.Errorf("describe %q, files %+v", d.Describe, d.Files)
	}
	if !slices.Equal(d.Schedule, []string{"heartbeat every 1h0m0s"}) || d.Zone == "" {
		t.Errorf("schedule %q in zone %q", d.Schedule, d.Zone)
	}
	if len(d.Tasks) != 0 || len(d.Queue) != 0 || d.LastTask != nil {
		t.Errorf("a stopped agent that ran nothing: tasks %+v, queue %+v, last %+v", d.Tasks, d.Queue, d.LastTask)
	}
	if d, err := src.Detail("helper"); err != nil || !d.OnDemand || d.Describe != "describe helper created" {
		t.Errorf("the page of an agent up holds on demand: %+v %v", d, err)
	}
	if err := src.Control(context.Background(), dashboard.OpStart, "helper"); err == nil || !strings.Contains(err.Error(), "on demand") {
		t.Errorf("start of an on-demand agent: %v", err)
	}
	if _, err := src.Detail("nobody"); err == nil || !strings.Contains(err.Error(), "not run by this actctl up") {
		t.Errorf("the page of an agent up does not hold: %v", err)
	}
	if got := src.Hooks(); len(got) != 1 || got[0] != (dashboard.Hook{Name: "notify", On: "process:stop", Agents: "*", Action: "run true", Origin: "actant.cue"}) {
		t.Errorf("hooks %+v", got)
	}
}
