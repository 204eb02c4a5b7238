package main

import (
	"io"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestReadPromptEveryCommand: run, task and prompt read their prompt with
// one function: the same checks, messages naming the command, and the
// sources each command has (prompt has no --prompt-file).
func TestReadPromptEveryCommand(t *testing.T) {
	for _, tc := range []struct {
		cmd, sources string
	}{
		{"run", "-p TEXT, --prompt-file F, or pipe it on stdin"},
		{"task", "-p TEXT, --prompt-file F, or pipe it on stdin"},
		{"prompt", "-p TEXT, or pipe it on stdin"},
	} {
		var sources, text string
		err := withCommand(t, tc.cmd, func(c *cli.Context) error {
			sources = promptSources(c)
			_, err := readPrompt(c)
			return err
		}, "-p", " ")
		if sources != tc.sources {
			t.Errorf("%s: sources %q, want %q", tc.cmd, sources, tc.sources)
		}
		if want := tc.cmd + ": the prompt is empty"; err == nil || err.Error() != want || codeOf(err) != exitUsage {
			t.Errorf("%s -p ' ': %v (exit %d), want %q (exit %d)", tc.cmd, err, codeOf(err), want, exitUsage)
		}
		err = withCommand(t, tc.cmd, func(c *cli.Context) (err error) {
			text, err = readPrompt(c)
			return err
		}, "-p", "hi")
		if text != "hi" || err != nil {
			t.Errorf("%s -p hi: %q, %v", tc.cmd, text, err)
		}
	}
}

// withCommand runs action as the registered command name's with the
// flags args, and returns its error.
func withCommand(t *testing.T, name string, action cli.ActionFunc, args ...string) error {
	t.Helper()
	for _, cmd := range commands {
		if cmd.Name == name {
			cp := *cmd
			cp.Action, cp.Before, cp.After = action, nil, nil
			app := &cli.App{Name: "actctl", Commands: []*cli.Command{&cp}, Writer: io.Discard, ErrWriter: io.Discard}
			return app.Run(append([]string{"actctl", name}, append(args, "AGENT")...))
		}
	}
	t.Fatalf("no command %s", name)
	return nil
}
