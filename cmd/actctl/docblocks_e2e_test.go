package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// The rules TestDocBlocks applies to the fenced code blocks of README.md
// and docs/*.md (issue #34 item 22: every block that is a command or a
// config is executed by a test):
//
//   - A ```cue block is a config: with `package actant` put first when it
//     has no package clause, it is the actant.cue of a copy of
//     examples/quickstart (so skills/go-testing is there) and `actctl
//     validate` (the built binary) must accept it.
//   - A cue block that is intentionally partial (it uses names an earlier
//     block or the rest of a config declares, or shows some fields of a
//     larger config) is preceded, on the line before its fence, by
//     `<!-- fragment -->`: it is validated the same way, but the errors
//     that point outside it are allowed (fragmentErrors: an unknown
//     agent, template, prompt, ... , a missing required field, an unset
//     environment variable); any other error (syntax, an unknown field, a
//     wrong value) fails.
//   - In a ```sh block or a block with no language, every line that starts
//     with `actctl ` (after environment assignments, or after a `|` or a
//     wrapper's `--`) is a command: actctl's own command line (newApp, normalizeArgs) parses
//     it with every action replaced by a recorder, so a command or flag
//     that does not exist fails, and nothing runs. A line that is a
//     synopsis (it holds `[`, `|` or `...`) is checked only for its
//     command path and the flags it names.
//
// docBlockKnownBad lists the blocks (file:line of the fence) known to fail
// these rules; it may only shrink: a listed block that passes fails the
// test too.
var docBlockKnownBad = map[string]bool{}

// docBlock is one fenced code block of a doc.
type docBlock struct {
	where    string // file:line of the opening fence
	lang     string
	text     string
	fragment bool // preceded by <!-- fragment -->
}

// docBlocks returns the fenced code blocks of the markdown file path.
func docBlocks(t *testing.T, path, name string) []docBlock {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []docBlock
	var cur *docBlock
	prev := ""
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &docBlock{where: fmt.Sprintf("%s:%d", name, i+1), lang: strings.TrimPrefix(trimmed, "```"), fragment: prev == "<!-- fragment -->"}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
		prev = trimmed
	}
	if cur != nil {
		t.Errorf("%s: block not closed", cur.where)
	}
	return out
}

// TestDocBlocks: every config block of the README and docs validates and
// every actctl command line in them parses (see the rules above).
func TestDocBlocks(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append([]string{"../../README.md"}, files...)
	var configs, commands, fragments int
	for _, f := range files {
		name := strings.TrimPrefix(f, "../../")
		for _, b := range docBlocks(t, f, name) {
			var err error
			switch {
			case b.lang == "cue":
				configs++
				if b.fragment {
					fragments++
				}
				err = validateBlock(t, b.text, b.fragment)
			case b.lang == "sh" || b.lang == "":
				var n int
				n, err = parseBlockCommands(b.text)
				commands += n
			default:
				continue
			}
			switch {
			case err != nil && !docBlockKnownBad[b.where]:
				t.Errorf("%s: %v\n%s", b.where, err, b.text)
			case err == nil && docBlockKnownBad[b.where]:
				t.Errorf("%s passes now: remove it from docBlockKnownBad", b.where)
			}
		}
	}
	t.Logf("%d config blocks (%d fragments), %d command lines", configs, fragments, commands)
	if configs < 10 || commands < 20 {
		t.Errorf("checked only %d configs and %d commands (%d fragments)", configs, commands, fragments)
	}
}

// fragmentErrors are the errors of a fragment that point outside it.
var fragmentErrors = regexp.MustCompile(`: unknown (agent|template|prompt|skill|command|MCP server|backend|ignore set) "|: missing required field "|: environment variable [A-Z_]+ is empty or not set`)

// validateBlock runs `actctl validate` on the config block text, in a copy
// of examples/quickstart; for a fragment, it allows fragmentErrors.
func validateBlock(t *testing.T, text string, fragment bool) error {
	t.Helper()
	if !regexp.MustCompile(`(?m)^package `).MatchString(text) {
		text = "package actant\n\n" + text
	}
	dir := copyTree(t, "../../examples/quickstart")
	writeFiles(t, dir, map[string]string{"actant.cue": text})
	r := actctl(t, dir, filepath.Join(t.TempDir(), "home"), "validate")
	if r.Code == 0 {
		return nil
	}
	for line := range strings.Lines(r.Stderr) {
		if !fragment || !fragmentErrors.MatchString(line) {
			return fmt.Errorf("actctl validate: exit %d\n%s", r.Code, r.Stderr)
		}
	}
	return nil
}

// parseBlockCommands checks every actctl command line of a shell block and
// returns how many it checked and their errors.
func parseBlockCommands(text string) (int, error) {
	n := 0
	var errs []error
	text = strings.ReplaceAll(text, "\\\n", " ")
	for line := range strings.Lines(text) {
		args, ok := commandLine(line)
		if !ok {
			continue
		}
		n++
		var err error
		if synopsis(args) {
			err = checkSynopsis(args)
		} else {
			err = dryParse(args)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%q: %w", strings.Join(args, " "), err))
		}
	}
	return n, errors.Join(errs...)
}

// commandLine splits the actctl command of a shell line into words (the
// words after "actctl"): environment assignments before it, a pipe or a
// wrapper's "--" (kubectl exec ... -- actctl) into it, a pipe out of it
// and a comment after it are dropped.
func commandLine(line string) ([]string, bool) {
	words := shellWords(line)
	for len(words) > 0 && regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`).MatchString(words[0]) {
		words = words[1:]
	}
	start := -1
	for i, w := range words {
		if w == "actctl" && (i == 0 || words[i-1] == "|" || words[i-1] == "--") {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, false
	}
	words = words[start+1:]
	if i := slices.Index(words, "|"); i >= 0 && !synopsis(words[:i]) && !strings.Contains(line, "[") {
		words = words[:i]
	}
	return words, true
}

// shellWords splits line as a shell would, for the simple lines docs show:
// quotes group, an unquoted # starts a comment.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	in, started := byte(0), false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case in != 0 && c == in:
			in = 0
		case in != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			in, started = c, true
		case c == '#' && !started:
			return words
		case c == ' ' || c == '\t' || c == '\n':
			if started {
				words = append(words, cur.String())
				cur.Reset()
				started = false
			}
		default:
			cur.WriteByte(c)
			started = true
		}
	}
	if started {
		words = append(words, cur.String())
	}
	return words
}

// synopsis tells a usage line (optional parts, alternatives) from a
// command.
func synopsis(args []string) bool {
	for _, a := range args {
		if strings.ContainsAny(a, "[]|") || strings.Contains(a, "...") {
			return true
		}
	}
	return false
}

// checkSynopsis checks that the synopsis names an existing command path
// and only flags that the command or the app defines.
func checkSynopsis(args []string) error {
	app := newApp(io.Discard, io.Discard)
	var cmd *cli.Command
	subs := app.Commands
	for _, a := range args {
		a = strings.Trim(a, "[]|")
		if alts := strings.Split(a, "|"); len(alts) > 1 && cmd == nil {
			a = alts[0] // start|stop|restart: commands that are alike
			for _, alt := range alts {
				if findCommand(subs, alt) == nil {
					return fmt.Errorf("no command %q", alt)
				}
			}
		}
		if strings.HasPrefix(a, "-") {
			name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if name == "" {
				continue
			}
			if lookupFlag(app.Flags, name) == nil && (cmd == nil || lookupFlag(cmd.Flags, name) == nil) {
				return fmt.Errorf("no flag --%s", name)
			}
			continue
		}
		if c := findCommand(subs, a); c != nil && (cmd == nil || len(subs) > 0) {
			cmd, subs = c, c.Subcommands
		}
	}
	if cmd == nil {
		return errors.New("no actctl command")
	}
	return nil
}

// dryParse parses actctl args with actctl's own command line, every
// action replaced by a recorder: nothing runs.
func dryParse(args []string) error {
	var got parsed
	var notFound error
	app := newApp(io.Discard, io.Discard)
	app.Commands = captureCommands(app.Commands, &got)
	app.CommandNotFound = func(_ *cli.Context, name string) { notFound = fmt.Errorf("no command %q", name) }
	err := app.Run(normalizeArgs(app, versionFlag(app, append([]string{"actctl"}, args...))))
	switch {
	case err != nil:
		return err
	case notFound != nil:
		return notFound
	case got.g == nil:
		return errors.New("names no command that runs")
	}
	return nil
}
