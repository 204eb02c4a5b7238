package reconcile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// TestPlanExecBit: an owned file's executable bit is planned like its
// bytes: written on create, a change of the bit alone is an update, a bit
// flipped by hand is drift (kept unless --force), and a no-op plans
// nothing.
func TestPlanExecBit(t *testing.T) {
	root := "/ws"
	script := func(exec bool) materialize.Entry {
		return materialize.Entry{Path: "s/run.sh", Mode: materialize.ModeFile, Content: []byte("#!/bin/sh\n"), Exec: exec}
	}
	disk := func(perm fs.FileMode) *Snapshot {
		s := snapOf(root, map[string]string{"s/run.sh": "#!/bin/sh\n"}, "s")
		s.Files[filepath.Join(root, "s/run.sh")].Perm = perm
		return s
	}
	stateOf := func(exec bool) *State {
		p, err := MakePlan(root, []*materialize.Target{target(root, "a", "append", script(exec))}, snapOf(root, nil, "s"), nil, PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p.State
	}
	cases := []struct {
		name   string
		exec   bool
		disk   *Snapshot
		state  *State
		force  bool
		want   string // ops ("action path perm"), then notes
		record bool   // the Exec recorded for the entry
	}{
		{"create executable", true, snapOf(root, nil, "s"), nil, false, "create s/run.sh 0755", true},
		{"create plain", false, snapOf(root, nil, "s"), nil, false, "create s/run.sh 0644", false},
		{"no-op", true, disk(0o755), stateOf(true), false, "", true},
		{"bit set in the config", true, disk(0o644), stateOf(false), false, "update s/run.sh 0755", true},
		{"bit cleared in the config", false, disk(0o750), stateOf(true), false, "update s/run.sh 0640", false},
		{"bit cleared by hand", true, disk(0o644), stateOf(true), false, "drift s/run.sh", true},
		{"bit set by hand", false, disk(0o755), stateOf(false), false, "drift s/run.sh", false},
		{"bit cleared by hand, forced", true, disk(0o644), stateOf(true), true, "update s/run.sh 0755", true},
		{"adopted with another mode", true, disk(0o600), nil, false, "update s/run.sh 0700", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := MakePlan(root, []*materialize.Target{target(root, "a", "append", script(c.exec))}, c.disk, c.state, PlanOptions{Force: c.force})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, op := range p.Ops {
				got = append(got, fmt.Sprintf("%s %s %04o", op.Action, op.Rel, op.Perm))
				if !op.SetPerm {
					t.Errorf("%s: SetPerm not set", op.Rel)
				}
				if op.Action == ActUpdate && string(op.Data) != "#!/bin/sh\n" {
					t.Errorf("%s: data %q", op.Rel, op.Data)
				}
			}
			for _, n := range p.Notes {
				got = append(got, string(n.Action)+" "+n.Rel)
				if n.Action == ActDrift && !strings.Contains(n.Reason, "mode changed since the last apply") {
					t.Errorf("drift reason %q", n.Reason)
				}
			}
			if g := strings.Join(got, "\n"); g != c.want {
				t.Errorf("got\n%s\nwant\n%s", g, c.want)
			}
			es := p.State.Agents["a"].Entries
			if len(es) != 1 || es[0].Exec != c.record {
				t.Errorf("recorded %+v, want Exec %v", es, c.record)
			}
		})
	}
}

// TestTargetsDigestExec: a change of the executable bit alone changes the
// config digest (digestTargets, recorded as the state's ConfigDigest).
func TestTargetsDigestExec(t *testing.T) {
	e := materialize.Entry{Path: "s/run.sh", Mode: materialize.ModeFile, Content: []byte("x")}
	a, _ := digestTargets([]*materialize.Target{{Agent: "a", Entries: []materialize.Entry{e}}})
	e.Exec = true
	if b, _ := digestTargets([]*materialize.Target{{Agent: "a", Entries: []materialize.Entry{e}}}); a == b {
		t.Error("digest ignores Exec")
	}
}

// execApply plans and executes targets against root's state and journal,
// with the crash hook set to crash; it returns errCrashed when crash stopped it.
func execApply(t *testing.T, root string, targets []*materialize.Target, crash func(string) bool) (*Plan, error) {
	t.Helper()
	st, data, err := ReadState(metaPath(root, StateFile))
	if err != nil {
		t.Fatal(err)
	}
	var pending *State
	if _, err := os.Stat(metaPath(root, PendingFile)); err == nil {
		if pending, _, err = ReadState(metaPath(root, PendingFile)); err != nil {
			t.Fatal(err)
		}
	}
	r := &run{cfg: &schema.Config{Root: root}, targets: targets}
	if err := r.makePlan(st, data, pending, Options{}); err != nil {
		t.Fatal(err)
	}
	r.crash = crash
	_, err = r.execute(context.Background())
	return r.plan, err
}

// TestCrashModeChange: a kill -9 before any step of an apply that only
// flips a script's executable bit leaves a workspace the next apply
// converges from (the journal does not claim a mode the disk lacks), and
// the apply after that plans nothing.
func TestCrashModeChange(t *testing.T) {
	script := func(root string, exec bool) []*materialize.Target {
		return []*materialize.Target{target(root, "a", "append",
			materialize.Entry{Path: "s/run.sh", Mode: materialize.ModeFile, Content: []byte("#!/bin/sh\n"), Exec: exec})}
	}
	for k := 0; ; k++ {
		root := t.TempDir()
		if _, err := execApply(t, root, script(root, false), nil); err != nil {
			t.Fatal(err)
		}
		n := 0
		_, err := execApply(t, root, script(root, true), func(string) bool { n++; return n > k })
		if err == nil {
			break // k is past the last step
		}
		if !errors.Is(err, errCrashed) {
			t.Fatal(err)
		}
		if _, err := execApply(t, root, script(root, true), nil); err != nil {
			t.Fatalf("after a kill before step %d: %v", k, err)
		}
		fi, err := os.Stat(filepath.Join(root, "s/run.sh"))
		if err != nil || fi.Mode().Perm() != 0o755 {
			t.Fatalf("after a kill before step %d: %v %v, want mode 0755", k, fi.Mode(), err)
		}
		p, err := execApply(t, root, script(root, true), nil)
		if err != nil || len(p.Ops) != 0 || len(p.Notes) != 0 {
			t.Fatalf("after a kill before step %d, a further apply plans %+v %+v (%v)", k, p.Ops, p.Notes, err)
		}
	}
}
