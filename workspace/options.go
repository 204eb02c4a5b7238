package workspace

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/schema"
)

// Options are what every workflow takes from the command line: which
// workspace, where its messages go, and which config warnings concern
// the run.
type Options struct {
	Dir  string // the workspace root (-C); "" finds it from the working directory
	Home string // actctl's home (--home); "" is $ACTANT_HOME's, else the default
	// Stderr receives warnings ("actctl: warning: ..."), the config's
	// warnings and the failures of hooks.
	Stderr io.Writer
	// Progress, when set, receives the hub's fetch progress (a terminal's).
	Progress io.Writer
	// Debug, when set, receives which path a workflow took and why
	// (ACTCTL_DEBUG=1).
	Debug io.Writer
	// OnlyAgent, when set, limits the config warnings Load prints to
	// those about this agent (its template's included) or about no agent
	// in particular (proxy serves one agent).
	OnlyAgent string
	// Acts, when set, names the agents of the loaded config this run acts
	// on, as OnlyAgent does for one (up: those it runs).
	Acts func(*schema.Config) []string
	// Checking says the command checks the config or writes from it
	// (validate, apply, diff): it prints every config warning; the others
	// leave out those about a deploy target or a schedule (README, "Global
	// flags and conventions").
	Checking bool
	// Prompter receives prompt hooks: `actctl up`'s agents (nil without
	// up: such hooks fail).
	Prompter hooks.Prompter
	// Loops drops prompts caused through too many hooks, one warning a
	// chain (`actctl up`'s; nil elsewhere: each bus has its own).
	Loops *hooks.Guard
}

// warn prints a warning line to Stderr.
func (o Options) warn(format string, args ...any) { warnf(o.Stderr, format, args...) }

// warnf prints a warning line to w.
func warnf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "actctl: warning: "+format+"\n", args...)
}

// debug prints a line on Debug, when set: which path a workflow took and
// why.
func (o Options) debug(area, format string, args ...any) {
	if o.Debug != nil {
		fmt.Fprintf(o.Debug, "actctl: debug: "+area+": "+format+"\n", args...)
	}
}

// LoadOptions are the workspace discovery options of o.
func (o Options) LoadOptions() (schema.LoadOptions, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return schema.LoadOptions{}, err
	}
	return schema.LoadOptions{Dir: o.Dir, Cwd: cwd, Home: o.Home}, nil
}

// home is actctl's home for o, "" when it cannot be found.
func (o Options) home() string {
	lo, err := o.LoadOptions()
	if err != nil {
		return ""
	}
	h, err := lo.HomeDir()
	if err != nil {
		return ""
	}
	return h
}

// rootAndHome are the workspace root and the actctl home o finds.
func (o Options) rootAndHome() (root, home string, err error) {
	lo, err := o.LoadOptions()
	if err != nil {
		return "", "", err
	}
	root, rerr := schema.Find(lo)
	home, herr := lo.HomeDir()
	return root, home, errors.Join(rerr, herr)
}
