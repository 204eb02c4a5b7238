package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// inProcessCommands are the actctl commands a script may run: run calls
// them in the test process. The others start or signal processes, serve,
// read the test's stdin or wait for a signal (attach, chat, dashboard,
// detach, hub, logs, mcp, open, prompt, proxy, relay, run, start, stop,
// restart, task, up, zed), as do --kube (kubectl exec) and apply --watch
// (it runs until a signal): their tests stay in Go, through the binary.
// status only reads (records, and asks an up, which no script starts);
// __complete is what the completion scripts call. A command actctl does
// not have runs in process (its usage error).
var inProcessCommands = map[string]bool{
	"apply": true, "completion": true, "delete": true, "describe": true, "diff": true,
	"explain": true, "get": true, "help": true, "import": true, "init": true,
	"resolve": true, "schema": true, "status": true, "validate": true, "version": true,
	completeCmd: true,
}

// globalValueFlags are actctl's global flags that take a value.
var globalValueFlags = []string{"-C", "--C", "-home", "--home", "-o", "--o", "-output", "--output",
	"--kube-context", "--kube-namespace", "--kube-pod", "--kube-container", "--kube-workdir"}

// commandOf is the command args run (after the global flags), "" for
// none, and the arguments after it.
func commandOf(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			return a, args[i+1:]
		}
		if !strings.Contains(a, "=") && slices.Contains(globalValueFlags, a) {
			i++
		}
	}
	return "", nil
}

// isCommand reports whether actctl has the command name followed by rest:
// a command, or a group's sub-command when rest names one ("hub snyc" is
// no command; "hub sync" and "hub --ref x" are taken as one).
func isCommand(name string, rest []string) bool {
	c := findCommand(newApp(io.Discard, io.Discard).Commands, name)
	for c != nil && isGroup(c) && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		c, rest = findCommand(c.Subcommands, rest[0]), rest[1:]
	}
	return c != nil
}

// actctl runs actctl ARGS in process; it must exit 0, or not 0 when
// negated.
func (s *script) actctl(neg bool, args []string) error {
	if c, rest := commandOf(args); c != "" && !inProcessCommands[c] && isCommand(c, rest) {
		return fmt.Errorf("actctl %s cannot run in process: test it in Go", c)
	}
	for _, a := range args {
		if f := strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-"); a != f && (f == "kube" || f == "watch") {
			return fmt.Errorf("actctl --%s cannot run in process: test it in Go", f)
		}
	}
	if s.initial == nil {
		s.initial = s.snapshot()
	}
	var stdout, stderr bytes.Buffer
	code, err := runInProcess(args, &stdout, &stderr)
	s.code, s.stdout, s.stderr, s.ran = code, stdout.String(), stderr.String(), true
	if err != nil {
		s.reportOutput()
		return err
	}
	if (s.code != 0) != neg {
		s.reportOutput()
		return fmt.Errorf("exit status %d", s.code)
	}
	return nil
}

// runInProcess calls run with args; a panic is returned as an error, to
// name the script's line rather than end the test binary.
func runInProcess(args []string, stdout, stderr io.Writer) (code int, err error) {
	defer func() {
		if p := recover(); p != nil {
			code, err = -1, fmt.Errorf("actctl panicked: %v\n%s", p, debug.Stack())
		}
	}()
	return run(append([]string{"actctl"}, args...), stdout, stderr), nil
}

// checkCode: code N checks the last actctl's exit status.
func (s *script) checkCode(_ bool, args []string) error {
	if len(args) != 1 {
		return errors.New("usage: code N")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		return err
	}
	if err := s.lastRun(); err != nil {
		return err
	}
	if s.code != want {
		s.reportOutput()
		return fmt.Errorf("exit status %d, want %d", s.code, want)
	}
	return nil
}

// match: stdout/stderr [-count=N] REGEXP checks that the last actctl's
// stream matches REGEXP (in multi-line mode), N times with -count.
func (s *script) match(neg bool, args []string, name, text string) error {
	if err := s.lastRun(); err != nil {
		return err
	}
	if err := matchText(neg, args, name, text); err != nil {
		s.reportOutput()
		return err
	}
	return nil
}

// matchText checks text against [-count=N] REGEXP (name says what text is).
func matchText(neg bool, args []string, name, text string) error {
	n, args, err := intArg(args, "-count=")
	if err != nil || len(args) != 1 || (neg && n >= 0) {
		return fmt.Errorf("usage: [!] %s [-count=N] REGEXP", name)
	}
	re, err := regexp.Compile("(?m)" + args[0])
	if err != nil {
		return err
	}
	got := len(re.FindAllStringIndex(text, -1))
	switch {
	case neg && got > 0:
		return fmt.Errorf("%s matches %q", name, args[0])
	case !neg && n < 0 && got == 0:
		return fmt.Errorf("%s does not match %q", name, args[0])
	case n >= 0 && got != n:
		return fmt.Errorf("%s matches %q %d times, want %d", name, args[0], got, n)
	}
	return nil
}

// grep: grep [-count=N] REGEXP FILE checks FILE's content as stdout does
// the last actctl's.
func (s *script) grep(neg bool, args []string) error {
	if len(args) < 2 {
		return errors.New("usage: [!] grep [-count=N] REGEXP FILE")
	}
	file := args[len(args)-1]
	b, err := os.ReadFile(s.path(file))
	if err != nil {
		return err
	}
	if err := matchText(neg, args[:len(args)-1], file, string(b)); err != nil {
		return fmt.Errorf("%w\n%s", err, b)
	}
	return nil
}

// cmp: cmp A B checks that A and B have the same content; each is a file
// or the last actctl's stdout or stderr.
func (s *script) cmp(_ bool, args []string) error { return s.compare(args, false) }

// cmpenv: cmpenv A B is cmp with the script's variables ($WORK, $HOME,
// $ACTANT_HOME and those env set) expanded in B.
func (s *script) cmpenv(_ bool, args []string) error { return s.compare(args, true) }

// compare compares args[0] and args[1], expanding variables in args[1]
// when env is set.
func (s *script) compare(args []string, env bool) error {
	if len(args) != 2 {
		return errors.New("usage: cmp A B")
	}
	a, err := s.readArg(args[0])
	if err != nil {
		return err
	}
	b, err := s.readArg(args[1])
	if err != nil {
		return err
	}
	if env {
		b = s.expandKnown(b)
	}
	if a != b {
		return fmt.Errorf("%s and %s differ\n[%s]\n%s[%s]\n%s", args[0], args[1], args[0], a, args[1], b)
	}
	return nil
}

// exists: exists PATH... checks that each path exists (none, negated).
func (s *script) exists(neg bool, args []string) error {
	if len(args) == 0 {
		return errors.New("usage: [!] exists PATH...")
	}
	for _, name := range args {
		_, err := os.Lstat(s.path(name))
		switch {
		case err == nil && neg:
			return fmt.Errorf("%s exists", name)
		case err != nil && !neg:
			return err
		}
	}
	return nil
}

// unchanged checks that no file or directory under $WORK was created or
// removed, and no file changed (content, mode, time), since the first
// actctl ran: a bad input writes nothing.
func (s *script) unchanged(_ bool, args []string) error {
	if len(args) != 0 {
		return errors.New("usage: unchanged")
	}
	if err := s.lastRun(); err != nil {
		return err
	}
	if d := diffSnapshots(s.initial, s.snapshot()); len(d) > 0 {
		slices.Sort(d)
		return fmt.Errorf("$WORK changed: %s", strings.Join(d, ", "))
	}
	return nil
}

// cp: cp SRC DST copies a file, or the last actctl's stdout or stderr,
// to DST (a file, created or replaced).
func (s *script) cp(_ bool, args []string) error {
	if len(args) != 2 {
		return errors.New("usage: cp SRC DST")
	}
	data, err := s.readArg(args[0])
	if err != nil {
		return err
	}
	return os.WriteFile(s.path(args[1]), []byte(data), 0o644)
}

// symlink: symlink NEW -> OLD makes NEW a symbolic link to OLD, as
// written (relative to NEW's directory when not absolute).
func (s *script) symlink(_ bool, args []string) error {
	if len(args) != 3 || args[1] != "->" {
		return errors.New("usage: symlink NEW -> OLD")
	}
	return os.Symlink(args[2], s.path(args[0]))
}

// env: env K=V... sets environment variables (and $K) for the rest of the
// script.
func (s *script) env(_ bool, args []string) error {
	if len(args) == 0 {
		return errors.New("usage: env K=V...")
	}
	for _, kv := range args {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("usage: env K=V, got %q", kv)
		}
		s.setenv(k, v)
	}
	return nil
}

// cd: cd DIR changes the current directory, of the script and of the
// process (actctl reads it).
func (s *script) cd(_ bool, args []string) error {
	if len(args) != 1 {
		return errors.New("usage: cd DIR")
	}
	dir := s.path(args[0])
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("cd %s: not a directory (%v)", args[0], err)
	}
	s.t.Chdir(dir)
	s.dir = dir
	return nil
}

// TestScriptLanguage: each command of the script language passes and
// fails when it should.
func TestScriptLanguage(t *testing.T) {
	files := []archiveFile{{"a.txt", []byte("it's a b\n")}, {"b.txt", []byte("other\n")}, {"sub/c", nil},
		{"d.txt", []byte("it's a $B\n")}, {"e.txt", []byte("$NOPE\n")}}
	for _, tc := range []struct{ script, err string }{
		{"actctl version\nstdout '^actctl '\n! stderr .\nstdout -count=1 actctl", ""},
		{"actctl validate", "exit status 1"},
		{"! actctl version", "exit status 0"},
		{"! actctl validate\ncode 2", "exit status 1, want 2"},
		{"stdout x", "no actctl has run"},
		{"actctl version\nstdout nomatch", "stdout does not match"},
		{"actctl version\n! stdout actctl", "stdout matches"},
		{"actctl version\nstdout -count=2 actctl", "1 times, want 2"},
		{"exists a.txt sub/c\n! exists nothere", ""},
		{"exists nothere", "no such file"},
		{"! exists a.txt", "a.txt exists"},
		{"cmp a.txt a.txt\ncmp a.txt b.txt", "a.txt and b.txt differ"},
		{"grep 'it''s a b' a.txt\n! grep other a.txt", ""},
		{"grep other a.txt", "does not match"},
		{"env WHAT=other\ngrep $WHAT b.txt\ngrep $WORK/x $WORK/a.txt", "does not match"},
		{"! actctl validate\nunchanged\nactctl init\nunchanged", "$WORK changed: created actant.cue"},
		{"cd sub\nexists c\n! exists a.txt", ""},
		{"cd nothere", "cd nothere: not a directory"},
		{"symlink sub/l -> ../a.txt\ncmp sub/l a.txt\nsymlink x a.txt", "usage: symlink NEW -> OLD"},
		{"actctl up", "actctl up cannot run in process"},
		{"actctl -C x hub sync", "actctl hub cannot run in process"},
		{"! actctl -C x frobnicate\ncode 2\nstderr 'unknown command'\n! actctl hub snyc\ncode 2", ""},
		{"actctl --kube status", "cannot run in process"},
		{"actctl apply --watch=true", "actctl --watch cannot run in process"},
		{"frob", `unknown command "frob"`},
		{"! env X=1", "env cannot be negated"},
		{"grep 'a", "unterminated quote"},
		{"env B=b\ncmpenv a.txt d.txt\ncmpenv e.txt e.txt", ""},
		{"cmp a.txt d.txt", "differ"},
		{"cp a.txt sub/c\ncmp a.txt sub/c\nactctl version\ncp stdout v\ngrep '^actctl ' v", ""},
	} {
		err := runArchive(t, "test", archive{comment: tc.script, files: files})
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%q: error %v, want %q", tc.script, err, tc.err)
		}
	}
}
