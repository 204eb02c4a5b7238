//go:build unix

package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpRefusesLinkedRunDir: `up` refuses a .actant, a .actant/run or an
// up.lock that is a symbolic link (another user's, as far as actctl can
// tell) instead of putting its lock and socket where it points; nothing
// is written there and no up is left running.
func TestUpRefusesLinkedRunDir(t *testing.T) {
	for _, c := range []struct{ name, link string }{
		{"actant", ".actant"},
		{"run", ".actant/run"},
		{"lock", ".actant/run/up.lock"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, home := upWorkspace(t)
			elsewhere := filepath.Join(t.TempDir(), "elsewhere")
			if c.name == "lock" {
				mkdirs(t, filepath.Join(root, ".actant/run"), 0o700)
				writeFiles(t, filepath.Dir(elsewhere), map[string]string{"elsewhere": "theirs\n"})
			} else {
				mkdirs(t, filepath.Dir(filepath.Join(root, c.link)), 0o700)
				mkdirs(t, elsewhere, 0o755)
			}
			if err := os.Symlink(elsewhere, filepath.Join(root, c.link)); err != nil {
				t.Fatal(err)
			}
			// The old up went on through the link and ran: it is stopped
			// once it says where it listens.
			p := startUp(t, root, home)
			m := p.waitLine(`refusing|control socket`)
			want := "refusing " + filepath.Join(root, c.link) + ": it is a symbolic link"
			if m[0] != "control socket" {
				err := p.cmd.Wait()
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
					t.Errorf("up: %v, want exit 1", err)
				}
			}
			if !strings.Contains(p.stderr(), want) {
				t.Fatalf("up: want %q\n%s", want, p.stderr())
			}
			if strings.Contains(p.stderr(), "process:start") {
				t.Errorf("a refused up started agents:\n%s", p.stderr())
			}
			if c.name == "lock" {
				if b, _ := os.ReadFile(elsewhere); string(b) != "theirs\n" {
					t.Errorf("the link's target was written: %q", b)
				}
				return
			}
			if got := listFiles(t, elsewhere); len(got) != 0 {
				t.Errorf("up wrote through the link: %v", got)
			}
		})
	}
}

// TestClientRefusesForeignSocket: prompt, start and stop refuse a socket
// that is a link (to another user's listener) or a run directory open to
// others, before they connect: the listener gets no connection, so the
// prompt's text reaches nobody.
func TestClientRefusesForeignSocket(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"link", "up.sock: it is a symbolic link"},
		{"open-dir", "run: its mode is 0770"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, home := upWorkspace(t)
			run := filepath.Join(root, ".actant", "run")
			mkdirs(t, run, 0o700)
			theirs := filepath.Join(t.TempDir(), "s")
			sock := filepath.Join(run, "up.sock")
			if c.name == "link" {
				if err := os.Symlink(theirs, sock); err != nil {
					t.Fatal(err)
				}
			} else {
				theirs = sock
				if err := os.Chmod(run, 0o770); err != nil {
					t.Fatal(err)
				}
			}
			ln, err := net.Listen("unix", theirs)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			heard := listen(ln)
			for _, args := range [][]string{{"prompt", "api", "-p", "the secret plan"}, {"start", "api"}, {"stop", "api"}} {
				r := actctl(t, root, home, args...)
				if r.Code != 1 || !strings.Contains(r.Stderr, c.want) || !strings.Contains(r.Stderr, "refusing") {
					t.Errorf("%s: %d, want 1 and %q\n%s", args[0], r.Code, c.want, r.Stderr)
				}
			}
			if got := heard(theirs); len(got) != 0 {
				t.Errorf("the foreign socket heard %q", got)
			}
		})
	}
}

// listen serves ln as another user's listener would: it reads each
// connection's first line and hangs up. The returned function connects
// once more (to path), with a marker line, and returns the lines heard
// before it: connections are accepted in order, so every client that
// connected before has been heard.
func listen(ln net.Listener) func(path string) []string {
	var heard []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(conn).ReadString('\n')
			conn.Close()
			if line == "marker\n" {
				return
			}
			heard = append(heard, line)
		}
	}()
	return func(path string) []string {
		conn, err := net.Dial("unix", path)
		if err == nil {
			_, _ = conn.Write([]byte("marker\n"))
			conn.Close()
		}
		<-done
		return heard
	}
}

// mkdirs creates dir and its parents, dir itself with mode perm.
func mkdirs(t *testing.T, dir string, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(dir, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, perm); err != nil {
		t.Fatal(err)
	}
}
