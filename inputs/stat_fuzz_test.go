package inputs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// FuzzStatTable: a table encoded by appendTable decodes to itself (with
// what follows it left over), and any bytes give parseTable's reference
// result (parseTableRef: the implementation that split the table into
// strings), its error text included, without a panic.
func FuzzStatTable(f *testing.F) {
	f.Add([]byte("0 420 12 1 2 3 4 \n/w/a\x00\x00rest"), "/w/a b\tc\nd.cue", int64(0o644), int64(1_700_000_000_123456789), uint64(1<<40), uint8(0))
	f.Add([]byte("1 2\n"), "p", int64(-1), int64(0), uint64(0), uint8(7))
	f.Add([]byte("x 0 0 0 0 0 0 \na\x00\x00"), "\u00a0", int64(1<<62), int64(-1<<63), ^uint64(0), uint8(2))
	f.Add([]byte("\n\x00"), "é", int64(9), int64(99999999999999999), uint64(5), uint8(1))
	f.Add([]byte("0\u00850 0 0 0 0 +7\n\x85\x00\x00"), "x", int64(0), int64(0), uint64(0), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, path string, a, b int64, ino uint64, flags uint8) {
		got, rest, err := parseTable(data)
		want, wrest, werr := parseTableRef(data)
		if fmt.Sprint(err) != fmt.Sprint(werr) || !bytes.Equal(rest, wrest) || !sameTable(got, want) {
			t.Fatalf("parseTable(%q) = %+v, %q, %v; want %+v, %q, %v", data, got, rest, err, want, wrest, werr)
		}
		if path == "" || strings.Contains(path, "\x00") {
			return // a path is never empty and never holds a NUL
		}
		in := statTable{
			{Path: path, Presence: flags&1 != 0, Missing: flags&2 != 0, Racy: flags&4 != 0,
				Mode: fs.FileMode(uint32(a)), Size: a, Mtime: b, Ctime: -b, Ino: ino, Dev: ^ino},
			{Path: path + "/x", Size: b, Mtime: a},
		}
		enc := appendTable(appendTable(nil, in), in[:1])
		enc = append(enc, data...)
		t1, rest, err := parseTable(enc)
		if err != nil || !sameTable(t1, in) {
			t.Fatalf("%+v came back as %+v, %v", in, t1, err)
		}
		t2, rest, err := parseTable(rest)
		if err != nil || !sameTable(t2, in[:1]) || !bytes.Equal(rest, data) {
			t.Fatalf("%+v came back as %+v, %v, rest %q", in[:1], t2, err, rest)
		}
	})
}

func sameTable(a, b statTable) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

// parseTableRef is parseTable as it was before it stopped allocating a
// string per number and per path: the reference for its results and
// errors.
func parseTableRef(b []byte) (statTable, []byte, error) {
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

// BenchmarkParseTable decodes the outputs table of a 600-file record,
// with parseTable and with its reference.
func BenchmarkParseTable(b *testing.B) {
	var t statTable
	for i := range 600 {
		t = append(t, Stat{Path: fmt.Sprintf("/work/ws/.claude/skills/skill-%03d/SKILL.md", i), Mode: 0o644, Size: 300 + int64(i),
			Mtime: 1_700_000_000_123456789 + int64(i), Ctime: 1_700_000_000_223456789, Ino: 1<<20 + uint64(i), Dev: 66306})
	}
	enc := appendTable(nil, t)
	for name, parse := range map[string]func([]byte) (statTable, []byte, error){"parseTable": parseTable, "ref": parseTableRef} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := parse(enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
