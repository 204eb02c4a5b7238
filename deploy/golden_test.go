package deploy

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/actctl/actctl/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenNow is the start of the year the schedule checks look at.
var goldenNow = time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)

// loadTeam loads testdata/team, the config every renderer test uses.
func loadTeam(t *testing.T) *schema.Config {
	t.Helper()
	root, err := filepath.Abs("testdata/team")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := schema.LoadDir(root, filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func renderTeam(t *testing.T) []Output {
	t.Helper()
	outs, err := Render(loadTeam(t), Options{Now: goldenNow})
	if err != nil {
		t.Fatal(err)
	}
	return outs
}

// TestGolden compares every rendered file with testdata/golden/<target>/;
// `go test ./deploy -run TestGolden -update` rewrites them after an
// intended change (review the diff).
func TestGolden(t *testing.T) {
	outs := renderTeam(t)
	if len(outs) != 3 {
		t.Fatalf("%d targets rendered, want 3", len(outs))
	}
	for _, o := range outs {
		for _, f := range o.Files {
			file := filepath.Join("testdata", "golden", o.Target, filepath.FromSlash(f.Path))
			if *update {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, f.Content, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(f.Content, want) {
				t.Errorf("%s differs from %s (run with -update and review the diff):\n%s", f.Path, file, f.Content)
			}
		}
	}
}
