package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: the test reads the master, the
// command writes to the slave as to a terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty slave: %v", err)
	}
	return m, s
}

// onPTY runs actctl with stdout and stderr on one terminal and returns
// what it printed (newlines as "\n") and its exit code.
func onPTY(t *testing.T, dir, home string, args ...string) (string, int) {
	t.Helper()
	m, s := openPTY(t)
	cmd := exec.Command(actctlBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	cmd.Stdout, cmd.Stderr = s, s
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	b, _ := io.ReadAll(m) // ends with EIO once the last writer closed the slave
	code := 0
	if err := cmd.Wait(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("actctl %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return strings.ReplaceAll(string(b), "\r\n", "\n"), code
}

// TestHubProgressOnTerminal: a hub fetch says what it fetches and how
// many bytes it received on a terminal's stderr, and never with -o json, whose stdout stays one JSON
// document (issue #22 item 14).
func TestHubProgressOnTerminal(t *testing.T) {
	cue := hubConfig(t)
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, root, map[string]string{"actant.cue": cue})
	if out, code := onPTY(t, root, home, "apply"); code != 0 || !strings.Contains(out, "hub: resolving team (file://") || !strings.Contains(out, "objects") || !regexp.MustCompile(`\rhub: team: received \d+(\.\d)? [KM]?i?B\n`).MatchString(out) {
		t.Errorf("apply on a terminal: exit %d, no progress:\n%s", code, out)
	}
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, root, map[string]string{"actant.cue": cue})
	out, code := onPTY(t, root, home, "-o", "json", "apply")
	var v map[string]any
	if code != 0 || strings.Contains(out, "hub:") || json.Unmarshal([]byte(out), &v) != nil {
		t.Errorf("apply -o json on a terminal: exit %d, progress printed:\n%s", code, out)
	}
}

// TestRunToolLineOnTerminal: with stdout and stderr on one terminal, a
// tool line starts on a line of its own, not after the text streamed so
// far ("partialtool look ..."); the text goes on after it (issue #22
// item 16).
func TestRunToolLineOnTerminal(t *testing.T) {
	root, home := msgWorkspace(t, "")
	out, code := onPTY(t, root, home, "run", "helper", "-p", "text-tool")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	i := strings.Index(out, "tool look (read): completed")
	if i <= 0 || out[i-1] != '\n' || !strings.Contains(out, "partial\n") || !strings.Contains(out, " rest\n") {
		t.Errorf("the tool line does not start a line:\n%q", out)
	}
}
