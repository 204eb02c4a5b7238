package inputs

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSaveRacySkipsOutputs: an apply that read an input modified while
// it ran (the usual case right after an edit of actant.cue) records its
// inputs, so that the next apply says why it takes the normal path, but
// not the stat data of the outputs: Check stops at the racy input before
// it looks at them, so settling them (an lstat of each, reading those it
// wrote) was wasted (docs/benchmarks.md, "One edit of actant.cue"). Once
// the input settles, the next Save records the outputs again.
func TestSaveRacySkipsOutputs(t *testing.T) {
	root, home := workspace(t, false)
	src := Sources{Root: root, Home: home, Trees: []string{filepath.Join(root, "skills/s")}}
	if err := save(t, src, Said{}, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	rec := readRecord(t, root)
	if len(rec.Outputs) != 0 || len(rec.Hashed) != 0 || rec.StateStat != (Stat{}) {
		t.Errorf("racy input: %d outputs, %d hashed, state stat %+v recorded", len(rec.Outputs), len(rec.Hashed), rec.StateStat)
	}
	if _, why := Check(root, home); !strings.Contains(why, "actant.cue was modified while the last apply ran (racy)") {
		t.Errorf("racy record: %q", why)
	}
	if err := save(t, src, Said{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if rec := readRecord(t, root); len(rec.Outputs) == 0 {
		t.Error("settled inputs: no outputs recorded")
	}
	if _, why := Check(root, home); why != "" {
		t.Errorf("settled record: %q", why)
	}
}
