package reconcile

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/materialize"
)

// snapOf builds a Snapshot by hand: abs path -> content (absent: missing).
func snapOf(root string, files map[string]string, dirs ...string) *Snapshot {
	s := &Snapshot{Root: root, Files: map[string]*FileInfo{}, Dirs: map[string]bool{root: true}, Backups: map[string][]byte{}}
	for p, c := range files {
		abs := filepath.Join(root, p)
		s.Files[abs] = &FileInfo{Real: abs, Exists: true, Data: []byte(c), Perm: 0o644}
	}
	for _, d := range dirs {
		s.Dirs[filepath.Join(root, d)] = true
	}
	return s
}

func target(root, agent, policy string, es ...materialize.Entry) *materialize.Target {
	return &materialize.Target{Agent: agent, Dir: root, Conflict: policy, Entries: es}
}

// TestPlanTable checks the planner's decisions without any I/O: each case
// is targets x disk x state -> actions.
func TestPlanTable(t *testing.T) {
	root := "/ws"
	skill := materialize.Entry{Path: "s/SKILL.md", Mode: materialize.ModeFile, Content: []byte("skill\n")}
	blk := materialize.Entry{Path: "CLAUDE.md", Mode: materialize.ModeBlock, Style: "html", Content: []byte("hello\n")}
	keys := materialize.Entry{Path: ".mcp.json", Mode: materialize.ModeKeys, Format: "json",
		Keys: []materialize.Key{{Path: []string{"mcpServers", "fs"}, Value: []byte(`{"command":"x"}`)}}}

	// A first plan into an empty workspace, then its state, for the
	// follow-up cases.
	first, err := MakePlan(root, []*materialize.Target{target(root, "a", "append", skill, blk, keys)}, snapOf(root, nil), nil, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	written := map[string]string{}
	for _, op := range first.Ops {
		r, _ := filepath.Rel(root, op.Path)
		written[r] = string(op.Data)
	}

	keysB := materialize.Entry{Path: ".mcp.json", Mode: materialize.ModeKeys, Format: "json",
		Keys: []materialize.Key{{Path: []string{"mcpServers", "b"}, Value: []byte(`{"command":"b"}`)}}}
	blkB := materialize.Entry{Path: "CLAUDE.md", Mode: materialize.ModeBlock, Style: "html", Content: []byte("b\n")}
	// The state of adopting CLAUDE.md with a user's line before the block.
	adoptPlan, err := MakePlan(root, []*materialize.Target{target(root, "a", "append", blk)},
		snapOf(root, map[string]string{"CLAUDE.md": "mine\n\n" + written["CLAUDE.md"]}), nil, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	adopted := adoptPlan.State
	// A teammate's apply of changed content (second), and what it wrote.
	skill2, blk2, keys2 := skill, blk, keys
	skill2.Content, blk2.Content = []byte("skill 2\n"), []byte("hello 2\n")
	keys2.Keys = []materialize.Key{{Path: []string{"mcpServers", "fs"}, Value: []byte(`{"command":"y"}`)}}
	second, err := MakePlan(root, []*materialize.Target{target(root, "a", "append", skill2, blk2, keys2)}, snapOf(root, written, "s"), first.State, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	written2 := map[string]string{}
	for _, op := range second.Ops {
		r, _ := filepath.Rel(root, op.Path)
		written2[r] = string(op.Data)
	}
	// ... then hand edits of each on this machine's checkout: the
	// teammate's digests no longer match, so this machine must update
	// the files to what the config wants, which is written2 again
	// after the config changes once more (skill3).
	skill2.Content, blk2.Content = []byte("skill 3\n"), []byte("hello 3\n")
	keys2.Keys = []materialize.Key{{Path: []string{"mcpServers", "fs"}, Value: []byte(`{"command":"z"}`)}}

	cases := []struct {
		name    string
		targets []*materialize.Target
		files   map[string]string
		state   *State
		opts    PlanOptions
		want    []string // "action path" of ops, then notes
	}{
		{"create in empty workspace", []*materialize.Target{target(root, "a", "append", skill, blk, keys)}, nil, nil, PlanOptions{},
			[]string{"create .mcp.json", "create CLAUDE.md", "create s/SKILL.md"}},
		{"no-op after apply", []*materialize.Target{target(root, "a", "append", skill, blk, keys)}, written, first.State, PlanOptions{}, nil},
		{"drifted block kept", []*materialize.Target{target(root, "a", "append", skill, blk, keys)},
			with(written, "CLAUDE.md", strings.Replace(written["CLAUDE.md"], "hello", "HELLO", 1)), first.State, PlanOptions{},
			[]string{"drift CLAUDE.md"}},
		{"drifted block forced", []*materialize.Target{target(root, "a", "append", skill, blk, keys)},
			with(written, "CLAUDE.md", strings.Replace(written["CLAUDE.md"], "hello", "HELLO", 1)), first.State, PlanOptions{Force: true},
			[]string{"update CLAUDE.md backup"}},
		{"prune deletes created files", nil, written, first.State, PlanOptions{},
			[]string{"delete .mcp.json", "delete CLAUDE.md", "delete s/SKILL.md"}},
		{"no-prune keeps them", nil, written, first.State, PlanOptions{NoPrune: true}, nil},
		{"user file, append: owned file skipped", []*materialize.Target{target(root, "a", "append", skill)},
			map[string]string{"s/SKILL.md": "mine"}, nil, PlanOptions{}, []string{"warning s/SKILL.md"}},
		{"user file, error: conflict", []*materialize.Target{target(root, "a", "error", skill, blk)},
			map[string]string{"s/SKILL.md": "mine", "CLAUDE.md": "mine"}, nil, PlanOptions{},
			[]string{"conflict CLAUDE.md", "conflict s/SKILL.md"}},
		{"user file, skip", []*materialize.Target{target(root, "a", "skip", skill, blk)},
			map[string]string{"CLAUDE.md": "mine"}, nil, PlanOptions{}, []string{"create s/SKILL.md", "skip CLAUDE.md"}},
		{"user file, overwrite: backed up", []*materialize.Target{target(root, "a", "overwrite", skill)},
			map[string]string{"s/SKILL.md": "mine"}, nil, PlanOptions{Stamp: "T"}, []string{"update s/SKILL.md backup"}},
		{"user key, append: conflict", []*materialize.Target{target(root, "a", "append", keys)},
			map[string]string{".mcp.json": `{"mcpServers":{"fs":{"command":"mine"}}}`}, nil, PlanOptions{}, []string{"conflict .mcp.json"}},
		{"user key in a file actctl edits, append: conflict", []*materialize.Target{target(root, "a", "append", skill, blk, keys), target(root, "b", "append", keysB)},
			with(written, ".mcp.json", `{"mcpServers":{"fs":{"command":"x"},"b":{"command":"mine"}}}`), first.State, PlanOptions{}, []string{"conflict .mcp.json"}},
		{"user key in a file actctl edits, skip: left alone", []*materialize.Target{target(root, "a", "append", skill, blk, keys), target(root, "b", "skip", keysB)},
			with(written, ".mcp.json", `{"mcpServers":{"fs":{"command":"x"},"b":{"command":"mine"}}}`), first.State, PlanOptions{}, []string{"skip .mcp.json"}},
		{"user key in a file actctl edits, overwrite: replaced", []*materialize.Target{target(root, "a", "append", skill, blk, keys), target(root, "b", "overwrite", keysB)},
			with(written, ".mcp.json", `{"mcpServers":{"fs":{"command":"x"},"b":{"command":"mine"}}}`), first.State, PlanOptions{}, []string{"update .mcp.json"}},
		// Provenance: markers actctl has no record of are the user's.
		{"foreign block markers, append: conflict", []*materialize.Target{target(root, "a", "append", blk)},
			map[string]string{"CLAUDE.md": "mine\n<!-- BEGIN actctl agent=a -->\nfrom another repo\n<!-- END actctl agent=a -->\n"}, nil, PlanOptions{},
			[]string{"conflict CLAUDE.md"}},
		{"foreign block markers in a file actctl edits: conflict", []*materialize.Target{target(root, "a", "append", skill, blk, keys), target(root, "b", "append", blkB)},
			with(written, "CLAUDE.md", written["CLAUDE.md"]+"```\n<!-- BEGIN actctl agent=b -->\nexample\n<!-- END actctl agent=b -->\n```\n"), first.State, PlanOptions{},
			[]string{"conflict CLAUDE.md"}},
		{"foreign block markers, skip: left alone", []*materialize.Target{target(root, "a", "skip", skill, blk, keys)},
			with(written, "CLAUDE.md", "<!-- BEGIN actctl agent=a -->\nmine\n<!-- END actctl agent=a -->\n"), stateWithout(first.State, "CLAUDE.md"), PlanOptions{},
			[]string{"skip CLAUDE.md"}},
		{"block kept as the user's on prune, agent back: conflict", []*materialize.Target{target(root, "a", "append", blk)},
			map[string]string{"CLAUDE.md": strings.Replace(written["CLAUDE.md"], "hello", "HELLO", 1)}, nil, PlanOptions{},
			[]string{"conflict CLAUDE.md"}},
		{"block exactly as apply writes it: adopted, nothing written", []*materialize.Target{target(root, "a", "append", blk)},
			map[string]string{"CLAUDE.md": "mine\n\n" + written["CLAUDE.md"]}, nil, PlanOptions{}, nil},
		{"adopted block: prune leaves it", nil,
			map[string]string{"CLAUDE.md": "mine\n\n" + written["CLAUDE.md"]}, adopted, PlanOptions{}, nil},
		// A teammate's newer output (its digest in the committed record)
		// is actctl's, not a hand edit.
		{"committed record's digest counts as actctl's", []*materialize.Target{target(root, "a", "append", skill2, blk2, keys2)},
			written2, merged(first.State, second.State), PlanOptions{AtHead: func(string, []byte) bool { return true }},
			[]string{"update .mcp.json", "update CLAUDE.md", "update s/SKILL.md"}},
		{"without it, the same files are drift", []*materialize.Target{target(root, "a", "append", skill2, blk2, keys2)},
			written2, first.State, PlanOptions{},
			[]string{"drift .mcp.json", "drift CLAUDE.md", "drift s/SKILL.md"}},
		// A record from elsewhere is a claim (docs/design.md, "Ownership and provenance": "Records from
		// elsewhere"): an agent neither declared nor applied here is
		// not pruned on its word; a claimed entry is removed only where
		// git holds the file as it is at HEAD.
		{"committed record alone, agent unknown here: not pruned", nil, written, unknownMerged(NewState(), first.State), PlanOptions{}, nil},
		{"claims git holds at HEAD: prune deletes", nil, written, claimed(first.State), PlanOptions{AtHead: func(string, []byte) bool { return true }},
			[]string{"delete .mcp.json", "delete CLAUDE.md", "delete s/SKILL.md"}},
		{"claims git does not hold: kept as the user's", nil, written, claimed(first.State), PlanOptions{AtHead: func(string, []byte) bool { return false }},
			[]string{"warning .mcp.json", "warning CLAUDE.md", "warning s/SKILL.md"}},
		// An update may rest on a claim; what it replaces is backed up
		// unless git holds it.
		{"claims updated, git holds them", []*materialize.Target{target(root, "a", "append", skill2, blk2, keys2)}, written2, claimed(second.State),
			PlanOptions{AtHead: func(string, []byte) bool { return true }},
			[]string{"update .mcp.json", "update CLAUDE.md", "update s/SKILL.md"}},
		{"claims updated, git does not hold them: backed up", []*materialize.Target{target(root, "a", "append", skill2, blk2, keys2)}, written2, claimed(second.State),
			PlanOptions{AtHead: func(string, []byte) bool { return false }},
			[]string{"update .mcp.json backup", "update CLAUDE.md backup", "update s/SKILL.md backup"}},
		{"pulled digests (Alt) updated, git does not hold them: backed up", []*materialize.Target{target(root, "a", "append", skill2, blk2, keys2)},
			written2, merged(first.State, second.State), PlanOptions{AtHead: func(string, []byte) bool { return false }},
			[]string{"update .mcp.json backup", "update CLAUDE.md backup", "update s/SKILL.md backup"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := MakePlan(root, c.targets, snapOf(root, c.files, "s"), c.state, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, op := range p.Ops {
				s := string(op.Action) + " " + op.Rel
				if op.BackupTo != "" {
					s += " backup"
				}
				got = append(got, s)
			}
			for _, n := range p.Notes {
				got = append(got, string(n.Action)+" "+n.Rel)
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

func with(m map[string]string, k, v string) map[string]string {
	out := map[string]string{}
	for a, b := range m {
		out[a] = b
	}
	out[k] = v
	return out
}

// stateWithout returns a copy of st without the records of path.
func stateWithout(st *State, path string) *State {
	out := st.clone()
	for _, a := range out.Agents {
		var es []EntryState
		for _, e := range a.Entries {
			if e.Path != path {
				es = append(es, e)
			}
		}
		a.Entries = es
	}
	return out
}

// merged is mergeOwned with every agent declared.
func merged(st, owned *State) *State {
	out, _ := mergeOwned(st, owned, func(string) bool { return true })
	return out
}

// unknownMerged is mergeOwned with no agent declared.
func unknownMerged(st, owned *State) *State {
	out, unknown := mergeOwned(st, owned, func(string) bool { return false })
	if len(unknown) == 0 {
		panic("no agent left out")
	}
	return out
}

// claimed is st with every entry a claim (EntryState.Claim).
func claimed(st *State) *State {
	out := st.clone()
	for _, a := range out.Agents {
		a.Entries = claims(a.Entries)
	}
	return out
}
