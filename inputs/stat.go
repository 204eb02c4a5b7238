package inputs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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
	if s.Mtime >= start.Add(-s.slack()).UnixNano() {
		s.Racy = true
	}
}

// slack is racySlack, or coarseSlack where the file system keeps whole
// seconds.
func (s *Stat) slack() time.Duration {
	if s.Mtime%int64(time.Second) == 0 {
		return coarseSlack
	}
	return racySlack
}

// settlesAt is when an input racy now stops being so: an apply that
// starts then records it settled.
func (s *Stat) settlesAt() time.Time { return time.Unix(0, s.Mtime).Add(s.slack() + time.Millisecond) }

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
		if err := addTree(t, add); err != nil {
			return nil, err
		}
	}
	if err := addGit(src.Root, add); err != nil {
		return nil, err
	}
	return out, nil
}

// addCUE adds what CUE's evaluation of the workspace at root reads: the
// root's *.cue files, then cue.mod/ and every file under it (by their
// targets where links lead there: CUE reads through them).
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
	return addTree(filepath.Join(root, "cue.mod"), add)
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
// It allocates the table and one string holding all its paths, nothing
// per number or per path: it runs on every fast-path apply and config
// load, over hundreds of entries.
func parseTable(b []byte) (statTable, []byte, error) {
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return nil, nil, errors.New("stat table: no numbers")
	}
	line, rest := b[:nl], b[nl+1:]
	end := bytes.Index(rest, []byte{0, 0})
	if len(rest) > 0 && rest[0] == 0 {
		end = -1 // an empty table
	}
	var out statTable
	switch {
	case end >= 0:
		out = splitPaths(string(rest[:end]))
		rest = rest[end+2:]
	case len(rest) > 0 && rest[0] == 0:
		rest = rest[1:]
	default:
		return nil, nil, errors.New("stat table: paths not ended")
	}
	if err := parseNumbers(line, out); err != nil {
		return nil, nil, err
	}
	return out, rest, nil
}

// splitPaths returns a table with one entry per NUL-separated path of s,
// each path a slice of s.
func splitPaths(s string) statTable {
	out := make(statTable, strings.Count(s, "\x00")+1)
	for i := range out {
		p, after, _ := strings.Cut(s, "\x00")
		out[i].Path, s = p, after
	}
	return out
}

// parseNumbers fills t from line, its numbers: seven per Stat, separated
// by white space (as strings.Fields splits them).
func parseNumbers(line []byte, t statTable) error {
	var n [7]int64
	var perr error
	count := 0
	for i := 0; ; count++ {
		start, end := nextField(line, i)
		if start == end {
			break
		}
		i = end
		if count >= 7*len(t) || perr != nil {
			continue // only counted: the error is the count's
		}
		v, err := parseInt(line[start:end])
		if err != nil {
			perr = fmt.Errorf("stat table: %w", err)
			continue
		}
		n[count%7] = v
		if count%7 == 6 {
			s := &t[count/7]
			s.Presence, s.Missing, s.Racy = n[0]&flagPresence != 0, n[0]&flagMissing != 0, n[0]&flagRacy != 0
			s.Mode, s.Size, s.Mtime, s.Ctime, s.Ino, s.Dev = fs.FileMode(n[1]), n[2], n[3], n[4], uint64(n[5]), uint64(n[6])
		}
	}
	if count != 7*len(t) {
		return fmt.Errorf("stat table: %d paths, %d numbers", len(t), count)
	}
	return perr
}

// nextField returns the bounds of the first field of b at or after i,
// start == end when there is none; fields are separated by white space
// as strings.Fields defines it (unicode.IsSpace).
func nextField(b []byte, i int) (start, end int) {
	for i < len(b) {
		sp, w := spaceAt(b, i)
		if !sp {
			break
		}
		i += w
	}
	start = i
	for i < len(b) {
		if c := b[i]; c < utf8.RuneSelf && asciiSpace[c] == 0 {
			i++ // the common case: a digit
			continue
		}
		sp, w := spaceAt(b, i)
		if sp {
			break
		}
		i += w
	}
	return start, i
}

// asciiSpace marks the ASCII white space unicode.IsSpace knows.
var asciiSpace = [utf8.RuneSelf]uint8{'\t': 1, '\n': 1, '\v': 1, '\f': 1, '\r': 1, ' ': 1}

// spaceAt reports whether the rune at b[i] is white space, and its width.
func spaceAt(b []byte, i int) (bool, int) {
	if c := b[i]; c < utf8.RuneSelf {
		return asciiSpace[c] != 0, 1
	}
	r, w := utf8.DecodeRune(b[i:])
	return unicode.IsSpace(r), w
}

// parseInt is strconv.ParseInt(string(f), 10, 64) without the string:
// an optional sign and up to 18 digits (no overflow possible) are parsed
// here, anything else by strconv, which gives its value or its error.
func parseInt(f []byte) (int64, error) {
	digits, neg := f, false
	if len(digits) > 0 && (digits[0] == '-' || digits[0] == '+') {
		digits, neg = digits[1:], digits[0] == '-'
	}
	if len(digits) == 0 || len(digits) > 18 {
		return strconv.ParseInt(string(f), 10, 64)
	}
	var v int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return strconv.ParseInt(string(f), 10, 64)
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, nil
}
