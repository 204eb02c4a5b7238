package launch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSuperviseRefusesAtFileLimit: a start that would cross RLIMIT_NOFILE
// is refused before anything is started, naming the limit and how to
// raise it, with no install hint; once the limit has room, it starts.
func TestSuperviseRefusesAtFileLimit(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	d, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	low := old
	low.Cur = uint64(len(d)) + filesPerStart/2
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
			t.Fatal(err)
		}
	}()
	p, err := Supervise(Spec{Command: "cat", Install: "apt install coreutils"})
	var lim *LimitError
	if !errors.As(err, &lim) || p != nil {
		t.Fatalf("Supervise = %v, %v; want a LimitError", p, err)
	}
	msg := err.Error()
	for _, want := range []string{`backend "cat" could not be started: the open files limit (RLIMIT_NOFILE) would be crossed:`, "raise it: ulimit -n"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "install") {
		t.Errorf("%q gives an install hint", msg)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	if p, err = Supervise(Spec{Command: "cat"}); err != nil {
		t.Fatal(err)
	}
	p.Stop(t.Context(), StopPolicy{Ask: AskEOF, Grace: guard})
}

// TestCheckTasks: the pids.max of this process's cgroup (v1's pids
// hierarchy, or v2's unified one) is checked against pids.current.
func TestCheckTasks(t *testing.T) {
	root := t.TempDir()
	write := func(dir, max, cur string) {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(root, dir, "pids.max"), []byte(max+"\n"), 0o644)
		os.WriteFile(filepath.Join(root, dir, "pids.current"), []byte(cur+"\n"), 0o644)
	}
	write("pids/init.scope", "100", "95")
	write("user.slice/a", "100", "10")
	write("user.slice/b", "max", "10")
	for _, c := range []struct{ cgroup, want string }{
		{"9:name=systemd:/init.scope\n8:pids:/init.scope\n0::/init.scope\n", "the task limit (pids.max of cgroup pids/init.scope) would be crossed: 95 of 100 in use and a start needs 8"},
		{"3:cpu,pids:/init.scope\n", "pids.max of cgroup pids/init.scope"},
		{"0::/user.slice/a\n", ""},
		{"0::/user.slice/b\n", ""},
		{"0::/gone\n", ""},
		{"", ""},
	} {
		got := ""
		if err := checkTasks(root, []byte(c.cgroup)); err != nil {
			got = err.Error()
		}
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%q: %q, want %q", c.cgroup, got, c.want)
		}
	}
}

// TestCheckFilesCountsWithoutAllocating: the descriptor check every
// start makes counts /proc/self/fd's entries as os.ReadDir lists them,
// and allocates nothing per entry (with a thousand agents it ran once
// per start over thousands of descriptors: a garbage quadratic in the
// agents, docs/benchmarks.md "Threads at scale").
func TestCheckFilesCountsWithoutAllocating(t *testing.T) {
	var files []*os.File
	for range 300 {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	d, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := openFiles(); err != nil || n != uint64(len(d)) {
		t.Errorf("openFiles = %d, %v; /proc/self/fd lists %d", n, err, len(d))
	}
	if allocs := testing.AllocsPerRun(20, func() { _ = checkFiles() }); allocs > 4 {
		t.Errorf("checkFiles allocates %.0f times with %d descriptors open; want a few, none per descriptor", allocs, len(d))
	}
}
