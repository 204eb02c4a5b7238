package inputs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/internal/userkey"
	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/reconcile"
)

func TestIdentity(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "actctl")
	write(t, exe, "build one")
	bi := func(rev, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/actctl/actctl", Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}}
	}
	base := identity(bi("abc", "false"), exe)
	if base == "" || base != identity(bi("abc", "false"), exe) {
		t.Fatalf("identity not stable: %q", base)
	}
	if identity(bi("abd", "false"), exe) == base || identity(bi("abc", "true"), exe) == base {
		t.Error("another revision or a modified tree has the same identity")
	}
	if identity(nil, exe) == base {
		t.Error("a build without build info has the same identity")
	}
	// A rebuild from the same modified tree records the same VCS data:
	// the executable it replaces tells them apart.
	dirty := identity(bi("abc", "true"), exe)
	next := exe + ".new"
	write(t, next, "build two")
	if err := os.Rename(next, exe); err != nil {
		t.Fatal(err)
	}
	if identity(bi("abc", "true"), exe) == dirty {
		t.Error("a rebuilt executable has the same identity")
	}
	if identity(bi("abc", "false"), filepath.Join(t.TempDir(), "gone")) != "" {
		t.Error("a missing executable has an identity")
	}
}

func TestMarkRacy(t *testing.T) {
	start := time.Unix(1_700_000_000, 500_000_000)
	cases := []struct {
		name string
		s    Stat
		racy bool
	}{
		{"an hour before", Stat{Mtime: start.Add(-time.Hour).UnixNano()}, false},
		{"just outside the slack", Stat{Mtime: start.Add(-racySlack - time.Millisecond).UnixNano()}, false},
		{"inside the slack", Stat{Mtime: start.Add(-racySlack / 2).UnixNano()}, true},
		{"after the start", Stat{Mtime: start.Add(time.Second).UnixNano()}, true},
		{"whole second, within the coarse slack", Stat{Mtime: start.Truncate(time.Second).Add(-time.Second).UnixNano()}, true},
		{"whole second, long before", Stat{Mtime: start.Truncate(time.Second).Add(-time.Minute).UnixNano()}, false},
		{"missing", Stat{Missing: true}, false},
		{"presence only", Stat{Presence: true, Mtime: start.UnixNano()}, false},
	}
	for _, c := range cases {
		c.s.markRacy(start)
		if c.s.Racy != c.racy {
			t.Errorf("%s: racy %v, want %v", c.name, c.s.Racy, c.racy)
		}
	}
}

func TestCompare(t *testing.T) {
	a := Stat{Path: "/w/a.cue", Size: 1, Mtime: 10}
	b := Stat{Path: "/w/b.cue", Size: 2, Mtime: 20}
	c := Stat{Path: "/w/c.cue", Size: 3, Mtime: 30}
	changed := b
	changed.Ctime = 99
	racy := b
	racy.Racy = true
	cases := []struct {
		rec, now []Stat
		want     string
	}{
		{[]Stat{a, b}, []Stat{a, b}, ""},
		{[]Stat{a, b}, []Stat{a, b, c}, "/w/c.cue is new"},
		{[]Stat{a, c}, []Stat{a, b, c}, "/w/b.cue is new"},
		{[]Stat{a, b, c}, []Stat{a, c}, "/w/b.cue is gone"},
		{[]Stat{a, b}, []Stat{a, changed}, "/w/b.cue changed"},
		{[]Stat{a, racy}, []Stat{a, b}, "/w/b.cue was modified while the last apply ran (racy)"},
	}
	for i, tc := range cases {
		if got := compare(tc.rec, tc.now); got != tc.want {
			t.Errorf("case %d: %q, want %q", i, got, tc.want)
		}
	}
}

// workspace is a root with actant.cue, a skill directory, a committed
// record (actant.owned) and one agent whose state records an owned file,
// a block in a user's file and a directory; its inputs recorded as by an
// apply an hour after they were written. Its outputs, state and committed
// record are racy (just written: Check hashes them) unless settled.
func workspace(t *testing.T, settled bool) (root, home string) {
	t.Helper()
	root, home = t.TempDir(), t.TempDir()
	// The cache key first: making it (a synced write) must not come
	// between the outputs' writes and Save.
	if k, why := cacheKey(root, home, true); k == nil {
		t.Fatal(why)
	}
	write(t, filepath.Join(root, "actant.cue"), "package actant\n")
	write(t, filepath.Join(root, "skills/s/SKILL.md"), "skill\n")
	write(t, filepath.Join(root, "out/skill.md"), "owned\n")
	write(t, filepath.Join(root, "out/USER.md"), "mine\n<!-- block -->\n")
	write(t, filepath.Join(root, reconcile.OwnedFile), ownedRecord)
	st := reconcile.NewState()
	st.Root, st.Owned = root, sum(ownedRecord)
	st.Agents["a"] = &reconcile.AgentState{Dir: root, Entries: []reconcile.EntryState{
		{Path: "out", Mode: materialize.ModeDir},
		{Path: "out/skill.md", Mode: materialize.ModeFile, SHA256: sum("owned\n")},
		{Path: "out/USER.md", Mode: materialize.ModeBlock, SHA256: sum("block"), FileSHA: sum("mine\n<!-- block -->\n")},
	}}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	write(t, layout.Path(root, layout.State), string(b))
	old := time.Now().Add(-time.Hour)
	aged := []string{"actant.cue", "skills/s/SKILL.md"}
	if settled {
		// Outputs written before the apply started (it found them as it
		// wants them): their stat data is trusted, none is read.
		aged = append(aged, "out", "out/skill.md", "out/USER.md", ".actant/state.json", reconcile.OwnedFile)
	}
	for _, p := range aged {
		if err := os.Chtimes(filepath.Join(root, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if settled {
		pastCtime(t, root, filepath.Join(root, aged[len(aged)-1]))
	} else {
		holdRacy(t, root, "out/skill.md", "out/USER.md")
	}
	if err := save(t, Sources{Root: root, Home: home, Trees: []string{filepath.Join(root, "skills/s")}}, Said{Config: []string{"a warning"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	return root, home
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, root string)
		why    string
	}{
		{"nothing", func(*testing.T, string) {}, ""},
		{"config edited", func(t *testing.T, root string) { write(t, filepath.Join(root, "actant.cue"), "package actant\n\n") }, "actant.cue changed"},
		{"config added", func(t *testing.T, root string) { write(t, filepath.Join(root, "more.cue"), "package actant\n") }, "more.cue is new"},
		{"config removed", func(t *testing.T, root string) { rm(t, filepath.Join(root, "actant.cue")) }, "actant.cue is gone"},
		{"cue.mod created", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "cue.mod/module.cue"), "module: \"x\"\n")
		}, "cue.mod changed"},
		{"skill file added", func(t *testing.T, root string) { write(t, filepath.Join(root, "skills/s/x.sh"), "x") }, "x.sh is new"},
		{"skill touched", func(t *testing.T, root string) {
			now := time.Now()
			if err := os.Chtimes(filepath.Join(root, "skills/s/SKILL.md"), now, now); err != nil {
				t.Fatal(err)
			}
		}, "SKILL.md changed"},
		{"lock written", func(t *testing.T, root string) { write(t, filepath.Join(root, "actant.lock"), "{}") }, "actant.lock changed"},
		{"adhoc written", func(t *testing.T, root string) { write(t, layout.Path(root, layout.Adhoc), "{}") }, "adhoc.json changed"},
		{"git repository above", func(t *testing.T, root string) {
			if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, ".git changed"},
		{"state changed", func(t *testing.T, root string) {
			p := layout.Path(root, layout.State)
			b, _ := os.ReadFile(p)
			write(t, p, string(b)+"\n")
		}, "state.json changed"},
		{"journal", func(t *testing.T, root string) { write(t, layout.Path(root, layout.Pending), "{}") }, "journal exists"},
		{"owned edited, same size", func(t *testing.T, root string) { write(t, filepath.Join(root, "out/skill.md"), "mined\n") }, "skill.md changed since the last apply"},
		{"owned deleted", func(t *testing.T, root string) { rm(t, filepath.Join(root, "out/skill.md")) }, "out/skill.md"},
		{"owned made executable", func(t *testing.T, root string) {
			if err := os.Chmod(filepath.Join(root, "out/skill.md"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "out/skill.md"},
		{"owned replaced by a link", func(t *testing.T, root string) {
			rm(t, filepath.Join(root, "out/skill.md"))
			if err := os.Symlink("USER.md", filepath.Join(root, "out/skill.md")); err != nil {
				t.Fatal(err)
			}
		}, "out/skill.md"},
		{"user's file edited", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "out/USER.md"), "mine, more\n<!-- block -->\n")
		}, "USER.md changed since the last apply"},
		{"state replaced, same size, mtime set back", func(t *testing.T, root string) {
			sameSize(t, layout.Path(root, layout.State), "skill.md", "skill.mx", true)
		}, "state.json changed"},
		{"committed record edited, same size, mtime set back", func(t *testing.T, root string) {
			sameSize(t, filepath.Join(root, reconcile.OwnedFile), "skill", "skilL", false)
		}, "not the record the state goes with"},
		{"committed record removed", func(t *testing.T, root string) { rm(t, filepath.Join(root, reconcile.OwnedFile)) }, "not the record the state goes with"},
		{"record damaged", func(t *testing.T, root string) { write(t, layout.Path(root, layout.Inputs), "{") }, "inputs.rec"},
		{"record of another build", func(t *testing.T, root string) { editRecord(t, root, func(r *Record) { r.Build += " rebuilt" }) }, "another actctl build"},
		{"record of another version", func(t *testing.T, root string) { editRecord(t, root, func(r *Record) { r.Version++ }) }, "record version"},
	}
	for _, c := range cases {
		for _, settled := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/settled=%v", c.name, settled), func(t *testing.T) {
				root, home := workspace(t, settled)
				c.change(t, root)
				said, got := Check(root, home)
				if (c.why == "") != (got == "") || !strings.Contains(got, c.why) {
					t.Fatalf("Check: %q, want %q", got, c.why)
				}
				if got == "" && (len(said.Config) != 1 || said.Config[0] != "a warning") {
					t.Fatalf("Check: said %+v, want the recorded warning", said)
				}
			})
		}
	}
}

// ownedRecord stands for actant.owned: Check only compares it with the
// digest the state records.
const ownedRecord = "{\"files\": [\"out/skill.md\"]}\n"

// sameSize replaces old with new (of the same length) in the file p, by
// renaming a new file over it or in place, and sets its mtime back to the
// old one: only its inode or ctime tell the change.
func sameSize(t *testing.T, p, old, new string, rename bool) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	pastCtime(t, filepath.Dir(p), p)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) || len(old) != len(new) {
		t.Fatalf("%s: no %q to replace by %q", p, old, new)
	}
	to := p
	if rename {
		to = p + ".new"
	}
	write(t, to, strings.Replace(string(b), old, new, 1))
	if err := os.Chtimes(to, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if rename {
		if err := os.Rename(to, p); err != nil {
			t.Fatal(err)
		}
	}
	if again, err := os.Stat(p); err != nil || again.Size() != fi.Size() || !again.ModTime().Equal(fi.ModTime()) {
		t.Fatalf("%s: size or mtime changed: %v", p, err)
	}
}

// pastCtime returns once the clock files are stamped with has moved past
// the ctime of p (a file in dir): a change made then gives p a later
// ctime, and Save records p settled. That clock is coarse (it ticks every
// few ms); where fsClock does not read it, a scratch file shows when it
// ticks. From then on the file system's own clock decides (a clock held
// by holdRacy is let go).
func pastCtime(t *testing.T, dir, p string) {
	t.Helper()
	fileClock = fsClock
	was, err := statOf(p, true, false)
	if err != nil {
		t.Fatal(err)
	}
	clock := filepath.Join(dir, "clock")
	defer os.Remove(clock)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		now, known := fsClock()
		if !known {
			write(t, clock, "tick")
			s, err := statOf(clock, true, false)
			if err != nil {
				t.Fatal(err)
			}
			now = s.Ctime
		}
		if now > was.Ctime {
			return
		}
	}
	t.Fatalf("%s: the file system's clock did not pass its ctime", p)
}

// A settled state and committed record are recorded by their stat data,
// which Check then compares instead of hashing them. (Whether ones just
// written are racy depends on the clock's tick: see TestCheckRacyMeta.)
func TestSaveSettlesStateAndOwned(t *testing.T) {
	root, _ := workspace(t, true)
	rec := readRecord(t, root)
	for _, s := range []Stat{rec.StateStat, rec.OwnedStat} {
		if s.Racy || s.Missing || s.Ino == 0 || s.Ctime == 0 {
			t.Errorf("recorded %+v", s)
		}
	}
	if rec.State == "" || rec.Owned != sum(ownedRecord) {
		t.Errorf("digests %q, %q", rec.State, rec.Owned)
	}
}

// A racy state or committed record is hashed: its content decides, not
// its stat data.
func TestCheckRacyMeta(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(t *testing.T, root string)
		why    string
	}{
		{"nothing", func(*testing.T, string) {}, ""},
		{"touched", func(t *testing.T, root string) {
			now := time.Now()
			for _, p := range []string{layout.Path(root, layout.State), filepath.Join(root, reconcile.OwnedFile)} {
				if err := os.Chtimes(p, now, now); err != nil {
					t.Fatal(err)
				}
			}
		}, ""},
		{"state replaced", func(t *testing.T, root string) {
			sameSize(t, layout.Path(root, layout.State), "skill.md", "skill.mx", true)
		}, "state.json changed"},
		{"committed record edited", func(t *testing.T, root string) {
			sameSize(t, filepath.Join(root, reconcile.OwnedFile), "skill", "skilL", false)
		}, "not the record the state goes with"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, home := workspace(t, true)
			editRecord(t, root, func(r *Record) { r.StateStat.Racy, r.OwnedStat.Racy = true, true })
			c.change(t, root)
			if _, why := Check(root, home); (c.why == "") != (why == "") || !strings.Contains(why, c.why) {
				t.Fatalf("Check: %q, want %q", why, c.why)
			}
		})
	}
}

// save is Save as apply calls it: with the state in the workspace, as
// if that apply left it (none: nil).
func save(t *testing.T, src Sources, said Said, start time.Time) error {
	t.Helper()
	st, data := readState(t, src.Root)
	if data == nil {
		_, err := Save(src, said, start, nil, "")
		return err
	}
	_, err := Save(src, said, start, st, digest(data))
	return err
}

// readState reads the state the test's workspace at root holds (the
// plain JSON workspace wrote) and its bytes; none: nil, nil.
func readState(t *testing.T, root string) (*reconcile.State, []byte) {
	t.Helper()
	data, err := os.ReadFile(layout.Path(root, layout.State))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	st := reconcile.NewState()
	if err == nil {
		err = json.Unmarshal(data, st)
	}
	if err != nil {
		t.Fatal(err)
	}
	return st, data
}

func readRecord(t *testing.T, root string) *Record {
	t.Helper()
	b, err := os.ReadFile(layout.Path(root, layout.Inputs))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := decode(recordKey(t, root, b), b)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestCheckRun(t *testing.T) {
	root, home := workspace(t, false)
	if _, why := Check(root, t.TempDir()); !strings.Contains(why, "actctl home") {
		t.Errorf("another home: %q", why)
	}
	t.Setenv("HOME", t.TempDir())
	if _, why := Check(root, home); why != "the environment changed" {
		t.Errorf("another HOME: %q", why)
	}
}

// holdRacy makes the outputs at rels racy for every Save of the test,
// however long the machine takes between their writes and Save (a loaded
// machine let the file system's clock, or racySlack, pass first, and
// the outputs were recorded settled one time in several): they are
// modified after any apply the test starts, and the file system's clock
// never passes their ctime.
func holdRacy(t *testing.T, root string, rels ...string) {
	t.Helper()
	later := time.Now().Add(time.Hour)
	for _, rel := range rels {
		if err := os.Chtimes(filepath.Join(root, rel), later, later); err != nil {
			t.Fatal(err)
		}
	}
	fileClock = func() (int64, bool) { return 0, true }
	t.Cleanup(func() { fileClock = fsClock })
}

func TestSaveRacyAndUnchanged(t *testing.T) {
	root, home := workspace(t, false)
	p := layout.Path(root, layout.Inputs)
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	src := Sources{Root: root, Home: home, Trees: []string{filepath.Join(root, "skills/s")}}
	if err := save(t, src, Said{Config: []string{"a warning"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(p); !os.SameFile(before, after) {
		t.Error("an unchanged record was written again")
	}
	// Recorded by an apply that started before the config was written:
	// racy, whatever the stat data says later.
	if err := save(t, src, Said{}, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, why := Check(root, home); !strings.Contains(why, "actant.cue was modified while the last apply ran (racy)") {
		t.Errorf("racy record: %q", why)
	}
	// No state: nothing recorded.
	rm(t, layout.Path(root, layout.State))
	rm(t, p)
	if err := save(t, src, Said{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("a record without a state: %v", err)
	}
}

// recordKey is the cache key of the actctl home that the record of the
// workspace at root names (b, or the record itself when nil).
func recordKey(t *testing.T, root string, b []byte) []byte {
	t.Helper()
	if b == nil {
		var err error
		if b, err = os.ReadFile(layout.Path(root, layout.Inputs)); err != nil {
			t.Fatal(err)
		}
	}
	head, _, _ := bytes.Cut(b, []byte{'\n'})
	var r Record
	if err := json.Unmarshal(head, &r); err != nil {
		t.Fatal(err)
	}
	k, why := cacheKey(root, r.Sources.Home, false)
	if k == nil {
		t.Fatal(why)
	}
	return k
}

func editRecord(t *testing.T, root string, edit func(*Record)) {
	t.Helper()
	p := layout.Path(root, layout.Inputs)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := decode(recordKey(t, root, b), b)
	if err != nil {
		t.Fatal(err)
	}
	edit(r)
	if b, err = r.encode(); err != nil {
		t.Fatal(err)
	}
	write(t, p, string(seal(recordKey(t, root, nil), b)))
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rm(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestStatTableRoundTrip(t *testing.T) {
	in := statTable{
		{Path: "/w/a b\tc\nd.cue", Mode: 0o644, Size: 12, Mtime: 1_700_000_000_123456789, Ctime: 1_700_000_001_000000000, Ino: 1 << 40, Dev: 66306},
		{Path: "/w/.git", Presence: true, Missing: true},
		{Path: "/w/x", Mode: fs.ModeSymlink | 0o777, Racy: true},
	}
	for _, tables := range [][2]statTable{{in, nil}, {nil, in}, {in, in[:1]}, {nil, nil}} {
		b := appendTable(appendTable(nil, tables[0]), tables[1])
		a, rest, err := parseTable(b)
		if err != nil {
			t.Fatal(err)
		}
		c, rest, err := parseTable(rest)
		if err != nil || len(rest) != 0 {
			t.Fatalf("%v, %d bytes left", err, len(rest))
		}
		for k, got := range []statTable{a, c} {
			if fmt.Sprint(got) != fmt.Sprint(tables[k]) && !(len(got) == 0 && len(tables[k]) == 0) {
				t.Errorf("%+v came back as %+v", tables[k], got)
			}
		}
	}
	for _, bad := range []string{"", "1 2\n", "1 2\na\x00\x00", "x 0 0 0 0 0 0 \na\x00\x00"} {
		if _, _, err := parseTable([]byte(bad)); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
}

// Outputs the apply wrote (modified after it started) are read once by
// Save: then their stat data is trusted; one not as the state says means
// no record.
func TestSaveSettlesWrittenOutputs(t *testing.T) {
	root, home := workspace(t, false)
	p := layout.Path(root, layout.Inputs)
	rm(t, p)
	// chtimes sets the mtime back; the ctime is now, so it then waits
	// until the file system's clock is past it: every file is settled.
	chtimes := func(d time.Duration, rel ...string) {
		for _, r := range rel {
			at := time.Now().Add(d)
			if err := os.Chtimes(filepath.Join(root, r), at, at); err != nil {
				t.Fatal(err)
			}
		}
		pastCtime(t, root, filepath.Join(root, rel[len(rel)-1]))
	}
	chtimes(-2*time.Hour, "actant.cue", "skills/s/SKILL.md")
	chtimes(-10*time.Minute, "out/skill.md", "out/USER.md")
	src := Sources{Root: root, Home: home, Trees: []string{filepath.Join(root, "skills/s")}}
	if err := save(t, src, Said{}, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := decode(recordKey(t, root, b), b)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Hashed) != 0 {
		t.Errorf("settled outputs recorded racy: %+v", rec.Hashed)
	}
	if _, why := Check(root, home); why != "" {
		t.Errorf("Check: %q", why)
	}
	rm(t, p)
	write(t, filepath.Join(root, "out/skill.md"), "edited\n")
	chtimes(-10*time.Minute, "out/skill.md")
	if err := save(t, src, Said{}, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("recorded an output that is not as the state says: %v", err)
	}
}

func TestCheckTooManyRacy(t *testing.T) {
	root, home := workspace(t, false)
	editRecord(t, root, func(r *Record) {
		for len(r.Hashed) <= maxHashed {
			r.Hashed = append(r.Hashed, r.Hashed[0])
		}
	})
	if _, why := Check(root, home); !strings.Contains(why, "written just before the inputs were recorded") {
		t.Errorf("Check: %q", why)
	}
}

// TestSaveConcurrentApply: Save writes inputs.rec after the workspace lock
// is released, so a concurrent apply holding it may remove Save's temp file
// as a leftover (atomicfile.CleanTemps in .actant) before the rename. That
// is no error: nothing is recorded (the next apply takes the normal path)
// and nothing is left behind. It was a warning that broke `apply -o json`
// output when two applies ran at once (TestLock).
func TestSaveConcurrentApply(t *testing.T) {
	root, home := workspace(t, false)
	p := layout.Path(root, layout.Inputs)
	rm(t, p)
	beforeRename = func(target string) error {
		if target == p { // Save's temp file is written, not yet renamed
			if _, err := atomicfile.CleanTemps(filepath.Dir(p)); err != nil {
				t.Error(err)
			}
		}
		return nil
	}
	stop := func() { beforeRename = nil }
	defer stop()
	src := Sources{Root: root, Home: home, Trees: []string{filepath.Join(root, "skills/s")}}
	if err := save(t, src, Said{}, time.Now().Add(-time.Hour)); err != nil {
		t.Errorf("Save beside a concurrent apply: %v", err)
	}
	stop()
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("inputs.rec: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), atomicfile.TempPrefix) {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}

// Save takes the state the apply left from the apply (reconcile.Result.
// LeftState) and records nothing when state.json no longer holds those
// bytes: another apply replaced it meanwhile, or it was edited by hand.
func TestSaveStateNotAsLeft(t *testing.T) {
	root, home := workspace(t, true)
	p := layout.Path(root, layout.Inputs)
	rm(t, p)
	st, data := readState(t, root)
	src := Sources{Root: root, Home: home, Trees: []string{filepath.Join(root, "skills/s")}}
	for _, sum := range []string{digest(append(data, '\n')), ""} {
		if _, err := Save(src, Said{}, time.Now(), st, sum); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("recorded with state digest %q: %v", sum, err)
		}
	}
	// The state the apply left is what the record vouches for, as given:
	// Save does not decode state.json.
	st.Agents["a"].Entries = st.Agents["a"].Entries[:1] // the directory only
	if _, err := Save(src, Said{}, time.Now(), st, digest(data)); err != nil {
		t.Fatal(err)
	}
	if rec := readRecord(t, root); len(rec.Outputs) != 1 || rec.State != digest(data) {
		t.Fatalf("recorded %d outputs, state %q", len(rec.Outputs), rec.State)
	}
	if _, why := Check(root, home); why != "" {
		t.Fatalf("Check: %q", why)
	}
}

// inputs.rec is written without fsync: a crash may leave it truncated,
// zero-filled or partly written. Such a record fails its digest and is
// refused (the normal path runs); so is one with any bit flipped.
func TestCheckDamagedRecord(t *testing.T) {
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			root, home := workspace(t, true)
			p := layout.Path(root, layout.Inputs)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			write(t, p, string(damage(b)))
			if _, why := Check(root, home); !strings.Contains(why, "inputs.rec: damaged") {
				t.Fatalf("Check: %q", why)
			}
		})
	}
}

// damages are what a crash (or a bad disk) may leave of a file written
// without fsync.
var damages = map[string]func([]byte) []byte{
	"empty":       func([]byte) []byte { return nil },
	"truncated":   func(b []byte) []byte { return b[:len(b)/2] },
	"no trailer":  func(b []byte) []byte { return b[:len(b)-userkey.TrailerLen] },
	"zero-filled": func(b []byte) []byte { return make([]byte, len(b)) },
	"bit flipped in the head": func(b []byte) []byte {
		c := slices.Clone(b)
		c[10] ^= 1
		return c
	},
	"bit flipped in a table": func(b []byte) []byte {
		c := slices.Clone(b)
		c[len(c)-userkey.TrailerLen-20] ^= 4
		return c
	},
	"bit flipped in the trailer": func(b []byte) []byte {
		c := slices.Clone(b)
		c[len(c)-1] ^= 1
		return c
	},
}

// Outputs the apply wrote in its last moments (within racySlack of Save)
// are settled where the file system's clock is known: their ctime is
// behind it once read, so the apply after a large one is not sent down
// the normal path by them.
func TestSaveSettlesJustWritten(t *testing.T) {
	if _, known := fsClock(); !known {
		t.Skip("the file system's clock is not known here: markRacy's slack applies")
	}
	root, home := workspace(t, true)
	p := layout.Path(root, layout.Inputs)
	rm(t, p)
	start := time.Now()
	out := filepath.Join(root, "out/skill.md")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	write(t, out, string(b)) // written again, as an apply writes it
	pastCtime(t, root, out)
	src := Sources{Root: root, Home: home, Trees: []string{filepath.Join(root, "skills/s")}}
	if err := save(t, src, Said{}, start); err != nil {
		t.Fatal(err)
	}
	if rec := readRecord(t, root); len(rec.Hashed) != 0 {
		t.Errorf("outputs just written and settled recorded racy: %+v", rec.Hashed)
	}
	if _, why := Check(root, home); why != "" {
		t.Errorf("Check: %q", why)
	}
}

// TestFileDigestReusesBuffer: hashing a file allocates no read buffer
// of its own (recording a cold apply of 10,000 agents hashes 60,000
// files: docs/benchmarks.md, "Cold apply at 10,000 agents"). Counted in
// bytes allocated, not time.
func TestFileDigestReusesBuffer(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("# skill\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256([]byte("# skill\n"))
	const n = 50
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < n; i++ {
		got, err := fileDigest(p)
		if err != nil || got != hex.EncodeToString(want[:]) {
			t.Fatalf("digest %q, %v", got, err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 8<<10 {
		t.Errorf("%d bytes allocated per file hashed, want a few hundred (no 32 KiB buffer each)", per)
	}
}

// digest is the sha256 of b in hex, as apply records the state it left
// (reconcile.Result.LeftState).
func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
