package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/internal/atomicfile"
)

// The client's fs methods against a hostile agent, through the binary
// (docs/run.md, "What the client does for the agent"). The agents of
// runWorkspace are tool agents: their workspace is the root, which is
// also the session cwd of a run started there.

// realDir is dir with its symlinks resolved.
func realDir(t *testing.T, dir string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// assertNoTemps fails if a temporary file of a write is left under dir.
func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), atomicfile.TempPrefix) {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// TestConfineRootsOnceE2E: the refusal of a path outside the roots names
// each root once, also when the session cwd is the workspace (issue #20
// item 20).
func TestConfineRootsOnceE2E(t *testing.T) {
	root, home := runWorkspace(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "x.txt"), []byte("x"), 0o644)
	r := actctl(t, root, home, "run", "helper", "-p", "read "+filepath.Join(outside, "x.txt"))
	real := realDir(t, root)
	if !strings.Contains(r.Stdout, "outside the session's directories ("+real+")") || strings.Count(r.Stdout, real) != 1 {
		t.Errorf("want the root named once:\n%s", r.Stdout)
	}
}

// TestConfineUTF8E2E: text that is not valid UTF-8 is refused, with an
// error naming the file, whole or in part, never served altered (issue
// #20 item 3).
func TestConfineUTF8E2E(t *testing.T) {
	root, home := runWorkspace(t)
	latin1 := []byte("caf\xe9\nna\xefve\n")
	for _, name := range []string{"menu.txt", "notes.md", "noext"} {
		p := filepath.Join(root, name)
		if err := os.WriteFile(p, latin1, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, prompt := range []string{"read " + p, "read-lines " + p + " 2 1"} {
			r := actctl(t, root, home, "run", "helper", "-p", prompt)
			if !strings.Contains(r.Stdout, "read error:") || !strings.Contains(r.Stdout, p+" is not valid UTF-8") || strings.Contains(r.Stdout, "\uFFFD") {
				t.Errorf("%s: want a refusal naming the file:\n%s", prompt, r.Stdout)
			}
		}
		if b, _ := os.ReadFile(p); !bytes.Equal(b, latin1) {
			t.Errorf("%s changed: %q", name, b)
		}
	}
}

// TestConfineProtectedE2E: under every preset the client writes none of
// apply's protected files (any *.cue, cue.mod/, .git/ and .actant/ at any
// depth, and actant.* at the root of any directory that may be a
// workspace), neither by their name in any case nor through a symlink
// inside the roots; nothing is created or changed, and no temporary file
// is left (issue #20 item 6).
func TestConfineProtectedE2E(t *testing.T) {
	root, home := runWorkspace(t)
	// actctl's own records are whatever this first run leaves (a
	// record of the test's own making would stop every later run).
	if r := actctl(t, root, home, "run", "helper", "-p", "hello"); r.Code != 0 {
		t.Fatalf("run: %d %s", r.Code, r.Stderr)
	}
	users := map[string]string{
		".git/config": "[core]\n", ".git/hooks/README": "hooks\n",
		"sub/.git/HEAD": "ref\n", "sub/policy.cue": "package x\n",
	}
	writeFiles(t, root, users)
	before0 := map[string][]byte{}
	for f, content := range users {
		before0[f] = []byte(content)
	}
	os.Symlink(".git/config", filepath.Join(root, "notes.md"))
	os.Symlink("sub/../.git/hooks/post-checkout", filepath.Join(root, "hooklink"))
	os.Symlink(".actant", filepath.Join(root, "state"))
	targets := []string{"actant.cue", "Actant.Lock", "actant.owned", "actant.lock", "actant.new",
		"sub/policy.cue", "sub/new.CUE", "cue.mod/module.cue", "cue.mod/pkg/x.txt",
		".git/config", ".git/hooks/pre-commit", ".GIT/config", "sub/.git/HEAD",
		".actant/config.cache", ".actant/run/x", "sub/.actant/x",
		"notes.md", "hooklink", "state/config.cache", "state/newdir/x", "sub/actant.owned", "sub/deeper/Actant.lock"}
	before := map[string]string{}
	var paths []string
	for _, rel := range targets {
		p := filepath.Join(root, rel)
		b, _ := os.ReadFile(p)
		before[p] = string(b)
		paths = append(paths, p)
	}
	for _, args := range [][]string{{"helper"}, {"boss"}, {"editor"}, {"helper", "--approve-all"}, {"reader"}, {"reader", "--deny-all"}} {
		r := actctl(t, root, home, append(append([]string{"run"}, args...), "-p", "write-all pwned "+strings.Join(paths, " "))...)
		for _, p := range paths {
			want := "write " + p + ": error: " + p + ": actctl's client never writes there"
			if args[0] == "reader" {
				// The preset refuses every write before the protected set
				// is looked at (issue #20 item 5): any refusal will do.
				want = "write " + p + ": error: "
			}
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("%v: %s not refused:\n%s%s", args, p, r.Stdout, r.Stderr)
			}
		}
	}
	// actctl's own records change as the runs materialize their agents:
	// what matters is that none holds what the agent wrote.
	for _, p := range paths {
		if b, _ := os.ReadFile(p); strings.Contains(string(b), "pwned") {
			t.Errorf("%s written: %q, was %q", p, b, before[p])
		}
	}
	assertNotWritten(t, root, "a protected path", "Actant.Lock", "actant.new", "sub/new.CUE", "cue.mod",
		".git/hooks/pre-commit", ".GIT", ".actant/run/x", "sub/.actant", ".git/hooks/post-checkout", ".actant/newdir", "sub/actant.owned", "sub/deeper")
	for _, f := range []string{".git/config", ".git/hooks/README", "sub/.git/HEAD", "sub/policy.cue"} {
		if b, _ := os.ReadFile(filepath.Join(root, f)); !bytes.Equal(b, before0[f]) {
			t.Errorf("%s changed: %q", f, b)
		}
	}
	assertNoTemps(t, root)
}

// TestConfineSymlinksE2E: a symlink never carries a write or a read out
// of the roots, whatever it points to (an absolute path, a relative one
// that climbs out, a target that does not exist yet, a directory), and
// leaves no temporary file anywhere; a link that stays inside is written
// through and kept (issue #20 item 7).
func TestConfineSymlinksE2E(t *testing.T) {
	root, home := runWorkspace(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("SECRET"), 0o644)
	up, err := filepath.Rel(root, outside)
	if err != nil || !strings.HasPrefix(up, "..") {
		t.Fatalf("want %s beside %s: %s %v", outside, root, up, err)
	}
	writeFiles(t, root, map[string]string{"AGENTS.md": "agents\n", "sub/deeper/keep.txt": "k\n"})
	links := map[string]string{
		"dangling":     filepath.Join(outside, "new.txt"),    // absolute, target missing
		"dangling-rel": filepath.Join(up, "new-rel.txt"),     // relative, climbs out
		"dirlink":      filepath.Join(outside, "newdir"),     // a missing directory
		"dirlink-rel":  up,                                   // the outside directory
		"parent":       "..",                                 // the root's parent
		"secret":       filepath.Join(outside, "secret.txt"), // an existing file
		"CLAUDE.md":    "AGENTS.md",                          // stays inside
		"lnk":          "sub/deeper",
		"sub/deeper/x": "../y",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	escapes := []string{"dangling", "dangling-rel", "dirlink/x.txt", "dirlink/a/b.txt", "dirlink-rel/new-dir.txt",
		"parent/" + filepath.Base(outside) + "/new-parent.txt", "secret"}
	var paths []string
	for _, rel := range append(escapes, "CLAUDE.md", "lnk/x") {
		paths = append(paths, filepath.Join(root, rel))
	}
	r := actctl(t, root, home, "run", "boss", "-p", "write-all pwned "+strings.Join(paths, " "))
	for _, p := range paths[:len(escapes)] {
		if !strings.Contains(r.Stdout, "write "+p+": error: "+p+" is outside the session's directories") {
			t.Errorf("%s not refused:\n%s", p, r.Stdout)
		}
	}
	for _, p := range paths[len(escapes):] {
		if !strings.Contains(r.Stdout, "write "+p+": ok") {
			t.Errorf("%s refused:\n%s", p, r.Stdout)
		}
	}
	for _, rel := range []string{"dangling", "secret", "dirlink-rel/secret.txt", "parent/" + filepath.Base(outside) + "/secret.txt"} {
		p := filepath.Join(root, rel)
		if r := actctl(t, root, home, "run", "boss", "-p", "read "+p); strings.Contains(r.Stdout, "SECRET") || !strings.Contains(r.Stdout, "outside the session's directories") {
			t.Errorf("read %s not refused:\n%s", p, r.Stdout)
		}
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("written outside the roots: %v", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "AGENTS.md")); string(b) != "pwned" {
		t.Errorf("AGENTS.md through CLAUDE.md: %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(root, "CLAUDE.md")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("CLAUDE.md is no longer a link: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "sub", "y")); string(b) != "pwned" {
		t.Errorf("lnk/x (sub/deeper/x -> ../y): sub/y = %q", b)
	}
	assertNoTemps(t, root)
}

// TestConfineSwapRaceE2E: a directory swapped for a symlink out of the
// roots while the agent reads and writes below it: no read returns what
// is outside, nothing is written there, no temporary file is left there,
// and every refusal says what happened, never a bare "Internal error"
// (issue #20 items 7 and 20).
func TestConfineSwapRaceE2E(t *testing.T) {
	root, home := runWorkspace(t)
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.txt": "SECRET"})
	writeFiles(t, root, map[string]string{"dir/secret.txt": "inside"})
	dir := filepath.Join(root, "dir")
	r := actctl(t, root, home, "run", "boss", "-p", fmt.Sprintf("swap-race %s %s 300", dir, outside))
	if !strings.Contains(r.Stdout, "race: reads ") || !strings.Contains(r.Stdout, " leaked 0 ") {
		t.Errorf("a read leaked what is outside:\n%s%s", r.Stdout, r.Stderr)
	}
	for _, line := range strings.Split(r.Stdout, "\n") {
		if msg, ok := strings.CutPrefix(line, "race message: "); ok && (msg == "" || strings.Contains(msg, "Internal error")) {
			t.Errorf("a refusal without its reason: %q", line)
		}
	}
	assertNotWritten(t, outside, "a write through the swapped directory", "planted.txt")
	assertNoTemps(t, outside)
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("dir not restored: %v", err)
	}
}

// TestConfineReadLimitE2E: a whole file over acpclient.MaxReadBytes is
// refused with an error saying how to read it; its lines are served by
// line and limit (issue #20 item 14).
func TestConfineReadLimitE2E(t *testing.T) {
	root, home := runWorkspace(t)
	var b bytes.Buffer
	for n := 1; b.Len() <= acpclient.MaxReadBytes+1<<20; n++ {
		fmt.Fprintf(&b, "line %d\n", n)
	}
	p := filepath.Join(root, "big.log")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := actctl(t, root, home, "run", "helper", "-p", "read-size "+p)
	if want := fmt.Sprintf("read error: %s is %d bytes, more than the %d bytes one read may return: ask for part of it with line and limit", p, b.Len(), acpclient.MaxReadBytes); !strings.Contains(r.Stdout, want) {
		t.Errorf("want %q:\n%.300s", want, r.Stdout)
	}
	r = actctl(t, root, home, "run", "helper", "-p", "read-lines "+p+" 500000 2")
	if want := "read: line 500000\nline 500001\n"; !strings.Contains(r.Stdout, want) {
		t.Errorf("want %q:\n%.300s", want, r.Stdout)
	}
	r = actctl(t, root, home, "run", "helper", "-p", "read-lines "+p+" 2 -")
	if want := "the lines asked for are more than the"; !strings.Contains(r.Stdout, want) {
		t.Errorf("want %q:\n%.300s", want, r.Stdout)
	}
}
