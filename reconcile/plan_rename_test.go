package reconcile

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/materialize"
)

// TestPlanRenameMovesBlock: an agent renamed in the config takes its
// block over in place (markers renamed, position and the user's text
// around it kept, an adopted block still adopted) instead of the old
// block being kept or pruned and a copy appended; several renames in one
// file pair by body; --no-prune and a still-declared agent move nothing
// (issue #34 item 13).
func TestPlanRenameMovesBlock(t *testing.T) {
	root := "/ws"
	blk := func(body string) materialize.Entry {
		return materialize.Entry{Path: "CLAUDE.md", Mode: materialize.ModeBlock, Style: "html", Content: []byte(body)}
	}
	markers := func(agent, body string) string {
		return "<!-- BEGIN actctl agent=" + agent + " -->\n" + body + "<!-- END actctl agent=" + agent + " -->\n"
	}
	// plan runs one apply of targets over file and returns the file's new
	// bytes and the state.
	plan := func(t *testing.T, file string, st *State, o PlanOptions, ts ...*materialize.Target) (string, *State, *Plan) {
		t.Helper()
		p, err := MakePlan(root, ts, snapOf(root, map[string]string{"CLAUDE.md": file}), st, o)
		if err != nil {
			t.Fatal(err)
		}
		out := file
		for _, op := range p.Ops {
			if filepath.Base(op.Path) == "CLAUDE.md" {
				out = string(op.Data)
			}
		}
		return out, p.State, p
	}
	record := func(st *State, agent string) *EntryState {
		if a, ok := st.Agents[agent]; ok {
			for i := range a.Entries {
				if a.Entries[i].Path == "CLAUDE.md" {
					return &a.Entries[i]
				}
			}
		}
		return nil
	}

	t.Run("adopted block, same body", func(t *testing.T) {
		file := "mine\n\n" + markers("claude-code", "hello\n") + "\ntail\n"
		_, st, _ := plan(t, file, nil, PlanOptions{}, target(root, "claude-code", "append", blk("hello\n")))
		if r := record(st, "claude-code"); r == nil || !r.Adopted {
			t.Fatalf("setup: not adopted: %+v", r)
		}
		got, st2, p := plan(t, file, st, PlanOptions{}, target(root, "dev", "append", blk("hello\n")))
		if want := "mine\n\n" + markers("dev", "hello\n") + "\ntail\n"; got != want {
			t.Fatalf("CLAUDE.md =\n%s\nwant\n%s", got, want)
		}
		if r := record(st2, "dev"); r == nil || !r.Adopted {
			t.Errorf("dev's record %+v: want the block, still adopted", r)
		}
		if record(st2, "claude-code") != nil {
			t.Errorf("claude-code still recorded")
		}
		if !strings.Contains(planText(p), `the block of removed agent "claude-code" is now agent "dev"'s, in place`) {
			t.Errorf("plan does not say the block moved:\n%s", planText(p))
		}
	})
	t.Run("written block, new body", func(t *testing.T) {
		file, st, _ := plan(t, "top\n", nil, PlanOptions{}, target(root, "a", "append", blk("one\n")))
		file += "below\n"
		got, st2, _ := plan(t, file, st, PlanOptions{}, target(root, "b", "append", blk("two\n")))
		if want := "top\n\n" + markers("b", "two\n") + "below\n"; got != want {
			t.Fatalf("CLAUDE.md =\n%q\nwant\n%q", got, want)
		}
		if record(st2, "b") == nil || record(st2, "a") != nil {
			t.Errorf("records: a %+v, b %+v", record(st2, "a"), record(st2, "b"))
		}
	})
	t.Run("two renames pair by body", func(t *testing.T) {
		file, st, _ := plan(t, "", nil, PlanOptions{}, target(root, "a", "append", blk("A\n")), target(root, "b", "append", blk("B\n")))
		got, _, _ := plan(t, file, st, PlanOptions{}, target(root, "c", "append", blk("B\n")), target(root, "d", "append", blk("A\n")))
		if want := markers("d", "A\n") + "\n" + markers("c", "B\n"); got != want {
			t.Fatalf("CLAUDE.md =\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("no-prune keeps the old block", func(t *testing.T) {
		file, st, _ := plan(t, "", nil, PlanOptions{}, target(root, "a", "append", blk("A\n")))
		got, _, _ := plan(t, file, st, PlanOptions{NoPrune: true}, target(root, "b", "append", blk("A\n")))
		if want := markers("a", "A\n") + "\n" + markers("b", "A\n"); got != want {
			t.Fatalf("CLAUDE.md =\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("a declared agent keeps its block", func(t *testing.T) {
		file, st, _ := plan(t, "", nil, PlanOptions{}, target(root, "a", "append", blk("A\n")))
		other := target(root, "a", "append", materialize.Entry{Path: "s.md", Mode: materialize.ModeFile, Content: []byte("x\n")})
		got, _, _ := plan(t, file, st, PlanOptions{}, other, target(root, "b", "append", blk("A\n")))
		if want := markers("b", "A\n"); got != want {
			t.Fatalf("CLAUDE.md =\n%s\nwant\n%s", got, want)
		}
	})
}

// planText is every op's path, agents and reasons, one per line.
func planText(p *Plan) string {
	var b strings.Builder
	for _, op := range p.Ops {
		b.WriteString(op.Rel + " " + strings.Join(op.Agents, ",") + " " + op.Reason + "\n")
	}
	return b.String()
}
