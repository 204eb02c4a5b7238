package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), TempPrefix) {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

func TestWriteNewFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	if err := Write(p, []byte("hello\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "hello\n" {
		t.Fatalf("content = %q, %v", got, err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("perm = %v, want 0640", fi.Mode().Perm())
	}
	noTemps(t, dir)
}

func TestWritePreservesPerm(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.sh")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o751); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "new" {
		t.Fatalf("content = %q", got)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o751 {
		t.Errorf("perm = %v, want 0751 kept", fi.Mode().Perm())
	}
	noTemps(t, dir)
}

func TestWriteEmptyAndOverwrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for _, s := range []string{"first", "", "third-longer-content"} {
		if err := Write(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(p)
		if string(got) != s {
			t.Fatalf("content = %q, want %q", got, s)
		}
	}
	noTemps(t, dir)
}

func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "AGENTS.md")
	link := filepath.Join(dir, "CLAUDE.md")
	if err := os.WriteFile(real, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("AGENTS.md", link); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	if err := Write(link, []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v %v", fi, err)
	}
	got, _ := os.ReadFile(real)
	if string(got) != "y" {
		t.Errorf("target content = %q", got)
	}
	noTemps(t, dir)
}

func TestWriteErrorLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	// Destination is a directory: rename must fail, temp must be removed.
	p := filepath.Join(dir, "sub")
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("x"), 0o644); err == nil {
		t.Fatal("expected error writing over a directory")
	}
	noTemps(t, dir)
	// Missing directory: error, nothing created.
	if err := Write(filepath.Join(dir, "nope", "f"), []byte("x"), 0o644); err == nil {
		t.Fatal("expected error for missing dir")
	}
}

func TestMkdirAllAndRemoveEmptyDirs(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "a", "b", "c")
	created, err := MkdirAll(target)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "a"), filepath.Join(root, "a", "b"), target}
	if !slices.Equal(created, want) {
		t.Fatalf("created = %v, want %v", created, want)
	}
	again, err := MkdirAll(target)
	if err != nil || len(again) != 0 {
		t.Fatalf("second MkdirAll = %v, %v; want nothing created", again, err)
	}
	// A user file in a/ keeps a/ alive.
	userFile := filepath.Join(root, "a", "user.txt")
	if err := os.WriteFile(userFile, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RemoveEmptyDirs(created); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "a", "b")); !os.IsNotExist(err) {
		t.Errorf("a/b should be removed: %v", err)
	}
	if b, err := os.ReadFile(userFile); err != nil || string(b) != "mine" {
		t.Errorf("user file lost: %q %v", b, err)
	}
	// Idempotent.
	if err := RemoveEmptyDirs(created); err != nil {
		t.Fatal(err)
	}
}

func TestMkdirAllThroughFile(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := MkdirAll(filepath.Join(f, "sub")); err == nil {
		t.Fatal("expected error")
	}
}

func TestRemove(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("still there: %v", err)
	}
	if err := Remove(p); err != nil {
		t.Fatalf("removing a missing file: %v", err)
	}
}

func TestCleanTemps(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{TempPrefix + "123", TempPrefix + "abc", "keep.txt", ".actctl-other"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, TempPrefix+"dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	removed, err := CleanTemps(dir)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	if !slices.Equal(removed, []string{TempPrefix + "123", TempPrefix + "abc"}) {
		t.Errorf("removed = %v", removed)
	}
	for _, n := range []string{"keep.txt", ".actctl-other", TempPrefix + "dir"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s should be kept: %v", n, err)
		}
	}
	if r, err := CleanTemps(filepath.Join(dir, "missing")); err != nil || r != nil {
		t.Errorf("missing dir: %v %v", r, err)
	}
}

// TestWriteKeepsOwner: replacing a file keeps its owner and group, which a
// rename of a temp file created by root would otherwise change (only root
// can give a file away, so the uid/gid part runs as root only).
func TestWriteKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root can chown a file to another user")
	}
	for _, exact := range []bool{false, true} {
		dir := t.TempDir()
		p := filepath.Join(dir, "CLAUDE.md")
		if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, 1234, 5678); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o640|os.ModeSetgid); err != nil {
			t.Fatal(err)
		}
		write, wantMode := Write, 0o640|os.ModeSetgid
		if exact {
			write, wantMode = writeExact, 0o755
		}
		if err := write(p, []byte("new"), 0o755); err != nil {
			t.Fatal(err)
		}
		uid, gid, ok := owner(statOf(t, p))
		if !ok || uid != 1234 || gid != 5678 {
			t.Errorf("exact=%v: owner = %d:%d, want 1234:5678 kept", exact, uid, gid)
		}
		if m := statOf(t, p).Mode() & (os.ModePerm | os.ModeSetgid); m != wantMode {
			t.Errorf("exact=%v: mode = %v, want %v", exact, m, wantMode)
		}
		noTemps(t, dir)
	}
}

// TestWriteModeSetsPerm: ExactPerm gives the file exactly perm, also when
// it replaces one (a skill script that became executable), while Write
// keeps the replaced file's bits.
func TestWriteModeSetsPerm(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.sh")
	if err := WriteWith(p, []byte("#!/bin/sh\n"), Options{Perm: 0o755, ExactPerm: true}); err != nil {
		t.Fatal(err)
	}
	if m := statOf(t, p).Mode().Perm(); m != 0o755 {
		t.Errorf("new file: perm = %v, want 0755", m)
	}
	if err := WriteWith(p, []byte("#!/bin/sh\n"), Options{Perm: 0o644, ExactPerm: true}); err != nil {
		t.Fatal(err)
	}
	if m := statOf(t, p).Mode().Perm(); m != 0o644 {
		t.Errorf("replaced: perm = %v, want 0644", m)
	}
	if err := Write(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if m := statOf(t, p).Mode().Perm(); m != 0o644 {
		t.Errorf("Write: perm = %v, want 0644 kept", m)
	}
	noTemps(t, dir)
}

func statOf(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

func TestWriteIfCheckRefuses(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("changed")
	var seen string
	err := WriteWith(p, []byte("new"), Options{Perm: 0o644, Check: func(target string) error { seen = target; return refused }})
	if !errors.Is(err, refused) || seen != p {
		t.Fatalf("WriteWith: %v (check saw %q)", err, seen)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Fatalf("file replaced: %q", b)
	}
	noTemps(t, dir)
	if err := WriteWith(p, []byte("new"), Options{Perm: 0o644, Check: func(string) error { return nil }}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("file not replaced: %q", b)
	}
}

// writeExact is Write with ExactPerm, in Write's shape.
func writeExact(p string, data []byte, perm fs.FileMode) error {
	return WriteWith(p, data, Options{Perm: perm, ExactPerm: true})
}

// TestDirSyncs: with a DirSyncs, writes, new directories and removals
// fsync no directory until Sync, which fsyncs each changed directory
// once (skipping one removed meanwhile) and empties the set; the files'
// contents are fsynced at once, before their renames.
func TestDirSyncs(t *testing.T) {
	root := t.TempDir()
	var mu sync.Mutex
	var dirs, files []string
	defer ObserveSyncs(func(p string, dir bool) {
		mu.Lock()
		defer mu.Unlock()
		if dir {
			dirs = append(dirs, p)
		} else {
			files = append(files, p)
		}
	})()
	var s DirSyncs
	a, b := filepath.Join(root, "a"), filepath.Join(root, "a", "b")
	created, err := s.MkdirAll(b)
	if err != nil || !slices.Equal(created, []string{a, b}) {
		t.Fatalf("MkdirAll = %v, %v", created, err)
	}
	for _, n := range []string{"1", "2", "3"} {
		if err := WriteWith(filepath.Join(b, n), []byte(n), Options{Perm: 0o644, Dirs: &s}); err != nil {
			t.Fatal(err)
		}
	}
	gone := filepath.Join(root, "gone")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gone, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(filepath.Join(gone, "f")); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveEmptyDirs([]string{gone}); err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 0 || len(files) != 3 {
		t.Fatalf("before Sync: directories fsynced %v, files %v; want none, 3", dirs, files)
	}
	if s.Len() != 4 {
		t.Fatalf("Len = %d, want 4 (root, a, a/b, gone)", s.Len())
	}
	if err := s.Sync(4); err != nil {
		t.Fatal(err)
	}
	slices.Sort(dirs)
	if want := []string{root, a, b}; !slices.Equal(dirs, want) {
		t.Errorf("Sync fsynced %v, want each of %v once", dirs, want)
	}
	if s.Len() != 0 {
		t.Errorf("Len after Sync = %d", s.Len())
	}
	for _, n := range []string{"1", "2", "3"} {
		if got, err := os.ReadFile(filepath.Join(b, n)); err != nil || string(got) != n {
			t.Errorf("%s = %q, %v", n, got, err)
		}
	}
	noTemps(t, b)
}

// TestNoSync: with NoSync a write fsyncs neither the file nor its
// directory (nor adds the directory to a DirSyncs), and still replaces
// the file by a rename, keeping its mode and leaving no temp file.
func TestNoSync(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cache")
	if err := os.WriteFile(p, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var synced []string
	defer ObserveSyncs(func(p string, dir bool) {
		mu.Lock()
		defer mu.Unlock()
		synced = append(synced, p)
	})()
	var s DirSyncs
	if err := WriteWith(p, []byte("new"), Options{Perm: 0o644, NoSync: true, Dirs: &s}); err != nil {
		t.Fatal(err)
	}
	if len(synced) != 0 || s.Len() != 0 {
		t.Fatalf("fsynced %v, %d directories left to sync", synced, s.Len())
	}
	after, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" || os.SameFile(before, after) || after.Mode().Perm() != 0o640 {
		t.Fatalf("%q, replaced %v, mode %v", b, !os.SameFile(before, after), after.Mode())
	}
	noTemps(t, dir)
	// Without it, both are fsynced.
	if err := WriteWith(p, []byte("newer"), Options{Perm: 0o644}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(synced, []string{p, dir}) {
		t.Fatalf("fsynced %v, want %v", synced, []string{p, dir})
	}
}

// TestWriteNoReplace: with NoReplace a write creates the file, and when
// a file appears at the path before the rename (here from Check) it is
// left as it is, the error is fs.ErrExist and no temporary file is left.
func TestWriteNoReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := WriteWith(p, []byte("new\n"), Options{Perm: 0o644, NoReplace: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new\n" {
		t.Fatalf("not created: %q", b)
	}
	q := filepath.Join(dir, "g")
	err := WriteWith(q, []byte("ours\n"), Options{Perm: 0o644, NoReplace: true, Check: func(target string) error {
		return os.WriteFile(target, []byte("theirs\n"), 0o644)
	}})
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("err = %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(q); string(b) != "theirs\n" {
		t.Fatalf("replaced: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("left: %v", entries)
	}
}

// Len is the number of directories waiting for Sync.
func (s *DirSyncs) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.dirs)
}
