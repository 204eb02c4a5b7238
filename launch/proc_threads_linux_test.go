package launch

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"testing"
	"time"
)

// TestSuperviseThreadsIndependentOfChildren: supervising 200 children
// holds no OS thread each (docs/runtime.md, "Limits"): the process's
// thread count with 200 live children stays within a constant of its
// count with 10. It counts threads; it times nothing.
func TestSuperviseThreadsIndependentOfChildren(t *testing.T) {
	var procs []*Proc
	defer func() {
		for _, p := range procs {
			p.Stop(context.Background(), StopPolicy{Ask: AskEOF, Grace: guard})
		}
	}()
	start := func(n int) {
		for range n {
			p, err := Supervise(Spec{Command: "cat"})
			if err != nil {
				t.Fatal(err)
			}
			procs = append(procs, p)
		}
	}
	start(10)
	base := threads(t)
	start(190)
	const slack = 16
	t.Logf("%d threads with 10 children", base)
	if got := threads(t); got > base+slack {
		t.Fatalf("%d threads with %d children, %d with 10: want at most %d", got, len(procs), base, base+slack)
	}
	// Each child is still reaped: closing its stdin ends it.
	for _, p := range procs[:5] {
		if !p.Stop(context.Background(), StopPolicy{Ask: AskEOF, Grace: time.Hour}) {
			t.Fatal("a child did not exit on EOF")
		}
		if st := p.State(); st == nil || !st.Success() {
			t.Errorf("state %v", st)
		}
	}
}

// threads is the Threads: line of /proc/self/status.
func threads(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := bytes.Cut(b, []byte("\nThreads:"))
	if !ok {
		t.Fatal("/proc/self/status has no Threads: line")
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	n, err := strconv.Atoi(string(bytes.TrimSpace(line)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
