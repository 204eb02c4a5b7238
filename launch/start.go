package launch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Process is a started backend with pipes its supervisor owns (so that Wait
// never waits on output copying and a grandchild holding stdout cannot
// block it).
type Process struct {
	Cmd    *exec.Cmd
	Stdin  *os.File // write end of the backend's stdin
	Stdout *os.File // read end of the backend's stdout
	Stderr *os.File // read end of the backend's stderr
	// Mark is the value of MarkVar in the backend's environment.
	Mark string
}

// DirError: the backend's working directory is unusable (an install hint
// would mislead).
type DirError struct{ Err error }

func (e *DirError) Error() string { return "process directory: " + e.Err.Error() }
func (e *DirError) Unwrap() error { return e.Err }

// Start spawns command in dir (empty: the current directory) with env (nil:
// os.Environ()) as the leader of a new process group, with PWD set to dir
// and a fresh session mark in its environment.
func Start(command string, args, env []string, dir string) (p *Process, err error) {
	if dir != "" {
		// exec reports a missing Dir as if the command were missing;
		// name the directory instead.
		if fi, serr := os.Stat(dir); serr != nil {
			return nil, &DirError{serr}
		} else if !fi.IsDir() {
			return nil, &DirError{fmt.Errorf("process directory %s is not a directory", dir)}
		}
	}
	var files []*os.File
	defer func() {
		if err != nil {
			for _, f := range files {
				f.Close()
			}
		}
	}()
	pipe := func() (*os.File, *os.File) {
		rd, wr, perr := os.Pipe()
		if perr != nil && err == nil {
			err = perr
		}
		files = append(files, rd, wr)
		return rd, wr
	}
	inR, inW := pipe()
	outR, outW := pipe()
	errR, errW := pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(command, args...)
	cmd.Dir = dir
	cmd.Env = env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	if cmd.Dir != "" && filepath.IsAbs(cmd.Dir) {
		// A stale inherited $PWD would make shells and os.Getwd-style
		// helpers in the backend report the supervisor's directory.
		cmd.Env = append(WithoutVar(cmd.Env, "PWD"), "PWD="+cmd.Dir)
	}
	mark := NewMark()
	cmd.Env = append(WithoutVar(cmd.Env, MarkVar), MarkVar+"="+mark)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	SetProcessGroup(cmd)
	err = cmd.Start()
	// The child has its copies; the supervisor keeps only its own ends, so
	// EOF on stdout means every writer is gone.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		return nil, err
	}
	if l := tracked.Load(); l != nil {
		l.Add(cmd.Process.Pid, mark)
	}
	if cmd.Dir == "" {
		cmd.Dir, _ = os.Getwd()
	}
	return &Process{Cmd: cmd, Stdin: inW, Stdout: outR, Stderr: errR, Mark: mark}, nil
}

// WithoutVar returns env without entries for name (a copy).
func WithoutVar(env []string, name string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
