package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestScripts runs every testdata/script/*.txtar as a subtest: the
// scenario tests of actctl that only compare output and files, each in a
// temporary directory holding the archive's files, with actctl run in
// process by run (no binary, no fork). The format is in
// docs/testing-runtime.md, "Scenario scripts".
func TestScripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "script", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in testdata/script: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) { runScript(t, file) })
	}
}

// script is the state of one running script.
type script struct {
	t              *testing.T
	file           string
	line           int
	work, dir      string            // $WORK, the current directory
	vars           map[string]string // what $NAME expands to
	initial        map[string]string // $WORK's files when actctl first ran
	stdout, stderr string            // of the last actctl
	code           int               // exit status of the last actctl
	ran            bool              // whether actctl has run
}

// runScript runs the script in file.
func runScript(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := runArchive(t, file, parseArchive(data)); err != nil {
		t.Fatal(err)
	}
}

// runArchive runs the script of a (its comment) in a new temporary $WORK
// holding a's files. It changes the process's directory and environment
// (t.Chdir, t.Setenv), so scripts never run in parallel.
func runArchive(t *testing.T, file string, a archive) error {
	root := t.TempDir()
	s := &script{t: t, file: file, work: filepath.Join(root, "work"), vars: map[string]string{}}
	for _, d := range []string{s.work, filepath.Join(root, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := a.extract(s.work); err != nil {
		return err
	}
	s.dir = s.work
	t.Chdir(s.work)
	s.vars["WORK"] = s.work
	// ACTANT_HOME is not created: a script can check that a command
	// did not create it.
	s.setenv("HOME", filepath.Join(root, "home"))
	s.setenv("ACTANT_HOME", filepath.Join(root, "actant-home"))
	s.setenv("NO_COLOR", "1")
	for i, line := range strings.Split(a.comment, "\n") {
		s.line = i + 1
		if err := s.exec(line); err != nil {
			return fmt.Errorf("%s:%d: %s: %w", file, s.line, strings.TrimSpace(line), err)
		}
	}
	return nil
}

// setenv sets the environment variable k for the rest of the script, and
// $k.
func (s *script) setenv(k, v string) {
	s.t.Setenv(k, v)
	s.vars[k] = v
}

// scriptCmd is one command of the script language.
type scriptCmd struct {
	neg bool // whether it may be negated with "!"
	// re is the place of its regular expression counted from the end of
	// its arguments (1: the last), 0 for none.
	re  int
	run func(s *script, neg bool, args []string) error
}

// scriptCmds is the script language (docs/testing-runtime.md, "Scenario
// scripts").
var scriptCmds = map[string]scriptCmd{
	"actctl":    {neg: true, run: (*script).actctl},
	"code":      {run: (*script).checkCode},
	"stdout":    {neg: true, re: 1, run: func(s *script, neg bool, args []string) error { return s.match(neg, args, "stdout", s.stdout) }},
	"stderr":    {neg: true, re: 1, run: func(s *script, neg bool, args []string) error { return s.match(neg, args, "stderr", s.stderr) }},
	"grep":      {neg: true, re: 2, run: (*script).grep},
	"cmp":       {run: (*script).cmp},
	"cmpenv":    {run: (*script).cmpenv},
	"exists":    {neg: true, run: (*script).exists},
	"unchanged": {run: (*script).unchanged},
	"env":       {run: (*script).env},
	"cd":        {run: (*script).cd},
	"cp":        {run: (*script).cp},
	"symlink":   {run: (*script).symlink},
}

// exec runs one line of the script.
func (s *script) exec(line string) error {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return nil
	}
	words, err := splitWords(line)
	if err != nil {
		return err
	}
	neg := words[0] == "!"
	if neg {
		words = words[1:]
	}
	if len(words) == 0 {
		return errors.New("no command after !")
	}
	c, ok := scriptCmds[words[0]]
	if !ok {
		return fmt.Errorf("unknown command %q", words[0])
	}
	if neg && !c.neg {
		return fmt.Errorf("%s cannot be negated", words[0])
	}
	args := words[1:]
	for i := range args {
		args[i] = s.expand(args[i], c.re > 0 && i == len(args)-c.re)
	}
	return c.run(s, neg, args)
}

// splitWords splits a line at spaces; a word in single quotes keeps its
// spaces, and two single quotes inside it stand for one (as cmd/go's
// scripts).
func splitWords(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'' && i+1 < len(line) && line[i+1] == '\'':
			w.WriteByte('\'')
			i++
		case c == '\'':
			quoted, inWord = !quoted, true
		case !quoted && (c == ' ' || c == '\t'):
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		return nil, errors.New("unterminated quote")
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// varRE is a variable in a script word: $NAME or ${NAME}.
var varRE = regexp.MustCompile(`\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))`)

// expand replaces the variables in w by their values, quoted for a
// regular expression when quote is set; a "$" not followed by a name (a
// regular expression's end of line) stays.
func (s *script) expand(w string, quote bool) string {
	return varRE.ReplaceAllStringFunc(w, func(m string) string {
		name := strings.Trim(m, "${}")
		v, ok := s.vars[name]
		if !ok {
			v = os.Getenv(name)
		}
		if quote {
			return regexp.QuoteMeta(v)
		}
		return v
	})
}

// expandKnown replaces the script's own variables in text ($WORK, $HOME,
// $ACTANT_HOME, those env set), leaving any other "$NAME" as it is.
func (s *script) expandKnown(text string) string {
	return varRE.ReplaceAllStringFunc(text, func(m string) string {
		if v, ok := s.vars[strings.Trim(m, "${}")]; ok {
			return v
		}
		return m
	})
}

// path is name relative to the script's current directory.
func (s *script) path(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(s.dir, name)
}

// snapshot is every file and directory under $WORK (slash path -> its
// mode; a file's modification time and content; a symlink's target). A
// directory's time is left out: a refused apply may create and remove
// .actant/ for its lock, which leaves nothing.
func (s *script) snapshot() map[string]string {
	files := map[string]string{}
	filepath.WalkDir(s.work, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(s.work, p)
		stamp := fi.Mode().String()
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			t, _ := os.Readlink(p)
			stamp += " -> " + t
		case d.Type().IsRegular():
			b, _ := os.ReadFile(p)
			stamp += fmt.Sprintf(" %v\n%s", fi.ModTime().UnixNano(), b)
		}
		files[filepath.ToSlash(rel)] = stamp
		return nil
	})
	return files
}

// diffSnapshots lists what differs from before to after.
func diffSnapshots(before, after map[string]string) []string {
	var out []string
	for name, b := range before {
		if a, ok := after[name]; !ok {
			out = append(out, "removed "+name)
		} else if a != b {
			out = append(out, "changed "+name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			out = append(out, "created "+name)
		}
	}
	return out
}

// reportOutput logs the last actctl's output, to read a failure by.
func (s *script) reportOutput() {
	s.t.Logf("%s:%d: last actctl exited %d\n[stdout]\n%s[stderr]\n%s", s.file, s.line, s.code, s.stdout, s.stderr)
}

// lastRun fails when no actctl has run yet.
func (s *script) lastRun() error {
	if !s.ran {
		return errors.New("no actctl has run")
	}
	return nil
}

// readArg is the content a cmp argument names: the last actctl's stdout
// or stderr, else a file.
func (s *script) readArg(name string) (string, error) {
	switch name {
	case "stdout":
		return s.stdout, s.lastRun()
	case "stderr":
		return s.stderr, s.lastRun()
	}
	b, err := os.ReadFile(s.path(name))
	return string(b), err
}

// intArg parses a -count=N option off args.
func intArg(args []string, opt string) (n int, rest []string, err error) {
	n = -1
	if len(args) > 0 && strings.HasPrefix(args[0], opt) {
		n, err = strconv.Atoi(strings.TrimPrefix(args[0], opt))
		return n, args[1:], err
	}
	return n, args, nil
}
