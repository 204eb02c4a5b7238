package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
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

// TestRunToolLineOnTerminal: with stdout and stderr on one terminal, a
// tool line starts on a line of its own, not after the text streamed so
// far ("partialtool look ..."); the text goes on after it (issue #22
// item 16).
func TestRunToolLineOnTerminal(t *testing.T) {
	root, home := msgWorkspace(t, "")
	m, s := openPTY(t)
	cmd := exec.Command(actctlBin, "run", "helper", "-p", "text-tool")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	cmd.Stdout, cmd.Stderr = s, s
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	b, _ := io.ReadAll(m) // ends with EIO once the last writer closed the slave
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	out := strings.ReplaceAll(string(b), "\r\n", "\n")
	i := strings.Index(out, "tool look (read): completed")
	if i <= 0 || out[i-1] != '\n' || !strings.Contains(out, "partial\n") || !strings.Contains(out, " rest\n") {
		t.Errorf("the tool line does not start a line:\n%q", out)
	}
}
