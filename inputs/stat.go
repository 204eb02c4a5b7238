package inputs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/actctl/actctl/internal/layout"
)

// Stat is what the record keeps of one input: its stat data, no digest.
// Size, mtime, ctime, inode and device together change on every write,
// rename over, chmod or touch (ctime cannot be set back, so even
// `touch -d` with the old time is seen); hashing every input on every
// run would cost what the fast path saves. What stat data cannot see is
// a write in the same timestamp tick as the read that apply made of the
// file: see markRacy.
type Stat struct {
	Path string `json:"p"`
	// Presence: only whether the path exists and its type count (a
	// directory whose entries come and go, such as .git).
	Presence bool        `json:"presence,omitempty"`
	Missing  bool        `json:"missing,omitempty"`
	Mode     fs.FileMode `json:"mode,omitempty"`
	Size     int64       `json:"size,omitempty"`
	Mtime    int64       `json:"mtime,omitempty"`
	Ctime    int64       `json:"ctime,omitempty"`
	Ino      uint64      `json:"ino,omitempty"`
	Dev      uint64      `json:"dev,omitempty"`
	// Racy: modified after the recorded apply started; never matches.
	Racy bool `json:"racy,omitempty"`
}

// statOf returns the Stat of p, following a symbolic link unless lstat.
func statOf(p string, lstat, presence bool) (Stat, error) {
	st := Stat{Path: p, Presence: presence}
	var fi fs.FileInfo
	var err error
	if lstat {
		fi, err = os.Lstat(p)
	} else {
		fi, err = os.Stat(p)
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) {
		st.Missing = true
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("stat %s: %w", p, err)
	}
	st.Mode = fi.Mode().Type()
	if presence {
		return st, nil
	}
	st.Mode = fi.Mode()
	st.Size = fi.Size()
	st.Mtime = fi.ModTime().UnixNano()
	sysStat(&st, fi)
	return st, nil
}

// racySlack is how far before the apply's start a modification time must
// lie for the file's stat data to be trusted. File timestamps come from
// the kernel's coarse clock, which lags the clock Go reads by up to a
// scheduler tick (a few ms); on a file system that keeps whole seconds
// (a timestamp without nanoseconds) a write just after the start can
// carry an earlier second, hence coarseSlack there.
const (
	racySlack   = 100 * time.Millisecond
	coarseSlack = 2 * time.Second
)

// markRacy marks s racy when the file may have been modified after the
// apply that started at start read it (git's racy-index rule, with the
// apply's start for the index's time): its stat data, taken after the
// apply, may then describe content the apply did not see.
func (s *Stat) markRacy(start time.Time) {
	if s.Missing || s.Presence {
		return
	}
	slack := racySlack
	if s.Mtime%int64(time.Second) == 0 {
		slack = coarseSlack
	}
	if s.Mtime >= start.Add(-slack).UnixNano() {
		s.Racy = true
	}
}

// compare reports the first input that differs between the record and
// now; "" when none does.
func compare(rec, now []Stat) string {
	for i := 0; i < len(rec) || i < len(now); i++ {
		switch {
		case i >= len(now) || i >= len(rec) || rec[i].Path != now[i].Path:
			return setChange(rec, now)
		case rec[i].Racy:
			return rec[i].Path + " was modified while the last apply ran (racy)"
		case rec[i] != now[i]:
			return rec[i].Path + " changed"
		}
	}
	return ""
}

// setChange names an input that is new in now or gone from it.
func setChange(rec, now []Stat) string {
	had := make(map[string]bool, len(rec))
	for _, s := range rec {
		had[s.Path] = true
	}
	for _, s := range now {
		if !had[s.Path] {
			return s.Path + " is new"
		}
		delete(had, s.Path)
	}
	for _, s := range rec {
		if had[s.Path] {
			return s.Path + " is gone"
		}
	}
	return "the inputs were read in another order"
}

// gather stats every input of src, in a fixed order: the root's *.cue
// files, cue.mod/ and every file under it, actant.lock,
// .actant/adhoc.json, src's trees and files, then git's index.
// actant.owned, which apply itself writes, is checked with the outputs.
func gather(src Sources) ([]Stat, error) {
	var out []Stat
	add := func(p string, lstat, presence bool) error {
		st, err := statOf(p, lstat, presence)
		out = append(out, st)
		return err
	}
	if err := addCUE(src.Root, add); err != nil {
		return nil, err
	}
	files := append([]string{
		filepath.Join(src.Root, "actant.lock"),
		layout.Path(src.Root, layout.Adhoc),
	}, src.Files...)
	for _, f := range files {
		if err := add(f, false, false); err != nil {
			return nil, err
		}
	}
	for _, t := range src.Trees {
		// A skill directory refuses links.
		if err := addTree(t, true, add); err != nil {
			return nil, err
		}
	}
	if err := addGit(src.Root, add); err != nil {
		return nil, err
	}
	return out, nil
}

// addCUE adds what CUE's evaluation of the workspace at root reads: the
// root's *.cue files, then cue.mod/ and every file under it (read through
// links: see schema's checkCUEFiles).
func addCUE(root string, add func(p string, lstat, presence bool) error) error {
	entries, err := os.ReadDir(root)
	if err != nil {
		return fmt.Errorf("read %s: %w", root, err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".cue") && !e.IsDir() {
			if err := add(filepath.Join(root, e.Name()), false, false); err != nil {
				return err
			}
		}
	}
	return addTree(filepath.Join(root, "cue.mod"), false, add)
}

// addTree adds the presence of dir and every file under it (skipping
// .git directories, as the skill reader does), following links to
// files unless lstat.
func addTree(dir string, lstat bool, add func(p string, lstat, presence bool) error) error {
	if err := add(dir, false, true); err != nil {
		return err
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist) && p == dir:
			return filepath.SkipAll
		case err != nil:
			return err
		case d.IsDir() && d.Name() == ".git" && p != dir:
			return filepath.SkipDir
		case !d.IsDir():
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read %s: %w", dir, err)
	}
	slices.Sort(files)
	for _, f := range files {
		if err := add(f, lstat, false); err != nil {
			return err
		}
	}
	return nil
}

// statTable is a list of Stat, encoded compactly after the record's JSON
// header (see encode): decoding a JSON object per file, or even one JSON
// string of all the paths, costs more than the rest of the fast path at
// 600 files. A table is its numbers, seven per Stat, space-separated, on
// one line, then its paths, each ended by a NUL (a path never holds one),
// and one more NUL.
type statTable []Stat

const (
	flagPresence = 1 << iota
	flagMissing
	flagRacy
)

// appendTable appends the encoding of t to b.
func appendTable(b []byte, t statTable) []byte {
	for _, s := range t {
		flags := 0
		if s.Presence {
			flags |= flagPresence
		}
		if s.Missing {
			flags |= flagMissing
		}
		if s.Racy {
			flags |= flagRacy
		}
		for _, n := range []int64{int64(flags), int64(s.Mode), s.Size, s.Mtime, s.Ctime, int64(s.Ino), int64(s.Dev)} {
			b = strconv.AppendInt(b, n, 10)
			b = append(b, ' ')
		}
	}
	b = append(b, '\n')
	for _, s := range t {
		b = append(append(b, s.Path...), 0)
	}
	return append(b, 0)
}

// parseTable decodes the table at the start of b and returns the rest.
func parseTable(b []byte) (statTable, []byte, error) {
	line, rest, ok := bytes.Cut(b, []byte{'\n'})
	if !ok {
		return nil, nil, errors.New("stat table: no numbers")
	}
	end := bytes.Index(rest, []byte{0, 0})
	if len(rest) > 0 && rest[0] == 0 {
		end = -1 // an empty table
	}
	var paths []string
	switch {
	case end >= 0:
		paths = strings.Split(string(rest[:end]), "\x00")
		rest = rest[end+2:]
	case len(rest) > 0 && rest[0] == 0:
		rest = rest[1:]
	default:
		return nil, nil, errors.New("stat table: paths not ended")
	}
	nums := strings.Fields(string(line))
	if len(nums) != 7*len(paths) {
		return nil, nil, fmt.Errorf("stat table: %d paths, %d numbers", len(paths), len(nums))
	}
	out := make(statTable, len(paths))
	for i, p := range paths {
		var n [7]int64
		for k := range n {
			v, err := strconv.ParseInt(nums[7*i+k], 10, 64)
			if err != nil {
				return nil, nil, fmt.Errorf("stat table: %w", err)
			}
			n[k] = v
		}
		out[i] = Stat{Path: p, Presence: n[0]&flagPresence != 0, Missing: n[0]&flagMissing != 0, Racy: n[0]&flagRacy != 0,
			Mode: fs.FileMode(n[1]), Size: n[2], Mtime: n[3], Ctime: n[4], Ino: uint64(n[5]), Dev: uint64(n[6])}
	}
	return out, rest, nil
}
