//go:build unix

package launch

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/actctl/actctl/model"
)

// TestStart: the backend runs in the given directory with PWD set to it
// and a fresh session mark; its output arrives on the pipes.
func TestStart(t *testing.T) {
	dir := t.TempDir()
	p, err := Start("sh", []string{"-c", `pwd; echo "$PWD"; echo "$` + MarkVar + `"; echo err >&2`}, append(os.Environ(), "PWD=/stale", MarkVar+"=stale"), dir)
	if err != nil {
		t.Fatal(err)
	}
	p.Stdin.Close()
	out, _ := io.ReadAll(p.Stdout)
	errOut, _ := io.ReadAll(p.Stderr)
	if err := p.Cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || (lines[0] != dir && lines[0] != real) || lines[1] != dir || lines[2] != p.Mark || p.Mark == "stale" || p.Mark == "" {
		t.Errorf("output %q, mark %q", out, p.Mark)
	}
	if string(errOut) != "err\n" {
		t.Errorf("stderr %q", errOut)
	}
	_ = KillGroup(p.Cmd.Process.Pid) // the group is gone: not an error
	if err := KillGroup(p.Cmd.Process.Pid); err != nil {
		t.Errorf("KillGroup of an empty group: %v", err)
	}
}

// TestStartErrors: a missing directory is named as such (a DirError, so no
// install hint is given); a missing command is an exec error.
func TestStartErrors(t *testing.T) {
	_, err := Start("sh", nil, nil, filepath.Join(t.TempDir(), "nope"))
	var de *DirError
	if !errors.As(err, &de) {
		t.Errorf("missing dir: %v", err)
	}
	_, err = Start("actctl-no-such-command", nil, nil, "")
	if err == nil || errors.As(err, &de) {
		t.Errorf("missing command: %v", err)
	}
}

func TestWithoutVar(t *testing.T) {
	got := WithoutVar([]string{"A=1", "AB=2", "A=3", "B=A=4"}, "A")
	if want := []string{"AB=2", "B=A=4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestResolveNamesTheAgent: the backend's environment names the agent it
// serves, over a variable of that name in the backend's own env.
func TestResolveNamesTheAgent(t *testing.T) {
	r := &model.Resolved{Name: "lead", BackendName: "b", Dir: "/ws",
		Backend: model.Backend{Modes: []string{model.ModeACP}, ACP: &model.Command{Command: "agent", Env: map[string]string{"X": "1", AgentVar: "spoof"}}}}
	l, err := Resolve(r, model.ModeACP)
	if err != nil {
		t.Fatal(err)
	}
	if l.Env[AgentVar] != "lead" || l.Env["X"] != "1" {
		t.Errorf("env = %v", l.Env)
	}
}

// TestResolveExtendsTheChain: the backend's environment carries the
// delegation chain actctl runs in, with the agent appended; outside any
// chain it is the agent alone, whatever the backend's own env says.
func TestResolveExtendsTheChain(t *testing.T) {
	r := &model.Resolved{Name: "lead", BackendName: "b", Dir: "/ws",
		Backend: model.Backend{Modes: []string{model.ModeACP}, ACP: &model.Command{Command: "agent", Env: map[string]string{ChainVar: "spoof"}}}}
	for parent, want := range map[string]string{"": "lead", "boss": "boss,lead", "a,,b": "a,b,lead"} {
		t.Setenv(ChainVar, parent)
		l, err := Resolve(r, model.ModeACP)
		if err != nil {
			t.Fatal(err)
		}
		if l.Env[ChainVar] != want {
			t.Errorf("chain under %q = %q, want %q", parent, l.Env[ChainVar], want)
		}
	}
	if got := Chain(" , a,b ,"); strings.Join(got, "|") != "a|b" {
		t.Errorf("Chain = %q", got)
	}
}
