//go:build unix

package acpclient

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/actctl/actctl/internal/atomicfile"
)

// beneathTree makes a root beside a directory outside holding a secret,
// with links of every kind in the root.
func beneathTree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for f, content := range map[string]string{
		"root/in.txt": "inside", "root/sub/deeper/f.txt": "deep", "root/AGENTS.md": "agents",
		"root/private.txt": "private", "outside/secret.txt": "SECRET",
	} {
		p := filepath.Join(base, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(root, "private.txt"), 0o600)
	for name, target := range map[string]string{
		"lnk": "sub/deeper", "rel-in": "sub/../in.txt", "CLAUDE.md": "AGENTS.md",
		"abs-in": filepath.Join(root, "in.txt"), "esc": "../outside/secret.txt", "escdir": "../outside",
		"parent": "..", "sub/up": "../..", "loop": "loop", "proc": "/proc/self/root",
		"dangling-abs": filepath.Join(outside, "new.txt"), "dangling-rel": "../outside/new.txt",
		"dangling-dir": "../outside/newdir",
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, outside
}

// TestBeneathRead: a read follows links that stay in the root and
// refuses every way out (absolute links, links and ".." that climb out,
// /proc's links), loops, FIFOs (without blocking) and missing files, with
// the kernel's openat2 and with the walker alike.
func TestBeneathRead(t *testing.T) {
	eachLookup(t, func(t *testing.T) {
		dir, _ := beneathTree(t)
		rs, err := newRoots(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ rel, want string }{
			{"in.txt", "inside"}, {"lnk/f.txt", "deep"}, {"rel-in", "inside"}, {"sub/deeper/f.txt", "deep"},
			{"abs-in", "outside"}, {"esc", "outside"}, {"escdir/secret.txt", "outside"},
			{"parent/outside/secret.txt", "outside"}, {"sub/up/outside/secret.txt", "outside"},
			{"proc/etc/hostname", "outside"}, {"dangling-abs", "outside"}, {"dangling-rel", "outside"},
			{"loop", "loop"}, {"fifo", "not regular"}, {"sub", "not regular"}, {"missing.txt", "missing"},
		} {
			got := readResult(rs[0], tc.rel)
			if got != tc.want {
				t.Errorf("read %s: %s, want %s", tc.rel, got, tc.want)
			}
		}
	})
}

// readResult is the content of rel below r, or the kind of its error.
func readResult(r root, rel string) string {
	f, err := openBeneath(r, rel)
	if err != nil {
		return errKind(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

func errKind(err error) string {
	var out *errOutside
	var prot *errProtected
	switch {
	case errors.As(err, &out):
		return "outside"
	case errors.As(err, &prot):
		return "protected"
	case errors.Is(err, errLoop):
		return "loop"
	case errors.Is(err, fs.ErrNotExist):
		return "missing"
	case strings.Contains(err.Error(), "not a regular file"):
		return "not regular"
	}
	return err.Error()
}

// TestBeneathWrite: a write makes its directories, goes through links
// that stay in the root (keeping the link), keeps the mode of the file it
// replaces, and refuses every way out, dangling links included, leaving
// nothing outside and no temporary file anywhere.
func TestBeneathWrite(t *testing.T) {
	dir, outside := beneathTree(t)
	rs, err := newRoots(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ rel, want, file string }{
		{"new/dir/x.txt", "", "new/dir/x.txt"}, {"lnk/new.txt", "", "sub/deeper/new.txt"},
		{"CLAUDE.md", "", "AGENTS.md"}, {"private.txt", "", "private.txt"},
		{"dangling-abs", "outside", ""}, {"dangling-rel", "outside", ""}, {"dangling-dir/x.txt", "outside", ""},
		{"escdir/x.txt", "outside", ""}, {"parent/outside/x.txt", "outside", ""}, {"sub/up/x.txt", "outside", ""},
		{"loop", "loop", ""}, {"fifo", "not regular", ""}, {"sub", "is a directory", ""},
		{"lnk/../../.git/x", "protected", ""},
	} {
		err := writeBeneath(rs[0], tc.rel, []byte("written"), protectedCheck)
		got := ""
		if err != nil {
			got = errKind(err)
			if strings.Contains(got, "is a directory") {
				got = "is a directory"
			}
		}
		if got != tc.want {
			t.Errorf("write %s: %q, want %q", tc.rel, got, tc.want)
		}
		if tc.file != "" {
			if b, _ := os.ReadFile(filepath.Join(dir, tc.file)); string(b) != "written" {
				t.Errorf("write %s: %s holds %q", tc.rel, tc.file, b)
			}
		}
	}
	if fi, err := os.Lstat(filepath.Join(dir, "CLAUDE.md")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("CLAUDE.md is no longer a link: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "private.txt")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("private.txt lost its mode: %v %v", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("written outside: %v", entries)
	}
	filepath.WalkDir(filepath.Dir(dir), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), atomicfile.TempPrefix) {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// TestBeneathRootReplaced: a root moved away and replaced by another
// directory after the session started is refused, not looked up in.
func TestBeneathRootReplaced(t *testing.T) {
	eachLookup(t, func(t *testing.T) {
		base := t.TempDir()
		dir := filepath.Join(base, "root")
		os.Mkdir(dir, 0o755)
		rs, err := newRoots(dir)
		if err != nil {
			t.Fatal(err)
		}
		os.Rename(dir, filepath.Join(base, "moved"))
		os.Mkdir(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "x.txt"), []byte("x"), 0o644)
		if got := readResult(rs[0], "x.txt"); got != "outside" {
			t.Errorf("read in a replaced root: %s", got)
		}
		if err := writeBeneath(rs[0], "y.txt", nil, protectedCheck); errKind(err) != "outside" {
			t.Errorf("write in a replaced root: %v", err)
		}
	})
}
