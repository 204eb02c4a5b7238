package tasklog

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// following runs Follow on path from offset in the background; its lines
// arrive on the returned channel. The test ends it and checks it returned
// nil.
func following(t *testing.T, path string, offset int64) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	lines := make(chan string, 100)
	done := make(chan error, 1)
	go func() { done <- Follow(ctx, path, offset, func(l []byte) { lines <- string(l) }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Follow: %v", err)
		}
	})
	return lines
}

// next waits for the next line and checks it is want.
func next(t *testing.T, lines <-chan string, want string) {
	t.Helper()
	if got := recv(t, lines); got != want {
		t.Fatalf("line %q, want %q", got, want)
	}
}

// recv waits for the next line; the deadline only turns a hang into a
// failure.
func recv(t *testing.T, lines <-chan string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	select {
	case got := <-lines:
		return got
	case <-ctx.Done():
		t.Fatal("no line")
		return ""
	}
}

func appendTo(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// TestFollowPartialLine: existing lines first, then appended ones; a last
// line without its newline is held until the newline comes. The first
// read sees "ab" unfinished (it follows l1 in the same read), so a Follow
// that emitted partial lines would emit "ab" next.
func TestFollowPartialLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "actctl.log")
	appendTo(t, p, "l1\nab")
	lines := following(t, p, 0)
	next(t, lines, "l1")
	appendTo(t, p, "c\n")
	next(t, lines, "abc")
	appendTo(t, p, "x\ny")
	next(t, lines, "x")
	appendTo(t, p, "z\n\n")
	next(t, lines, "yz")
	next(t, lines, "")
}

func TestFollowOffset(t *testing.T) {
	p := filepath.Join(t.TempDir(), "actctl.log")
	appendTo(t, p, "l1\nl2\n")
	lines := following(t, p, 3)
	next(t, lines, "l2")
	appendTo(t, p, "l3\n")
	next(t, lines, "l3")
}

// TestFollowCreatedLater: neither the file nor its directories exist when
// Follow starts; each directory is created once the watch on its parent
// is in place (the hook says so), and the file's line arrives.
func TestFollowCreatedLater(t *testing.T) {
	root := t.TempDir()
	watched := make(chan string, 10)
	testHookWatch = func(d string) { watched <- d }
	t.Cleanup(func() { testHookWatch = nil })
	p := filepath.Join(root, "a", "tasks", "20261122T090000Z-1.jsonl")
	lines := following(t, p, 0)
	next(t, watched, root)
	if err := os.Mkdir(filepath.Join(root, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	next(t, watched, filepath.Join(root, "a"))
	if err := os.Mkdir(filepath.Join(root, "a", "tasks"), 0o755); err != nil {
		t.Fatal(err)
	}
	next(t, watched, filepath.Join(root, "a", "tasks"))
	appendTo(t, p, "hello\n")
	next(t, lines, "hello")
	appendTo(t, p, "again\n")
	next(t, lines, "again")
	// Removed and created again: followed from its start.
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	appendTo(t, p, "new\n")
	next(t, lines, "new")
}

// TestFollowWriter: what a Writer appends to actctl.log is followed.
func TestFollowWriter(t *testing.T) {
	dir := t.TempDir()
	lines := following(t, SummaryPath(dir), 0)
	w, err := Begin(dir, Task{ID: 1, Kind: "prompt"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(Summary{StopReason: "end_turn"}); err != nil {
		t.Fatal(err)
	}
	got := recv(t, lines)
	s, err := ParseSummary([]byte(got))
	if err != nil || s.Task != 1 || s.StopReason != "end_turn" {
		t.Errorf("followed %q: %+v, %v", got, s, err)
	}
}
