package workspace

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/runrecord"
)

// instanceAgents are two agents in instance workspaces (under the actctl
// home), whose .actant.json holds the keys apply owns beside the runtime
// keys `actctl up` writes.
const instanceAgents = `package actant
backends: fake: {
	modes: ["acp"]
	acp: command: "fake-agent"
	files: instructions: ["FAKE.md"]
}
templates: svc: {backend: "fake", archetype: "service"}
agents: {
	one: template: "svc"
	two: template: "svc"
}
`

// TestRefreshInputsRuntimeKeys: the runtime keys a start writes in an
// instance's .actant.json break the fast path (the file's stat data
// changed) until RefreshInputs records it again, after which Status is
// fast again and says what the rendered status says; an edit of a key
// apply owns is never recorded (the rendered status reports it).
func TestRefreshInputsRuntimeKeys(t *testing.T) {
	o, _, debug := newWorkspace(t, map[string]string{"actant.cue": instanceAgents})
	apply(t, o, ApplyOptions{Plain: true})
	cfg := loadRO(t, o)
	r, err := cfg.Resolve("one")
	if err != nil {
		t.Fatal(err)
	}
	rec := runrecord.Path(r)
	if err := runrecord.MarkRunning(rec, 1<<22); err != nil {
		t.Fatal(err)
	}
	if got := synced(cfg); got != nil {
		t.Fatalf("synced with a runtime record just written: %+v", got)
	}
	debug.Reset()
	RefreshInputs(o, cfg.Root, cfg.Home)
	if want := "actctl: debug: inputs: recorded again: 1 files changed only by the runtime\n"; debug.String() != want {
		t.Fatalf("debug: %q, want %q", debug, want)
	}
	fast := synced(cfg)
	if fast == nil {
		t.Fatal("synced: nil after RefreshInputs")
	}
	if listed := SyncedStatus(o); len(listed) != 2 {
		t.Fatalf("SyncedStatus after RefreshInputs: %+v (%s)", listed, debug)
	}
	slow, err := reconcile.Status(cfg, reconcile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("synced:\n%+v\nrendered:\n%+v", fast, slow)
	}

	// A hand edit of a key apply owns: not recorded again.
	writeFiles(t, filepath.Dir(rec), map[string]string{filepath.Base(rec): strings.Replace(readFile(t, rec), `"service"`, `"employee"`, 1)})
	RefreshInputs(o, cfg.Root, cfg.Home)
	if !strings.Contains(debug.String(), "not recorded again: "+rec+" changed since the last apply") {
		t.Errorf("debug: %q", debug)
	}
	if got := synced(cfg); got != nil {
		t.Fatalf("synced after an owned key was edited: %+v", got)
	}
	sts, err := Status(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sts[0].Name != "one" || sts[0].Status != OutOfSync {
		t.Errorf("status: %+v, want one OutOfSync", sts)
	}
}

// readFile is p's content.
func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
