// Package reconcile brings an agent's workspace in line with its rendered
// targets without ever losing a byte the user wrote (README, "What apply
// writes, and what it never touches").
//
// The work is split so that every decision is made by a pure function:
//
//	Snapshot (read disk)  ->  Plan (pure: targets x snapshot x state)  ->  Execute (write)
//
// Snapshot reads every file the targets and the recorded state mention and
// refuses symbolic links that would carry a write out of an agent's
// workspace. Plan decides, file by file, the new bytes of every file and the
// next state; any conflict makes the plan unexecutable, so a conflict means
// zero writes. Execute writes backups first, then the files (temp + fsync +
// rename, in parallel, directories first), then deletions, and the state
// last. Everything runs under the workspace lock (.actant/lock).
//
// Call order for callers (apply, watch, proxy): load the config and sync
// the hub (cmd/actctl does both before it calls Apply), then render and
// reconcile: Apply does these two. docs/design.md places the package among
// the others.
package reconcile
