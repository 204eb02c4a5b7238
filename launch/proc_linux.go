package launch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// setParentDeathSignal asks the kernel to SIGKILL the backend if its supervisor (proxy, run)
// dies without cleaning up (kill -9, OOM killer, or an ACP client such as
// the SDK's example client that ends its agent with SIGKILL). Only the
// group leader gets this signal; its children are covered by KillGroup on
// every path the supervisor controls.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// killMarkedTimeout bounds KillMarked's wait for the processes it signalled
// to die (a process in uninterruptible sleep only dies when it wakes).
const killMarkedTimeout = 10 * time.Second

// KillMarked sends SIGKILL to every process whose environment carries the
// session mark (see MarkVar) and waits until each is dead (gone or a
// zombie). It returns how many it signalled, and an error naming those
// still alive when the wait timed out. See sweep for how processes in the
// middle of an exec, whose environment cannot be read yet, are handled.
// Processes of other users, whose environment cannot be read, are
// skipped: the backend runs as its supervisor's user.
func KillMarked(mark string) (int, error) {
	if mark == "" {
		return 0, nil
	}
	s := newSweep(procFS{}, mark, os.Getpid())
	s.pause = backoff()
	err := s.run(time.Now().Add(killMarkedTimeout))
	return len(s.signalled), err
}

// procFS is the process table as Linux shows it in /proc.
type procFS struct{}

func (procFS) pids() ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

func (procFS) environ(pid int) ([]byte, error) {
	return os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
}

func (procFS) stat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	return parseStat(b)
}

func (procFS) kill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// parseStat reads the fields of /proc/PID/stat that a sweep needs (see
// proc(5); the command name, in parentheses, may hold spaces).
func parseStat(b []byte) (procStat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errors.New("stat: no command name")
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3 (state)
	if len(f) < 49 {
		return procStat{}, fmt.Errorf("stat: %d fields, want at least 51", len(f)+2)
	}
	num := func(field int) uint64 {
		n, _ := strconv.ParseUint(string(f[field-3]), 10, 64)
		return n
	}
	return procStat{state: f[0][0], pgrp: num(5), flags: num(9), start: num(22), envEnd: num(51)}, nil
}

// backoff returns a pause for polling /proc: short at first, since a
// killed process usually dies within a scheduler tick, longer later.
func backoff() func() {
	d := 100 * time.Microsecond
	return func() {
		time.Sleep(d)
		d = min(2*d, 10*time.Millisecond)
	}
}

// hasEnvEntry reports whether the NUL-separated environment block env
// holds the entry needle (which ends in NUL) as a whole entry.
func hasEnvEntry(env, needle []byte) bool {
	if len(env) > 0 && env[len(env)-1] != 0 {
		env = append(env, 0)
	}
	return bytes.HasPrefix(env, needle) || bytes.Contains(env, append([]byte{0}, needle...))
}
