package workspace

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/actctl/actctl/hub"
	"github.com/actctl/actctl/internal/benchconfig"
	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
)

// loadRO loads o's workspace as status does (read-only hub).
func loadRO(t *testing.T, o Options) *schema.Config {
	t.Helper()
	l, err := Load(context.Background(), o, hub.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return l.Config
}

// TestStatusSyncedMatchesRendered: after a plain apply, with nothing
// changed, Status finds every agent Synced without rendering (synced),
// and says exactly what reconcile.Status says after rendering and
// reading every file.
func TestStatusSyncedMatchesRendered(t *testing.T) {
	team := benchconfig.FilesSkills(30, 2)
	for name, files := range map[string]map[string]string{"two agents": {"actant.cue": twoAgents}, "30 agents x 2 skills": team} {
		t.Run(name, func(t *testing.T) {
			o, _, _ := newWorkspace(t, files)
			apply(t, o, ApplyOptions{Plain: true})
			cfg := loadRO(t, o)
			fast := synced(cfg)
			if fast == nil {
				t.Fatal("synced: nil after a plain apply with nothing changed")
			}
			slow, err := reconcile.Status(cfg, reconcile.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("synced:\n%+v\nrendered:\n%+v", fast, slow)
			}
		})
	}
}

// TestStatusSyncedInvalidated: a change of each thing the statuses
// follow from (the config, a file apply wrote, the state, the record of
// the inputs, a killed apply's journal) makes Status render again, and
// it reports what the rendered status reports.
func TestStatusSyncedInvalidated(t *testing.T) {
	edit := func(rel, content string) func(t *testing.T, root string) {
		return func(t *testing.T, root string) { writeFiles(t, root, map[string]string{rel: content}) }
	}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, root string)
		want   map[string]string // agent -> status, of the rendered run
		// sameBytes: the state is written again byte for byte; a record
		// that holds its digest (racy: written within the clock's tick)
		// rightly still holds, one that holds its stat data does not.
		sameBytes bool
	}{
		{"config edited", edit("actant.cue", strings.Replace(twoAgents, "Be helpful.", "Be brief.", 1)), map[string]string{"helper": OutOfSync, "other": OutOfSync}, false},
		{"agent added", edit("actant.cue", strings.Replace(twoAgents, "agents: {", "agents: {\n\tthird: {template: \"tool\", workDir: \"a\"}", 1)), map[string]string{"helper": Synced, "other": Synced, "third": Missing}, false},
		{"output edited", edit("b/FAKE.md", "edited by hand\n"), map[string]string{"helper": Synced, "other": OutOfSync}, false},
		{"state rewritten", func(t *testing.T, root string) {
			p := layout.Path(root, layout.State)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, root, map[string]string{filepath.ToSlash(filepath.Join(".actant", filepath.Base(p))): string(b)})
		}, map[string]string{"helper": Synced, "other": Synced}, true},
		{"inputs record removed", func(t *testing.T, root string) {
			if err := os.Remove(layout.Path(root, layout.Inputs)); err != nil {
				t.Fatal(err)
			}
		}, map[string]string{"helper": Synced, "other": Synced}, false},
		{"journal left", edit(".actant/"+reconcile.PendingFile, "{}"), nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, _, _ := newWorkspace(t, map[string]string{"actant.cue": twoAgents})
			apply(t, o, ApplyOptions{Plain: true})
			tc.change(t, o.Dir)
			cfg := loadRO(t, o)
			if got := synced(cfg); got != nil && !tc.sameBytes {
				t.Fatalf("synced after the change: %+v", got)
			}
			if tc.want == nil {
				return
			}
			sts, err := Status(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, s := range sts {
				got[s.Name] = s.Status
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("status: %v, want %v (%+v)", got, tc.want, sts)
			}
		})
	}
}
