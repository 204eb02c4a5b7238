package reconcile

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// TestOwnedRecord: the committed record holds only agents at or below the
// root, with relative directories and without backups; it reads back to
// the same record, and one naming an absolute directory is refused.
func TestOwnedRecord(t *testing.T) {
	root := t.TempDir()
	st := NewState()
	st.Root = root
	st.Agents["here"] = &AgentState{Dir: root, Entries: []EntryState{
		{Path: "CLAUDE.md", Mode: materialize.ModeBlock, SHA256: "b", Backup: ".actant/backup/x/CLAUDE.md"},
		{Path: "a/SKILL.md", Mode: materialize.ModeFile, SHA256: "a", Created: true, Alt: []string{"z"}},
	}}
	st.Agents["below"] = &AgentState{Dir: filepath.Join(root, "sub", "dir"), Entries: []EntryState{{Path: "AGENTS.md", Mode: materialize.ModeBlock, SHA256: "c"}}}
	st.Agents["instance"] = &AgentState{Dir: filepath.Join(t.TempDir(), "instances", "x"), Entries: []EntryState{{Path: "AGENTS.md", Mode: materialize.ModeBlock, SHA256: "d"}}}

	o := ownedOf(st, root, nil)
	data := string(encodeOwned(o))
	if st.Agents["here"].Entries[0].Backup == "" || st.Agents["here"].Entries[1].Alt == nil {
		t.Fatal("ownedOf changed the state it was given")
	}
	if strings.Contains(data, root) || strings.Contains(data, "instance") || strings.Contains(data, "backup") || strings.Contains(data, `"z"`) {
		t.Fatalf("machine-local data in the record:\n%s", data)
	}
	if !strings.Contains(data, `"dir": "sub/dir"`) || !strings.Contains(data, `"dir": "."`) {
		t.Fatalf("directories not relative:\n%s", data)
	}
	if err := os.WriteFile(filepath.Join(root, OwnedFile), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := readOwned(root)
	if err != nil {
		t.Fatal(err)
	}
	if !equalStates(rec.st, o) || rec.sum != sum([]byte(data)) {
		t.Fatalf("read back differs:\n%s", encodeOwned(rec.st))
	}
	abs := rec.absolute(root)
	if abs.Agents["below"].Dir != filepath.Join(root, "sub", "dir") {
		t.Errorf("absolute: %+v", abs.Agents["below"])
	}

	bad := strings.Replace(data, `"dir": "sub/dir"`, `"dir": "/etc"`, 1)
	os.WriteFile(filepath.Join(root, OwnedFile), []byte(bad), 0o644)
	if _, err := readOwned(root); err == nil || !strings.Contains(err.Error(), "not relative") {
		t.Fatalf("absolute dir accepted: %v", err)
	}
	bad = strings.Replace(data, `"dir": "sub/dir"`, `"dir": "../out"`, 1)
	os.WriteFile(filepath.Join(root, OwnedFile), []byte(bad), 0o644)
	if _, err := readOwned(root); err == nil {
		t.Fatalf("escaping dir accepted")
	}
}

// TestAdhocAgentsStayLocal: an agent `actctl proxy -t` created (recorded
// in .actant/adhoc.json, not in actant.cue) is not in the committed
// record: a clone does not have it.
func TestAdhocAgentsStayLocal(t *testing.T) {
	root := t.TempDir()
	cfg := casConfig("v1", true) + "agents: other: template: \"lead\"\nagents: other: workDir: \"sub\"\n"
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := schema.LoadDir(root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := c.Agents["other"]
	a.Adhoc = true
	c.Agents["other"] = a
	if _, err := Apply(context.Background(), c, Options{}); err != nil {
		t.Fatal(err)
	}
	rec, err := readOwned(root)
	if err != nil || rec.st == nil {
		t.Fatalf("no record: %v", err)
	}
	if _, ok := rec.st.Agents["other"]; ok || rec.st.Agents["lead"] == nil {
		t.Fatalf("record: %s", rec.data)
	}
}

// TestOwnedRecordOfThisMachine: the record this machine's last apply
// wrote is not decoded (its digest is the state's), is left alone by an
// apply that changes nothing, and is re-encoded when a file changes; a
// record from elsewhere that records the same in another layout is
// decoded and kept as it is.
func TestOwnedRecordOfThisMachine(t *testing.T) {
	root := t.TempDir()
	casApply(t, root, casConfig("v1", true), nil)
	st, _, err := ReadState(metaPath(root, StateFile))
	if err != nil {
		t.Fatal(err)
	}
	op := filepath.Join(root, OwnedFile)
	data, err := os.ReadFile(op)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := readOwned(root, "", st.Owned)
	if err != nil || rec.st != nil || string(rec.data) != string(data) || rec.foreign(st, nil) {
		t.Fatalf("this machine's record: decoded %v, err %v, foreign %v", rec.st != nil, err, rec.foreign(st, nil))
	}
	if rec, err := readOwned(root, "other"); err != nil || rec.st == nil {
		t.Fatalf("a record of another digest is not decoded: %v", err)
	}

	before, _ := os.Stat(op)
	casApply(t, root, casConfig("v1", true), nil)
	if after, _ := os.Stat(op); !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("an apply that changed nothing rewrote %s", OwnedFile)
	}
	casApply(t, root, casConfig("v2", true), nil)
	ownedMatchesState(t, root, "after an edit")

	// The same record in another layout (compact), as a pull may bring.
	data, _ = os.ReadFile(op)
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(op, compact.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	casApply(t, root, casConfig("v2", true), nil)
	if got, _ := os.ReadFile(op); !bytes.Equal(got, compact.Bytes()) {
		t.Fatalf("a foreign record recording the same was rewritten:\n%s", got)
	}
	if st, _, _ := ReadState(metaPath(root, StateFile)); st.Owned != sum(compact.Bytes()) {
		t.Fatalf("the state does not go with the record it left: %s", st.Owned)
	}
}

// TestClaimStaysAClaim: an entry taken only from a committed record from
// elsewhere stays a claim in state.json (never in actant.owned) until a
// plan finds it exactly as its agent wants it: carried over by a partial
// apply that leaves its agent out, it still cannot be removed on its
// word where git does not hold the file; confirmed, it is this
// machine's. (issue #20 item 1)
func TestClaimStaysAClaim(t *testing.T) {
	root := "/ws"
	skill := materialize.Entry{Path: "s/SKILL.md", Mode: materialize.ModeFile, Content: []byte("skill\n")}
	other := materialize.Entry{Path: "o/SKILL.md", Mode: materialize.ModeFile, Content: []byte("other\n")}
	first, err := MakePlan(root, []*materialize.Target{target(root, "a", "append", skill)}, snapOf(root, nil), nil, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"s/SKILL.md": "skill\n", "o/SKILL.md": "other\n"}
	st := merged(NewState(), first.State)
	if !st.Agents["a"].Entries[0].Claim {
		t.Fatal("an entry of the record alone is not a claim")
	}
	both := []*materialize.Target{target(root, "a", "append", skill), target(root, "b", "append", other)}

	// apply b: a is left out, its claim carried over, and kept a claim
	// through state.json, but never written into actant.owned.
	partial, err := MakePlan(root, both, snapOf(root, files, "s", "o"), st, PlanOptions{Only: []string{"b"}})
	if err != nil {
		t.Fatal(err)
	}
	back, err := parseState(partial.State.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if !back.Agents["a"].Entries[0].Claim {
		t.Fatalf("claim lost through state.json: %s", partial.State.Encode())
	}
	if o := encodeOwned(ownedOf(back, root, nil)); strings.Contains(string(o), "claim") {
		t.Fatalf("claim in actant.owned:\n%s", o)
	}

	// a removed: its file is kept, git holding nothing.
	prune, err := MakePlan(root, both[1:], snapOf(root, files, "s", "o"), back, PlanOptions{AtHead: func(string, []byte) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(prune); strings.Join(got, ",") != "warning s/SKILL.md" {
		t.Fatalf("prune of a claim: %v", got)
	}

	// a applied: the claim is confirmed, and a later prune is this
	// machine's word.
	full, err := MakePlan(root, both, snapOf(root, files, "s", "o"), back, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if full.State.Agents["a"].Entries[0].Claim {
		t.Fatal("a claim its agent wants exactly is not confirmed")
	}
	prune, err = MakePlan(root, both[1:], snapOf(root, files, "s", "o"), full.State, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(prune); strings.Join(got, ",") != "delete s/SKILL.md" {
		t.Fatalf("prune of a confirmed entry: %v", got)
	}
}

// actions are a plan's "action path" of ops, then of notes.
func actions(p *Plan) []string {
	var out []string
	for _, op := range p.Ops {
		out = append(out, string(op.Action)+" "+op.Rel)
	}
	for _, n := range p.Notes {
		out = append(out, string(n.Action)+" "+n.Rel)
	}
	return out
}

// TestClaimSanitized: a committed record from elsewhere cannot widen what
// prune takes away around a block or key: a separator that is not line
// endings, directories that are not the entry's parents, and receipt
// parts holding more than whitespace are dropped as it is read; what
// apply itself records passes unchanged. (issue #20 item 1)
func TestClaimSanitized(t *testing.T) {
	root := t.TempDir()
	rec := `{"version": 1, "agents": {"a": {"dir": ".", "entries": [
	{"path": "CLAUDE.md", "mode": "block", "sha256": "b", "style": "html", "sep": "# my title\n", "dirs": ["..", "x", "."]},
	{"path": "AGENTS.md", "mode": "block", "sha256": "b", "style": "html", "sep": "\r\n\r\n"},
	{"path": "x/y/z.json", "mode": "keys", "format": "json", "dirs": ["x", "x/y", "x/yz"], "keys": [
		{"path": ["k"], "sha256": "k", "receipt": {"created": 1, "doc": "{\"mine\": 1}", "closing": "\n  "}},
		{"path": ["l"], "sha256": "l", "receipt": {"doc": "  \n", "closing": "}"}},
		{"path": ["m"], "sha256": "m", "receipt": {"sep": "[user]\n"}},
		{"path": ["n"], "sha256": "n", "receipt": {"sep": "\n\n", "replaced": true, "old": "1"}}
	]}]}}}`
	if err := os.WriteFile(filepath.Join(root, OwnedFile), []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := readOwned(root)
	if err != nil {
		t.Fatal(err)
	}
	es := o.st.Agents["a"].Entries
	if es[0].Sep != "" || strings.Join(es[0].Dirs, ",") != "." || es[1].Sep != "\r\n\r\n" {
		t.Errorf("blocks: %+v", es[:2])
	}
	if strings.Join(es[2].Dirs, ",") != "x,x/y" {
		t.Errorf("dirs: %v", es[2].Dirs)
	}
	want := []string{`{"closing":"\n  ","created":1}`, `{"doc":"  \n"}`, `{}`, `{"sep":"\n\n","replaced":true,"old":"1"}`}
	for i, k := range es[2].Keys {
		if string(k.Receipt) != want[i] {
			t.Errorf("receipt of %v: %s, want %s", k.Path, k.Receipt, want[i])
		}
	}
}
