package reconcile

import (
	"crypto/sha256"
	"encoding/hex"
)

// leftState is the state an apply left in .actant/state.json (see
// Result.LeftState).
type leftState struct {
	st  *State
	sum string
}

// LeftState returns the state this apply left in .actant/state.json,
// decoded, and the sha256 of the bytes it left there; nil and "" when it
// left none (a dry run, a conflict, no agents left). It lets the caller
// use that state without reading and decoding the file again: the caller
// checks the file still holds those bytes (package inputs).
func (res *Result) LeftState() (*State, string) {
	return res.left.st, res.left.sum
}

// leave records in res the state the executed run r left: the planned
// state, written (its encoding) when written, otherwise the state r read,
// which the plan equals (as records, or as bytes). No agents: none.
func (res *Result) leave(r *run, written bool) {
	st, data := r.plan.State, r.stateData
	if written {
		data = r.plan.StateBytes()
	}
	if len(st.Agents) == 0 || data == nil {
		return
	}
	h := sha256.Sum256(data)
	res.left = leftState{st: st, sum: hex.EncodeToString(h[:])}
}

// PrunedDir returns the directory the recorded state gave agent name,
// which this apply pruned (Result.Pruned); "" for an agent it did not
// prune. It is the state the apply planned from, read under the
// workspace lock, so a caller cleaning up after the pruned agents (their
// runtime records) needs no read of its own.
func (res *Result) PrunedDir(name string) string { return res.prunedDirs[name] }

// prunedDirs maps each of the agents pruned to its directory in the
// state r planned from.
func (r *run) prunedDirs(pruned []string) map[string]string {
	if len(pruned) == 0 {
		return nil
	}
	dirs := make(map[string]string, len(pruned))
	for _, n := range pruned {
		if a := r.state.Agents[n]; a != nil {
			dirs[n] = a.Dir
		}
	}
	return dirs
}
