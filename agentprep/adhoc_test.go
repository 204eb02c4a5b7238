package agentprep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
)

// TestRecordAdhocWaitsForTheLock: while another process (here: this test)
// holds the workspace lock, an ad-hoc agent is not recorded — an apply
// under way removes temporary files in .actant as leftovers, and two
// read-modify-writes of adhoc.json would lose an agent. With the wait
// given up, nothing is written.
func TestRecordAdhocWaitsForTheLock(t *testing.T) {
	root := t.TempDir()
	l, err := reconcile.Lock(context.Background(), root, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = RecordAdhoc(ctx, root, t.TempDir(), "x", &schema.Agent{Template: "t"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("recordAdhoc with the lock held elsewhere: %v, want the wait given up", err)
	}
	if _, err := os.Stat(filepath.Join(root, ".actant", "adhoc.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("adhoc.json written without the lock: %v", err)
	}
}

// TestRecordAdhocConcurrent: agents recorded at once by several callers
// are all kept; forgetting the last one leaves no trace of actctl in a
// workspace it never applied.
func TestRecordAdhocConcurrent(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	const n = 12
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = RecordAdhoc(context.Background(), root, home, fmt.Sprintf("a%d", i), &schema.Agent{Template: "t"})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	agents, why, err := schema.AdhocAgents(root, home)
	if err != nil || why != "" {
		t.Fatal(err, why)
	}
	if len(agents) != n {
		t.Fatalf("%d ad-hoc agents recorded, want %d: %v", len(agents), n, agents)
	}
	for name := range agents {
		if err := RecordAdhoc(context.Background(), root, home, name, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".actant")); !errors.Is(err, os.ErrNotExist) {
		entries, _ := os.ReadDir(filepath.Join(root, ".actant"))
		t.Errorf(".actant left after forgetting every ad-hoc agent: %v", entries)
	}
}
