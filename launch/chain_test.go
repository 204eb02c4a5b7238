package launch

import (
	"errors"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// fakeTree is a process table: parents and environments by pid.
type fakeTree struct {
	parents map[int]int
	envs    map[int]string
}

func (f fakeTree) parent(pid int) int { return f.parents[pid] }

func (f fakeTree) env(pid int) ([]byte, error) {
	e, ok := f.envs[pid]
	if !ok {
		return nil, errors.New("unreadable")
	}
	return []byte(strings.ReplaceAll(e, " ", "\x00")), nil
}

// TestCallerChain: the chain is the longest one up the tree, whether the
// process's own environment carries it or an ancestor's (a backend that
// stripped the environment of its MCP server, or set a shorter chain
// there); unreadable processes are passed over; none found, none.
func TestCallerChain(t *testing.T) {
	tr := fakeTree{
		parents: map[int]int{50: 40, 40: 30, 30: 20, 20: 10, 10: 1, 60: 1, 70: 40},
		envs: map[int]string{
			50: "PATH=/bin HOME=/h",
			40: "X=1 " + ChainVar + "=lead,reviewer",
			20: ChainVar + "=outer",
			10: "",
			60: "PATH=/bin",
			70: ChainVar + "= PATH=/bin",
		},
	}
	for _, tc := range []struct {
		pid  int
		want []string
	}{
		{50, []string{"lead", "reviewer"}},
		{40, []string{"lead", "reviewer"}},
		{30, []string{"outer"}}, // 30 unreadable: its parent's
		{60, nil},
		{70, []string{"lead", "reviewer"}},
	} {
		if got := callerChain(tr, tc.pid); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("pid %d: %q, want %q", tc.pid, got, tc.want)
		}
	}
}

// TestCallerChainThroughAStrippedEnvironment: a child started with an
// environment without the chain still finds it in its parent's (this
// test process, given the chain through a re-exec of itself). Linux only:
// elsewhere another process's environment is not read.
func TestCallerChainThroughAStrippedEnvironment(t *testing.T) {
	if os.Getenv("LAUNCH_TEST_CHAIN_CHILD") != "" {
		if got := strings.Join(CallerChain(), ","); got != "a,b" {
			t.Fatalf("child: chain %q", got)
		}
		return
	}
	if os.Getenv(ChainVar) != "a,b" {
		// Re-exec with the chain, so that this process's own
		// environment (the one /proc shows) carries it.
		cmd := exec.Command(os.Args[0], "-test.run=^TestCallerChainThroughAStrippedEnvironment$")
		cmd.Env = append(os.Environ(), ChainVar+"=a,b")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	if !procAvailable() {
		t.Skip("no /proc: another process's environment is not read here")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCallerChainThroughAStrippedEnvironment$")
	cmd.Env = []string{"LAUNCH_TEST_CHAIN_CHILD=1", "PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

func procAvailable() bool {
	_, err := os.Stat("/proc/self/environ")
	return err == nil && runtime.GOOS == "linux"
}
