package inputs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/internal/par"
	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/reconcile"
)

// outputsUnchanged reports why the files the state records may not be as
// the apply that recorded them left them; "" when they are. The state
// must be the one that apply left (rec.State), and no apply may be under
// way or killed (its journal exists). Then, with the inputs unchanged,
// the planner would plan nothing when every recorded file still has its
// recorded digest — the whole file's for an owned file (and its
// executable bit), the whole file as last left for a file that holds
// blocks or keys (EntryState.FileSHA: the planner's own no-op rule) —
// every recorded directory is still one, and the committed record
// (actant.owned), which apply writes too, is the one the state goes with
// (State.Owned: otherwise the planner merges it in). A file whose stat
// data is as recorded (rec.Outputs) still holds what the recorded apply
// verified or wrote; a racy one is read and hashed (rec.Hashed). The
// state and the committed record are checked the same way (see
// metaUnchanged); the state is never decoded: Save derived the rest from
// it. The state's stat data is taken again at the end: an apply that ran
// meanwhile replaced it (a new inode, a new ctime).
func outputsUnchanged(root string, rec *Record) string {
	before, why := rec.metaHolds(root)
	if why != "" {
		return why
	}
	if len(rec.Hashed) > maxHashed {
		return fmt.Sprintf("%d files were written just before the inputs were recorded: this apply records them settled", len(rec.Hashed))
	}
	if why := checkFiles(rec.Outputs, rec.Hashed); why != "" {
		return why
	}
	if why := noJournal(root); why != "" {
		return why
	}
	if again, err := statOf(layout.Path(root, layout.State), true, false); err != nil || again != before {
		return "state.json changed while it was checked"
	}
	return ""
}

// metaUnchanged checks p, a file apply writes beside the outputs
// (state.json, actant.owned), against what the record says of it: its
// stat data rec when settled, else its sha256 sum ("" for no file: rec
// then records it missing); changed is the finding when it differs. It
// returns p's stat data, taken before any read. Every write changes that stat data (apply replaces both files:
// a new inode), and a settled file's was recorded more than racySlack
// after its last write: a later one has another mtime and ctime.
func metaUnchanged(p string, rec Stat, sum, changed string) (Stat, string) {
	now, err := statOf(p, true, false)
	switch {
	case err != nil:
		return now, err.Error()
	case rec.Path != p:
		return now, p + ": not in the record"
	case !rec.Racy:
		if now != rec {
			return now, changed
		}
		return now, ""
	}
	got, err := fileDigest(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		got = ""
	case err != nil:
		return now, err.Error()
	}
	if got != sum {
		return now, changed
	}
	return now, ""
}

// settleMeta returns the stat data to record for p, a file apply writes
// beside the outputs, after checking that it holds what sum says (its
// sha256; "" for no file) and did not change during the check. It is
// racy (Check then hashes it) unless no later change can keep that stat
// data: where the clock files are stamped with is known (fsClock), when
// its ctime was behind that clock before the read, so every change after
// the read stamps a later ctime (a change before it is in what was read,
// or fails the second stat); elsewhere unless modified more than
// racySlack before now (markRacy). Apply writes both files just before
// Save runs: the clock's tick has usually passed by then, racySlack
// never.
func settleMeta(p, sum string, now time.Time) (Stat, string) {
	clock, known := fileClock()
	s, err := statOf(p, true, false)
	switch {
	case err != nil:
		return s, err.Error()
	case s.Missing && sum == "":
		return s, ""
	case s.Missing:
		return s, p + " is missing"
	case sum == "":
		return s, p + " exists, and the state records none"
	}
	w := want{path: p, sha: sum}
	if why := w.check(); why != "" {
		return s, why
	}
	if again, err := statOf(p, true, false); err != nil || again != s {
		return s, p + " changed while it was recorded"
	}
	s.settledAt(clock, known, now)
	return s, ""
}

// settledAt marks s, the stat data of a file just read and found as
// apply left it, racy unless no later change can keep that stat data:
// where the clock files are stamped with is known (clock, read before
// the stat), when its ctime is behind it, since every change after the
// read stamps a later ctime; elsewhere unless modified more than
// racySlack before now (markRacy).
func (s *Stat) settledAt(clock int64, known bool, now time.Time) {
	if known {
		s.Racy = s.Ctime >= clock
		return
	}
	s.markRacy(now)
}

// fileClock is fsClock; a test replaces it to hold files racy whatever
// the machine's speed.
var fileClock = fsClock

// maxHashed bounds the racy outputs a Check reads and hashes: beyond it
// the normal path, which records them settled, costs less than hashing
// them on every later run.
const maxHashed = 64

// Hashed is what a racy output (Record.Outputs[Index]) must hold.
type Hashed struct {
	Index int    `json:"i"`
	SHA   string `json:"sha"`
	// Exec, when Mode, is the executable bit the file must have.
	Exec bool `json:"exec,omitempty"`
	Mode bool `json:"mode,omitempty"`
}

// outputs records in rec the stat data of the files the state st
// records (see settle), what the racy ones must hold, the state's
// committed-record digest and the stat data of state.json, which must
// still hold the bytes rec.State is the digest of, and of that record
// (see settleMeta); it returns why when a file is not as the apply that
// started at start must have left it, or cannot be checked this way.
func (rec *Record) outputs(root string, start time.Time, st *reconcile.State) string {
	now := time.Now()
	var why string
	if rec.StateStat, why = settleMeta(layout.Path(root, layout.State), rec.State, now); why != "" {
		return "state.json changed: " + why
	}
	if st.Root != "" && st.Root != root {
		return "state.json was written for " + st.Root
	}
	rec.Owned = st.Owned
	if rec.OwnedStat, why = settleMeta(filepath.Join(root, reconcile.OwnedFile), st.Owned, now); why != "" {
		return why
	}
	ws := wanted(st)
	out := make([]Stat, len(ws))
	errs := make([]string, len(ws))
	par.For(len(ws), par.IO(), func(i int) { out[i], errs[i] = ws[i].settle(start, now) })
	for i, e := range errs {
		if e != "" {
			return e
		}
		if out[i].Racy {
			rec.Hashed = append(rec.Hashed, Hashed{Index: i, SHA: ws[i].sha, Exec: ws[i].exec, Mode: ws[i].mode})
		}
	}
	rec.Outputs = out
	return ""
}

// settle returns the stat data to record for w after the apply that
// started at start, at now. A file not modified since before start
// holds what the planner read and found right (the apply reported
// nothing). One the apply wrote is read now and must hold what the
// state says; its stat data, the same before and after, then describes
// that content, unless a later write could keep that stat data (see
// settledAt: its ctime not behind the file system's clock, or where that
// clock is unknown, modified within racySlack of now): that one is
// marked racy, and Check hashes it again. With the clock known, the
// files an apply wrote in its last moments are settled too, so the
// apply after a large one takes the fast path.
func (w *want) settle(start, now time.Time) (Stat, string) {
	clock, known := fileClock()
	s, err := statOf(w.path, true, w.dir)
	switch {
	case w.doubt != "":
		return s, w.path + ": " + w.doubt
	case err != nil:
		return s, err.Error()
	case s.Missing:
		return s, w.path + " is missing"
	}
	if w.dir {
		return s, ""
	}
	if s.markRacy(start); !s.Racy {
		return s, ""
	}
	s.Racy = false
	if s.settledAt(clock, known, now); s.Racy {
		return s, ""
	}
	if why := w.check(); why != "" {
		return s, why
	}
	if again, err := statOf(w.path, true, false); err != nil || again != s {
		return s, w.path + " changed while it was recorded"
	}
	return s, ""
}

func noJournal(root string) string {
	if _, err := os.Lstat(layout.Path(root, layout.Pending)); !errors.Is(err, fs.ErrNotExist) {
		return "an apply is under way or was killed (its journal exists)"
	}
	return ""
}

// want is what one recorded path must be.
type want struct {
	path string
	dir  bool
	sha  string
	// exec, when mode is set, is the executable bit the file must have.
	exec, mode bool
	// doubt, when set, is why the record cannot be checked this way.
	doubt string
}

// wanted turns the state's entries into one want per path.
func wanted(st *reconcile.State) []want {
	byPath := map[string]*want{}
	for _, a := range st.Agents {
		for _, e := range a.Entries {
			p := filepath.Join(a.Dir, filepath.FromSlash(e.Path))
			w := byPath[p]
			if w == nil {
				w = &want{path: p}
				byPath[p] = w
			}
			w.add(e)
		}
	}
	out := make([]want, 0, len(byPath))
	for _, p := range slices.Sorted(maps.Keys(byPath)) {
		out = append(out, *byPath[p])
	}
	return out
}

// add merges the recorded entry e into w.
func (w *want) add(e reconcile.EntryState) {
	sha := e.FileSHA
	switch e.Mode {
	case materialize.ModeDir:
		w.dir = true
		return
	case materialize.ModeFile:
		if sha == "" {
			sha = e.SHA256
		}
		if sha != e.SHA256 || w.mode {
			w.doubt = "two records of the owned file"
		}
		w.exec, w.mode = e.Exec, true
	}
	switch {
	case sha == "":
		w.doubt = "its last apply left it drifted or unparsed"
	case w.sha != "" && w.sha != sha:
		w.doubt = "its records disagree about its content"
	}
	w.sha = sha
}

// checkFiles checks the recorded outputs in parallel and returns the
// first finding: a file whose stat data is as recorded passes, a racy one
// is hashed and compared with what hashed says it must hold.
func checkFiles(rec []Stat, hashed []Hashed) string {
	must := make(map[int]Hashed, len(hashed))
	for _, h := range hashed {
		must[h.Index] = h
	}
	found := make([]string, len(rec))
	par.For(len(rec), par.IO(), func(i int) {
		r := rec[i]
		if r.Racy {
			h, ok := must[i]
			if !ok {
				found[i] = r.Path + ": racy, and no digest recorded"
				return
			}
			w := want{path: r.Path, sha: h.SHA, exec: h.Exec, mode: h.Mode}
			found[i] = w.check()
			return
		}
		st, err := statOf(r.Path, true, r.Presence)
		switch {
		case err != nil:
			found[i] = err.Error()
		case st != r:
			found[i] = r.Path + " changed since the last apply"
		}
	})
	for _, f := range found {
		if f != "" {
			return f
		}
	}
	return ""
}

func (w *want) check() string {
	if w.doubt != "" {
		return w.path + ": " + w.doubt
	}
	fi, err := os.Lstat(w.path)
	if err != nil {
		return fmt.Sprintf("%s: %v", w.path, err)
	}
	if w.dir {
		if w.sha != "" || w.mode {
			return w.path + ": recorded as a directory and a file"
		}
		if !fi.IsDir() {
			return w.path + " is no longer a directory"
		}
		return ""
	}
	if !fi.Mode().IsRegular() {
		return w.path + " is no longer a regular file"
	}
	if w.mode && (fi.Mode().Perm()&0o111 != 0) != w.exec {
		return w.path + ": its executable bit changed"
	}
	sha, err := fileDigest(w.path)
	if err != nil {
		return err.Error()
	}
	if sha != w.sha {
		return w.path + " changed since the last apply"
	}
	return ""
}

func fileDigest(p string) (string, error) {
	f, err := openRegular(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	buf := digestBufs.Get().(*[]byte)
	defer digestBufs.Put(buf)
	// The Reader alone: io.Copy would take *os.File's WriteTo, which
	// allocates a 32 KiB buffer per file (60,000 files after a cold apply
	// of 10,000 agents: the collector's busiest step of recording them).
	if _, err := io.CopyBuffer(h, struct{ io.Reader }{f}, *buf); err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// digestBufs are fileDigest's read buffers, reused across files.
var digestBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}
