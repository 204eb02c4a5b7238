//go:build unix

package upserve

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/schema"
)

// runOnce runs a Server of cfg in-process through one watch cycle: once
// the hook "start" has run, the cycle calls stop (as a signal or a
// failing loop would), and up's log and Run's error are returned once
// every hook has ended. No backend starts (each launch fails).
func runOnce(t *testing.T, cfg *schema.Config, stop func(s *Server, cancel context.CancelFunc) error) ([]string, error) {
	t.Helper()
	log := &logLines{}
	started := make(chan hooks.Result, 1)
	report := func(r hooks.Result) {
		if r.Hook == "start" {
			started <- r
		}
	}
	s := New(Options{Logf: log.logf, Warn: log.logf, Report: report,
		Launch: func(context.Context, string, acpclient.Observer) (*acpclient.Client, error) {
			return nil, errors.New("no backend in this test")
		}})
	defer s.Close()
	owner, err := control.Acquire(cfg.Root)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	ln, err := owner.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch := func(ctx context.Context, after func(*schema.Config, map[string][]string)) error {
		after(cfg, nil)
		if r := <-started; r.Err != nil {
			t.Errorf("hook start: %v", r.Err)
		}
		return stop(s, cancel)
	}
	err = s.Run(ctx, Serve{Config: cfg, Control: ln, Owner: owner, Watch: watch})
	return log.all(), err
}

// events are the events the hooks of eventsConfig wrote, by name.
func events(t *testing.T, root string) map[string]map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "events.log"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	for line := range strings.Lines(string(b)) {
		var ev struct {
			Name string
			Data map[string]any
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got[ev.Name] = ev.Data
	}
	return got
}

// eventsConfig is team with webhooks declared and hooks that write
// actctl:start and actctl:stop to events.log.
const eventsConfig = team + `webhooks: gh: {secretEnv: "ACTCTL_TEST_GH_SECRET", signature: "github"}
hooks: start: {on: "actctl:start", run: {command: "sh", args: ["-c", "printf '%s\\n' \"$ACTCTL_EVENT\" >> events.log"]}}
hooks: stop: {on: "actctl:stop", run: {command: "sh", args: ["-c", "printf '%s\\n' \"$ACTCTL_EVENT\" >> events.log"]}}
`

// TestRunStartAndStop: up publishes actctl:start after its first cycle
// (its pid and the agents it runs) and actctl:stop with the signal that
// stopped it, waits for their hooks, and logs the control socket, once
// that the workspace's webhooks are not served without --webhooks (a new
// user's curl otherwise finds no listener and no word why), then its
// stop.
func TestRunStartAndStop(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	cfg := load(t, root, home, eventsConfig)
	log, err := runOnce(t, cfg, func(s *Server, cancel context.CancelFunc) error {
		s.Stopping("SIGTERM")
		cancel()
		return context.Canceled
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	got := events(t, root)
	start, stop := got[schema.EventActctlStart], got[schema.EventActctlStop]
	if start == nil || start["pid"] != float64(os.Getpid()) || !slices.Equal(anyStrings(start["agents"]), []string{"api", "triage"}) {
		t.Errorf("actctl:start %v", start)
	}
	if _, ok := start["webhooks"]; ok {
		t.Errorf("actctl:start names webhooks up does not serve: %v", start)
	}
	if stop == nil || stop["reason"] != "SIGTERM" {
		t.Errorf("actctl:stop %v", stop)
	}
	note := "actant.cue declares webhooks (gh) but up serves none: give --webhooks ADDR (127.0.0.1:8787) to serve them"
	i := slices.IndexFunc(log, func(l string) bool { return strings.HasPrefix(l, "control socket ") })
	j, k := slices.Index(log, note), slices.Index(log, "stopping")
	if i < 0 || j < i || k < j || slices.Index(log[j+1:], note) >= 0 {
		t.Errorf("up's log %q: want the control socket, the note once, then stopping", log)
	}
}

// TestRunLoopError: a watch loop that fails ends up with its error, and
// actctl:stop gives it as the reason.
func TestRunLoopError(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	cfg := load(t, root, home, eventsConfig)
	_, err := runOnce(t, cfg, func(*Server, context.CancelFunc) error { return errors.New("watch: too many files") })
	if err == nil || err.Error() != "watch: too many files" {
		t.Fatalf("Run: %v", err)
	}
	if stop := events(t, root)[schema.EventActctlStop]; stop == nil || stop["reason"] != "watch: too many files" {
		t.Errorf("actctl:stop %v", stop)
	}
}

// anyStrings is a JSON array of strings.
func anyStrings(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

// TestReleasedSaid: each time up gives memory back, Options.Released is
// told (`actctl up` prints it with ACTCTL_DEBUG=1; the scale benchmark
// waits for that line instead of a time window).
func TestReleasedSaid(t *testing.T) {
	n := 0
	s := New(Options{Logf: func(string, ...any) {}, Warn: func(string, ...any) {}, Released: func() { n++ }})
	defer s.Close()
	s.releaseMemory()
	s.releaseMemory()
	if n != 2 {
		t.Fatalf("Released told %d times, want 2", n)
	}
}
