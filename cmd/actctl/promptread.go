package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// readPrompt takes the prompt of run, task or prompt from -p, from
// --prompt-file (a command that has it; "-" is stdin) or from stdin,
// which must not be a terminal; messages name the command (docs/run.md).
func readPrompt(c *cli.Context) (string, error) {
	verb := c.Command.Name
	p, file := c.String("prompt"), c.String("prompt-file")
	switch {
	case c.IsSet("prompt") && file != "":
		return "", usageError("%s: -p and --prompt-file exclude each other", verb)
	case c.IsSet("prompt"):
	case file != "" && file != "-":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("%s: prompt file: %w", verb, err)
		}
		p = string(b)
	default:
		if file == "" && isTerminal(os.Stdin) {
			return "", usageError("%s: no prompt: give %s", verb, promptSources(c))
		}
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return "", fmt.Errorf("%s: read the prompt from stdin: %w", verb, err)
		}
		p = string(b)
	}
	if strings.TrimSpace(p) == "" {
		return "", usageError("%s: the prompt is empty", verb)
	}
	return p, nil
}

// promptSources names where c's command takes a prompt from.
func promptSources(c *cli.Context) string {
	if slices.ContainsFunc(c.Command.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), "prompt-file") }) {
		return "-p TEXT, --prompt-file F, or pipe it on stdin"
	}
	return "-p TEXT, or pipe it on stdin"
}
