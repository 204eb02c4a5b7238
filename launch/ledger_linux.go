package launch

import (
	"io/fs"
	"os"
	"syscall"
)

// noFollow makes an open fail on a symbolic link.
const noFollow = syscall.O_NOFOLLOW

// startTime is pid's start time since boot (/proc/PID/stat, field 22).
func startTime(pid int) (uint64, error) {
	st, err := procFS{}.stat(pid)
	if err != nil {
		return 0, err
	}
	return st.start, nil
}

// recordedLeader reports whether pid, read from a ledger line with start
// and mark, may have its group signalled: it is not init (pid > 1) nor
// this process, it started at start (not a reused pid), it still carries
// mark in its environment (a process actctl started: the mark is random
// per backend), and it leads its own group (Start makes every backend a
// group leader). Checked right before the signal.
func recordedLeader(pid int, start uint64, mark string) bool {
	return provenLeader(procFS{}, pid, start, mark)
}

// provenLeader is recordedLeader on the table t.
func provenLeader(t procTable, pid int, start uint64, mark string) bool {
	if pid <= 1 || pid == os.Getpid() || start == 0 {
		return false
	}
	st, err := t.stat(pid)
	if err != nil || st.start != start || st.pgrp != uint64(pid) || st.dead() {
		return false
	}
	env, err := t.environ(pid)
	return err == nil && hasEnvEntry(env, []byte(MarkVar+"="+mark+"\x00"))
}

// ownedByMe reports whether fi, a ledger, belongs to this user.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
