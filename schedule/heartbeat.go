package schedule

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// HeartbeatFile is the file in the agent's workspace that holds what the
// agent should look at on each heartbeat. actctl seeds it once; from then
// on the agent owns it and rewrites it with its state and next steps.
const HeartbeatFile = ".heartbeat"

// HeartbeatPrompt is the prompt of every heartbeat task. It is fixed: what
// to do lives in .heartbeat, so the agent can change its own focus.
const HeartbeatPrompt = "Heartbeat. Read the file " + HeartbeatFile + " in your workspace: it holds your standing " +
	"instructions, your state and your next steps. Do what it says now. Then rewrite " + HeartbeatFile +
	" with your current state and your next steps, so that the next heartbeat can continue from there."

// SeedHeartbeat writes seed to dir/.heartbeat unless that file exists:
// it never overwrites (the agent owns the file once it exists). It
// reports whether it created the file.
func SeedHeartbeat(dir, seed string) (bool, error) {
	p := filepath.Join(dir, HeartbeatFile)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("seed %s: %w", p, err)
	}
	_, werr := f.WriteString(seed)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(p)
		return false, fmt.Errorf("seed %s: %w", p, err)
	}
	return true, nil
}
