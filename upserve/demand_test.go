package upserve

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/actctl/actctl/runrecord"
)

// TestDemandSpecs: the tool agent is held on demand (never restarted by
// policy), the agents up runs are not.
func TestDemandSpecs(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	cfg := load(t, root, home, team)
	s := New(Options{Logf: t.Logf, Warn: t.Logf})
	t.Cleanup(s.Close)
	specs := s.demandSpecs(cfg)
	if len(specs) != 1 || specs[0].Name != "helper" || !specs[0].OnDemand || specs[0].Restart != "never" || specs[0].Schedule != nil {
		t.Fatalf("on-demand specs: %+v", specs)
	}
}

// TestDemandLaunchRefusesHeld: while another process serves the agent
// (its runtime record names a live pid: an `actctl chat` of it), no
// conversation starts a second one; the refusal names that pid.
func TestDemandLaunchRefusesHeld(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	cfg := load(t, root, home, team)
	s := New(Options{Logf: t.Logf, Warn: t.Logf})
	t.Cleanup(s.Close)
	s.cfg.Store(cfg)
	r, err := cfg.Resolve("helper")
	if err != nil {
		t.Fatal(err)
	}
	rec := runrecord.Path(r)
	if err := os.MkdirAll(filepath.Dir(rec), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runrecord.MarkRunning(rec, os.Getpid()); err != nil { // this test's own process: alive
		t.Fatal(err)
	}
	c, err := s.launchDemand(context.Background(), "helper", nil)
	if err == nil || c != nil || !strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid())+" serves helper already") {
		t.Fatalf("launch of a held agent: %v %v", c, err)
	}
}
