// Package layout names what actctl keeps in a workspace's .actant/
// directory, in one table, so that the reconciler, the watch loop, the
// renderer's reserved-path checks and the proxy's runtime records agree on
// every name without repeating a literal.
//
// At a workspace root:
//
//	.actant/
//	  state.json          what the last apply wrote (this machine's record)
//	  state.pending.json  the journal of an apply in progress
//	  lock                the workspace lock (apply, proxy, watch)
//	  backup/<stamp>/     users' files that overwrite or --force replaced
//	  adhoc.json          agents `actctl proxy -t` created
//	  inputs.rec          what the last plain apply read (package inputs)
//	  config.cache        the config's last CUE evaluation (package inputs)
//	  run/                runtime records of processes actctl supervises
//	    up.sock           actctl up's control socket (package control)
//	    up.lock           one actctl up per workspace; holds its pid
//	  agents/<name>.json  a project agent's runtime record (proxy)
//	  logs/<name>.log     a project agent's proxy log
//	  logs/<name>/        a project agent's task logs (actctl up, package tasklog;
//	                      logs/_<name>/ for a name ending in .log):
//	    actctl.log        one summary line per task
//	    tasks/            one file of ACP messages per task
//
// In $ACTANT_HOME, beside the instances and the hub cache:
//
//	procs/<key>/          per workspace (key: a digest of its root), the
//	                      process ledgers of the actctl processes running
//	                      there (packages launch, control)
//	  timeline.jsonl      the dashboard's events timeline, kept across
//	                      runs of up (package dashboard)
//
// state.json, state.pending.json and adhoc.json are sealed with this
// user's key, inputs.rec and config.cache end with its seal (package
// internal/userkey): a file that is not, or that git tracks, is not
// trusted (docs/design.md, "What actctl trusts").
//
// An instance workspace (one agent per directory) keeps its runtime record
// in .actant.json and its logs in logs/ instead (Actant-compatible): there
// logs/actctl.log and logs/tasks/ hold its task logs.
package layout

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The names, relative to a workspace root or to the .actant directory.
const (
	// Dir is actctl's directory in a workspace. The renderer refuses to
	// write into it and the watch loop ignores what happens there.
	Dir = ".actant"
	// State records what the last apply wrote.
	State = "state.json"
	// Pending is the journal of an apply in progress: the state that apply
	// will record when it finishes.
	Pending = "state.pending.json"
	// Lock serialises apply and proxy on one workspace.
	Lock = "lock"
	// Backup holds users' files that overwrite or --force replaced.
	Backup = "backup"
	// Adhoc holds the agents `actctl proxy -t TEMPLATE` created.
	Adhoc = "adhoc.json"
	// Inputs records what the last plain `actctl apply` read, so the next
	// one can skip evaluating the config when none of it changed (package
	// inputs: a line of JSON, then stat tables). Machine-local, like State.
	Inputs = "inputs.rec"
	// ConfigCache holds a snapshot of the config's last CUE evaluation
	// with the stat data of the files it read, so that a load of
	// unchanged files skips CUE (package inputs). Machine-local.
	ConfigCache = "config.cache"
	// Run holds runtime records of the processes actctl supervises.
	Run = "run"
	// UpSocket, in Run, is the control socket actctl up listens on.
	UpSocket = "up.sock"
	// UpLock, in Run, is held by the workspace's actctl up; it holds
	// that process's pid.
	UpLock = "up.lock"
	// Agents holds the runtime records of a project's agents (proxy).
	Agents = "agents"
	// Logs holds proxy logs (in .actant/ of a project, or in an instance
	// workspace's root).
	Logs = "logs"
	// TaskSummaries is the file of an agent's logs directory holding one
	// summary line per task it ran under `actctl up`.
	TaskSummaries = "actctl.log"
	// Tasks is the directory of an agent's logs directory holding one
	// file of ACP messages per task.
	Tasks = "tasks"
	// Sessions is the directory of an agent's logs directory holding one
	// file of ACP messages per session actctl relays (`actctl proxy`,
	// `proxy --lease`).
	Sessions = "sessions"
	// Ledgers, in $ACTANT_HOME, holds per workspace the process ledgers
	// of the actctl processes running there (never the workspace: a
	// clone could bring one).
	Ledgers = "procs"
	// Timeline, beside a workspace's ledgers, keeps the dashboard's
	// timeline across runs of up (this machine's: never the workspace).
	Timeline = "timeline.jsonl"
	// InstanceRecord is an instance workspace's runtime record.
	InstanceRecord = ".actant.json"
)

// Path joins root, the .actant directory and elem.
func Path(root string, elem ...string) string {
	return filepath.Join(append([]string{root, Dir}, elem...)...)
}

// NoLinks refuses a symbolic link at the .actant directory of the
// workspace at root or at any directory below it on the way to p (a path
// under it): a checkout can bring links, and one there would carry
// actctl's records and logs, and what it writes into them, out of the
// workspace. Directories that do not exist yet are fine (actctl makes
// them). p itself is the caller's to open without following a link.
func NoLinks(root, p string) error {
	dir := filepath.Join(root, Dir)
	rel, err := filepath.Rel(dir, filepath.Dir(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil // not under .actant
	}
	for _, part := range append([]string{"."}, strings.Split(rel, string(filepath.Separator))...) {
		if part != "." {
			dir = filepath.Join(dir, part)
		}
		fi, err := os.Lstat(dir)
		if err != nil {
			return nil // missing: made as a directory
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			to, _ := os.Readlink(dir)
			return fmt.Errorf("%s is a symbolic link (to %s): actctl keeps its records only in a directory of the workspace, never through a link a checkout may bring; remove it and run actctl again", dir, to)
		}
	}
	return nil
}

// NoLinksIn is NoLinks for a path p that names its workspace only by
// the .actant directory in it (the last one): a path with none is fine.
func NoLinksIn(p string) error {
	sep := string(filepath.Separator)
	i := strings.LastIndex(p, sep+Dir+sep)
	if i < 0 {
		return nil
	}
	return NoLinks(p[:i], p)
}

// NotDir turns err into a plain explanation when dir, a workspace's .actant
// directory, exists as something other than a directory; otherwise it
// returns err.
func NotDir(dir string, err error) error {
	if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
		return fmt.Errorf("%s is a file, where actctl keeps its directory (state, lock, backups, proxy agents): move it away, or delete it if it is not yours, and run actctl again", dir)
	}
	return err
}
