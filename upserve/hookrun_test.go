package upserve

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/actctl/actctl/mcpserver"
	"github.com/actctl/actctl/runrecord"
)

// TestHookPrompterRoutes: a prompt hook aimed at an agent up does not
// hold runs one turn as `actctl run` gives it (the workspace root as its
// project, the hook turn's bound), its reply appended to the agent's
// log and its end in up's log; one aimed at an agent up holds goes to
// up's queue; none starts once up stops.
func TestHookPrompterRoutes(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	cfg := load(t, root, home, team+`templates: rt: {backend: "scripted", archetype: "repo"}
agents: rp: template: "rt"
`)
	log := &logLines{}
	var turns []string
	s := New(Options{Logf: log.logf, Warn: log.logf,
		RunTurn: func(_ context.Context, root string, tn mcpserver.Turn, reply, _ io.Writer) (mcpserver.TurnResult, error) {
			turns = append(turns, fmt.Sprintf("%s %s %s %q %s", root, tn.Agent, tn.Cwd, tn.Prompt, tn.Timeout))
			fmt.Fprintln(reply, "the reply")
			return mcpserver.TurnResult{Agent: tn.Agent, StopReason: "end_turn", SessionID: "s1"}, nil
		}})
	t.Cleanup(s.Close)
	s.cfg.Store(cfg)
	ctx, stop := context.WithCancel(context.Background())
	s.ctx = ctx
	if err := s.prompter.Prompt(context.Background(), "rp", "triage finished"); err != nil {
		t.Fatal(err)
	}
	s.prompter.wait()
	if want := []string{fmt.Sprintf("%s rp %s %q %s", root, root, "triage finished", hookTurnTimeout)}; !slices.Equal(turns, want) {
		t.Errorf("turns %q, want %q", turns, want)
	}
	r, err := cfg.Resolve("rp")
	if err != nil {
		t.Fatal(err)
	}
	wantLog := []string{
		"a hook: prompting rp (a repo agent up does not hold: one session, as actctl run; its reply in " + runrecord.LogPath(r) + ")",
		"a hook: rp: end_turn (session s1)",
	}
	if got := log.all(); !slices.Equal(got, wantLog) {
		t.Errorf("up's log %q, want %q", got, wantLog)
	}
	if b, err := os.ReadFile(runrecord.LogPath(r)); err != nil || !strings.Contains(string(b), "actctl up: a hook: prompt to rp at ") || !strings.HasSuffix(string(b), "the reply\n") {
		t.Errorf("rp's log: %v\n%s", err, b)
	}
	if err := s.prompter.Prompt(context.Background(), "api", "x"); err == nil || !strings.Contains(err.Error(), "not run by this actctl up") {
		t.Errorf("a hook's prompt to api, which this up does not run yet: %v", err)
	}
	stop()
	if err := s.prompter.Prompt(context.Background(), "rp", "late"); err == nil || err.Error() != "up is stopping: no new turn starts" {
		t.Errorf("a hook's prompt once up stops: %v", err)
	}
	if len(turns) != 1 {
		t.Errorf("turns after the stop %q", turns)
	}
}
