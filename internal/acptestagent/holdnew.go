package acptestagent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	acp "github.com/coder/acp-go-sdk"
	"github.com/fsnotify/fsnotify"
)

// The files of hold-new, in the directory it names.
const (
	HeldFile    = "held"    // made once a session/new is being held
	ReleaseFile = "release" // made by the test to let it be answered
)

func init() {
	// hold-new DIR: the next session/new (of any client) is held: the
	// agent makes DIR/held and answers it only once DIR/release exists
	// (watched with fsnotify, no polling); "holding". A test drives a
	// client that goes away while its session/new is in flight.
	register("hold-new", func(t *Turn) (acp.StopReason, error) {
		if len(t.Words) < 2 {
			return "", fmt.Errorf("hold-new needs a directory")
		}
		held.Lock()
		held.dir = t.Words[1]
		held.Unlock()
		t.Say("holding\n")
		return acp.StopReasonEndTurn, nil
	})
}

// held is the directory of the session/new to hold, set by hold-new.
var held struct {
	sync.Mutex
	dir string
}

// holdNewSession holds a session/new while hold-new asks (NewSession
// calls it first).
func holdNewSession(ctx context.Context) {
	held.Lock()
	dir := held.dir
	held.dir = ""
	held.Unlock()
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, HeldFile), nil, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "test agent: hold-new:", err)
		return
	}
	if err := AwaitFile(ctx, filepath.Join(dir, ReleaseFile)); err != nil {
		fmt.Fprintln(os.Stderr, "test agent: hold-new:", err)
	}
}

// AwaitFile returns once path exists (watched with fsnotify: no polling),
// or ctx's error. Tests use it too, to wait for what the agent signals.
func AwaitFile(ctx context.Context, path string) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Add(filepath.Dir(path)); err != nil {
		return err
	}
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			return err
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", path, ctx.Err())
		}
	}
}
