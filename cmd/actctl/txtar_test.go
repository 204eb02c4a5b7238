package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// archive is a txtar archive (the format of golang.org/x/tools/txtar,
// written here in a few lines rather than adding the module): a comment,
// then files, each introduced by a line "-- NAME --".
type archive struct {
	comment string
	files   []archiveFile
}

// archiveFile is one file of an archive.
type archiveFile struct {
	name string
	data []byte
}

// parseArchive reads a txtar archive. A file's content is every line up
// to the next marker; a content that does not end in a newline gets one,
// as txtar does.
func parseArchive(data []byte) archive {
	var a archive
	var cur *archiveFile
	var text []byte
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		name, ok := archiveMarker(line)
		if !ok {
			text = append(text, line...)
			continue
		}
		a.flush(cur, text)
		a.files = append(a.files, archiveFile{name: name})
		cur, text = &a.files[len(a.files)-1], nil
	}
	a.flush(cur, text)
	return a
}

// flush gives text to cur, or to the comment before the first file.
func (a *archive) flush(cur *archiveFile, text []byte) {
	if len(text) > 0 && text[len(text)-1] != '\n' {
		text = append(text, '\n')
	}
	if cur == nil {
		a.comment = string(text)
		return
	}
	cur.data = text
}

// archiveMarker is the file name a "-- NAME --" line introduces.
func archiveMarker(line []byte) (string, bool) {
	s := strings.TrimRight(string(line), "\r\n")
	if !strings.HasPrefix(s, "-- ") || !strings.HasSuffix(s, " --") || len(s) < 7 {
		return "", false
	}
	name := strings.TrimSpace(s[3 : len(s)-3])
	return name, name != ""
}

// extract writes the archive's files under dir.
func (a archive) extract(dir string) error {
	for _, f := range a.files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("extract %s: %w", f.name, err)
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return fmt.Errorf("extract %s: %w", f.name, err)
		}
	}
	return nil
}

func TestParseArchive(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want archive
	}{
		{"", archive{}},
		{"only a comment", archive{comment: "only a comment\n"}},
		{"c\n-- a --\nA\n-- b/c.txt --\nB1\nB2", archive{comment: "c\n", files: []archiveFile{
			{"a", []byte("A\n")}, {"b/c.txt", []byte("B1\nB2\n")}}}},
		{"-- empty --\n-- x --\n--  --\n-- y\n", archive{files: []archiveFile{
			{"empty", nil}, {"x", []byte("--  --\n-- y\n")}}}},
	} {
		if got := parseArchive([]byte(tc.in)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseArchive(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}
