package agentprep

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schema"
)

// live is a Request.Live for which the agents names are served by a live
// process.
func live(names ...string) func(*schema.Resolved) (bool, error) {
	return func(r *schema.Resolved) (bool, error) {
		for _, n := range names {
			if r.Name == n {
				return true, nil
			}
		}
		return false, nil
	}
}

// recorded reports whether name is an ad-hoc agent recorded in root
// (sealed with the key of the actctl home home).
func recorded(t *testing.T, root, home, name string) bool {
	t.Helper()
	m, why, err := schema.AdhocAgents(root, home)
	if err != nil || why != "" {
		t.Fatal(err, why)
	}
	_, ok := m[name]
	return ok
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestPrepareAndCleanup: Prepare materializes the chosen agent and
// records one made for the client; Cleanup keeps a lasting agent and
// removes an ephemeral one entirely (docs/run.md).
func TestPrepareAndCleanup(t *testing.T) {
	tests := []struct {
		name, verb, agent, tmpl string
		other                   bool
		live                    []string
		lasting, adhoc, shared  bool
	}{
		{name: "per-project copy", verb: "proxy", agent: "helper", other: true, lasting: true, adhoc: true},
		{name: "declared instance", verb: "run", agent: "builder", lasting: true},
		{name: "run -t", verb: "run", tmpl: "rp", adhoc: true},
		{name: "chat -t --keep", verb: "chat", agent: "kept", tmpl: "rp", lasting: true, adhoc: true},
		{name: "live instance", verb: "run", agent: "builder", live: []string{"builder"}},
		{name: "live project agent", verb: "proxy", agent: "helper", live: []string{"helper"}, shared: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, root, home, other := chooseWorkspace(t)
			client := root
			if tc.other {
				client = other
			}
			saved := 0
			req := Request{Verb: Verb(tc.verb), Name: tc.agent, Template: tc.tmpl, ClientDir: client, Keep: tc.lasting, Live: live(tc.live...)}
			p, err := Prepare(context.Background(), cfg, req, Options{Stderr: io.Discard, Materialized: func() { saved++ }})
			if err != nil {
				t.Fatalf("Prepare: %v", err)
			}
			name, dir := p.Agent.Name, p.Agent.Dir
			if l, err := p.Launch(schema.ModeACP); err != nil || l.Command == "" {
				t.Errorf("Launch: %+v, %v", l, err)
			}
			if got := len(files(t, dir)) > 1; got == tc.shared {
				t.Errorf("%s materialized in %s: %v, want %v", name, dir, got, !tc.shared)
			}
			if got := recorded(t, root, home, name); got != tc.adhoc {
				t.Errorf("%s recorded: %v, want %v", name, got, tc.adhoc)
			}
			if want := map[bool]int{true: 1}[tc.lasting]; saved != want {
				t.Errorf("Materialized called %d times, want %d", saved, want)
			}
			p.Cleanup()
			if got := recorded(t, root, home, name); got != (tc.adhoc && tc.lasting) {
				t.Errorf("%s recorded after Cleanup: %v, want %v", name, got, tc.adhoc && tc.lasting)
			}
			if !tc.lasting && dir != root && exists(dir) {
				t.Errorf("ephemeral %s left %s", name, dir)
			}
			if !tc.lasting && exists(filepath.Join(home, "instances")) {
				t.Errorf("ephemeral %s left %s", name, filepath.Join(home, "instances"))
			}
			if tc.lasting && !exists(dir) {
				t.Errorf("lasting %s lost %s", name, dir)
			}
		})
	}
}

// TestPrepareFailedCopyLeavesNothing: a per-project copy that fails to
// materialize (a directory nothing can be written in) is refused with the
// reason and leaves no record, no journal and no file (docs/run.md).
func TestPrepareFailedCopyLeavesNothing(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	cfg, root, home, _ := chooseWorkspace(t)
	req := Request{Verb: "run", Name: "helper", ClientDir: "/proc", Live: live()}
	p, err := Prepare(context.Background(), cfg, req, Options{Stderr: io.Discard, Materialized: func() { t.Error("Materialized called") }})
	if err == nil || !strings.Contains(err.Error(), "materialize helper-p") {
		t.Fatalf("Prepare: %v, %v; want the materialize error", p, err)
	}
	// This user's key (internal/userkey), made to seal the journal, is
	// the user's, not the copy's.
	got := slices.DeleteFunc(files(t, root, home), func(p string) bool { return p == filepath.Join(home, "cache.key") })
	if len(got) != 1 || filepath.Base(got[0]) != "actant.cue" {
		t.Errorf("the failed copy left %v", got)
	}
	if exists(filepath.Join(root, ".actant")) {
		t.Error("the failed copy left .actant")
	}
}

// TestClientProject: the client's project is an absolute directory; a
// file or a missing path is refused with its name.
func TestClientProject(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ClientProject(dir); got != dir || err != nil {
		t.Errorf("ClientProject(%s) = %q, %v", dir, got, err)
	}
	wd, _ := os.Getwd()
	if got, err := ClientProject(""); got != wd || err != nil {
		t.Errorf(`ClientProject("") = %q, %v; want %s`, got, err, wd)
	}
	for _, bad := range []string{file, filepath.Join(dir, "missing")} {
		if got, err := ClientProject(bad); err == nil || err.Error() != "client project "+bad+" is not a directory" {
			t.Errorf("ClientProject(%s) = %q, %v", bad, got, err)
		}
	}
}

// TestCleanupKeepsAnotherProcessRecord: Cleanup marks the agent stopped
// only where its runtime record names the client's own process (or none
// alive): a record another live process took meanwhile (up started the
// agent) is left as it is (issue #26 item 2). On the old code Cleanup
// wrote "stopped" over it.
func TestCleanupKeepsAnotherProcessRecord(t *testing.T) {
	cfg, root, _, _ := chooseWorkspace(t)
	p, err := Prepare(context.Background(), cfg, Request{Verb: "run", Name: "builder", ClientDir: root, Keep: true, Live: live()},
		Options{Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	record := runrecord.Path(p.Agent)
	if err := p.Running(os.Getppid()); err != nil { // the client's backend: live
		t.Fatal(err)
	}
	if rec, _ := runrecord.Read(record); rec.Status != "running" || rec.PID != os.Getppid() {
		t.Fatalf("record after Running: %+v", rec)
	}
	if err := runrecord.MarkRunning(record, os.Getpid()); err != nil { // another process took it
		t.Fatal(err)
	}
	p.Cleanup()
	if rec, _ := runrecord.Read(record); rec.Status != "running" || rec.PID != os.Getpid() {
		t.Fatalf("record after Cleanup: %+v, want it left running with pid %d", rec, os.Getpid())
	}
}

// TestCleanupMarksOwnRecordStopped: the record naming the client's own
// process is marked stopped by Cleanup.
func TestCleanupMarksOwnRecordStopped(t *testing.T) {
	cfg, root, _, _ := chooseWorkspace(t)
	p, err := Prepare(context.Background(), cfg, Request{Verb: "run", Name: "builder", ClientDir: root, Keep: true, Live: live()},
		Options{Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Running(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	p.Cleanup()
	if rec, _ := runrecord.Read(runrecord.Path(p.Agent)); rec.Status != "stopped" || rec.PID != 0 {
		t.Fatalf("record after Cleanup: %+v, want stopped", rec)
	}
}
