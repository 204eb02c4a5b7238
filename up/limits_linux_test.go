package up

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actctl/actctl/schedule"
)

// TestLimitLeavesTheRestRunning: out of file handles (one descriptor
// left under RLIMIT_NOFILE), a service and an employee added then do not
// start, each with a reason that names the limit (never "restart up once
// that task ended": no task ran), while the services already running
// stay running; up does not abort. The employee's lock takes the last
// descriptor and its start is refused; the service's lock cannot be
// taken, so its start takes it. Once handles are free, the service
// starts at its next backoff and the employee (acp-background: never
// restarted on its own) at `actctl start`.
func TestLimitLeavesTheRestRunning(t *testing.T) {
	h := newHarness(t, nil)
	specs := []Spec{service(t, "a"), service(t, "b"), service(t, "c")}
	h.m.Sync(specs)
	for _, s := range specs {
		h.wait("process:start", s.Name)
	}
	emp := employee(t, "emp", schedule.Spec{})
	late := service(t, "late")
	emp.Root, late.Root = t.TempDir(), t.TempDir()
	restore := leaveOneFile(t)
	h.m.Sync(append(specs, emp, late))
	for _, name := range []string{"emp", "late"} {
		st := waitStatus(t, h.m, name, func(a AgentStatus) bool { return a.LastError != "" })
		if !strings.Contains(st.LastError, "the open files limit (RLIMIT_NOFILE") || strings.Contains(st.LastError, "task ended") {
			t.Errorf("%s: state %s, error %q; want the limit named", name, st.State, st.LastError)
		}
	}
	restore()
	for _, s := range specs {
		if st := waitStatus(t, h.m, s.Name, func(AgentStatus) bool { return true }); st.State != "running" {
			t.Errorf("%s: %s, want running", s.Name, st.State)
		}
	}
	h.clk.Advance(time.Minute) // past the first backoff
	h.wait("process:start", "late")
	if _, err := h.m.Start(context.Background(), "emp"); err != nil {
		t.Fatal(err)
	}
	h.wait("process:start", "emp")
}

// leaveOneFile fills the holes in this process's descriptor table and
// lowers RLIMIT_NOFILE so that exactly one open succeeds; restore (also
// a cleanup) puts the limit back and closes the fillers.
func leaveOneFile(t *testing.T) (restore func()) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	top := 0
	d, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range d {
		if fd, _ := strconv.Atoi(e.Name()); fd > top {
			top = fd
		}
	}
	var fillers []*os.File
	for {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		if int(f.Fd()) > top {
			f.Close() // now the lowest free descriptor
			break
		}
		fillers = append(fillers, f)
	}
	low := old
	low.Cur = uint64(top) + 2
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	done := false
	restore = func() {
		if done {
			return
		}
		done = true
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
			t.Fatal(err)
		}
		for _, f := range fillers {
			f.Close()
		}
	}
	t.Cleanup(restore)
	return restore
}
