package supervise

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// describe is an action in one line: its parts in the order they are
// done; "-" for nothing.
func describe(a Action) string {
	var p []string
	add := func(ok bool, s string) {
		if ok {
			p = append(p, s)
		}
	}
	add(a.Disarm, "disarm")
	add(a.CancelStart && !a.TimedOut, "cancel-start")
	add(a.CancelStart && a.TimedOut, "cancel-start(timeout)")
	add(a.Arm != NoTimer, fmt.Sprintf("arm:%s/%s", a.Arm, a.Delay))
	for _, e := range a.Emit {
		x := e.Name + "(" + string(e.State)
		if e.Restarting {
			x += ",restarting"
		}
		if e.Delay > 0 {
			x += "," + e.Delay.String()
		}
		p = append(p, x+")")
	}
	add(a.Launch && !a.Restart, "launch")
	add(a.Launch && a.Restart, "launch(restart)")
	add(a.Terminate, "terminate")
	add(a.Kill, "kill")
	add(a.Answer, "answer")
	add(a.Refuse, "refuse")
	if len(p) == 0 {
		return "-"
	}
	return strings.Join(p, " ")
}

// row is a state of the machine the table starts from: the inputs that
// lead there under the policy.
type row struct {
	label string // the state (and sub-state), and what else holds
	path  []Input
	fatal bool // policy: fatal after one failure
	bg    bool // BackgroundPolicy instead of ServicePolicy
}

var rows = []row{
	{label: "created"},
	{label: "starting", path: []Input{InStart}},
	{label: "starting+draining", path: []Input{InStart, InDrain}},
	{label: "running", path: []Input{InStart, InUp}},
	{label: "running+draining", path: []Input{InStart, InUp, InDrain}},
	{label: "stopping/cancelling-start", path: []Input{InStart, InStop}},
	{label: "stopping/terminating", path: []Input{InStart, InUp, InStop}},
	{label: "stopping/terminating+restart", path: []Input{InStart, InUp, InRestart}},
	{label: "stopping/killing", path: []Input{InStart, InUp, InStop, InTimer}},
	{label: "stopped", path: []Input{InStop}},
	{label: "crashed", path: []Input{InStart, InUp, InExit}, bg: true},
	{label: "backoff", path: []Input{InStart, InUp, InExit}},
	{label: "fatal", path: []Input{InStart, InUp, InExit}, fatal: true},
}

// machineIn returns a machine brought into r's state.
func machineIn(t *testing.T, r row) *Machine {
	t.Helper()
	p := ServicePolicy() // grace 5s, start bound 1m, backoff from 1s
	if r.bg {
		p = BackgroundPolicy()
	}
	if r.fatal {
		p.MaxFailures = 1
	}
	m := NewMachine(p)
	for _, in := range r.path {
		m.Handle(in, t0)
	}
	if got, _, _ := strings.Cut(r.label, "+"); where(m) != got {
		t.Fatalf("setup of %s reached %s", r.label, where(m))
	}
	return m
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// where is the machine's state, with the stop sub-state when stopping.
func where(m *Machine) string {
	if m.State() == Stopping {
		return string(Stopping) + "/" + m.StopStep().String()
	}
	return string(m.State())
}

// TestHandle asserts the state and the action of every state x input
// cell of the machine (ServicePolicy; crashed under BackgroundPolicy,
// fatal after one failure). An input that does not apply changes nothing:
// "-". ACTCTL_PRINT_TABLE=1 prints the table as it is.
func TestHandle(t *testing.T) {
	var got []string
	for _, r := range rows {
		for in := InStart; in <= InExitOK; in++ {
			m := machineIn(t, r)
			st, a := m.Handle(in, t0.Add(2*time.Second))
			if st != m.State() {
				t.Errorf("%s %s: Handle says %s, the machine is %s", r.label, in, st, m.State())
			}
			got = append(got, fmt.Sprintf("%s\t%s\t%s\t%s", r.label, in, where(m), describe(a)))
		}
	}
	if os.Getenv("ACTCTL_PRINT_TABLE") != "" {
		fmt.Println(strings.Join(got, "\n"))
	}
	want := strings.Split(strings.TrimSpace(handleTable), "\n")
	if len(want) != len(got) {
		t.Fatalf("%d cells in the table, want %d", len(want), len(got))
	}
	for i := range got {
		if strings.Join(strings.Fields(got[i]), " ") != strings.Join(strings.Fields(want[i]), " ") {
			t.Errorf("cell %d:\n got  %s\n want %s", i, got[i], want[i])
		}
	}
}

// handleTable: state, input, the state it leads to, the action.
const handleTable = `
created                       start         starting                   arm:start/1m0s launch
created                       stop          stopped                    answer
created                       restart       starting                   arm:start/1m0s launch(restart) answer
created                       drain         created                    -
created                       shutdown      stopped                    answer
created                       up            created                    -
created                       start-failed  created                    -
created                       exit          created                    -
created                       timer         created                    -
created                       term-failed   created                    -
created                       exit-ok       created                    -
starting                      start         starting                   -
starting                      stop          stopping/cancelling-start  cancel-start
starting                      restart       stopping/cancelling-start  cancel-start
starting                      drain         starting                   -
starting                      shutdown      stopping/cancelling-start  cancel-start
starting                      up            running                    disarm process:start(running)
starting                      start-failed  backoff                    disarm arm:backoff/1s process:crash(backoff,1s)
starting                      exit          starting                   -
starting                      timer         starting                   cancel-start(timeout)
starting                      term-failed   starting                   -
starting                      exit-ok       starting                   -
starting+draining             start         starting                   -
starting+draining             stop          stopping/cancelling-start  cancel-start
starting+draining             restart       stopping/cancelling-start  cancel-start
starting+draining             drain         starting                   -
starting+draining             shutdown      stopping/cancelling-start  cancel-start
starting+draining             up            running                    disarm process:start(running)
starting+draining             start-failed  stopped                    disarm process:stop(stopped) answer
starting+draining             exit          starting                   -
starting+draining             timer         starting                   cancel-start(timeout)
starting+draining             term-failed   starting                   -
starting+draining             exit-ok       starting                   -
running                       start         running                    -
running                       stop          stopping/terminating       arm:grace/5s terminate
running                       restart       stopping/terminating       arm:grace/5s terminate
running                       drain         running                    -
running                       shutdown      stopping/terminating       arm:grace/5s terminate
running                       up            running                    -
running                       start-failed  running                    -
running                       exit          backoff                    arm:backoff/1s process:crash(backoff,1s)
running                       timer         running                    -
running                       term-failed   running                    -
running                       exit-ok       backoff                    arm:backoff/1s process:crash(backoff,1s)
running+draining              start         running                    -
running+draining              stop          stopping/terminating       arm:grace/5s terminate
running+draining              restart       stopping/terminating       arm:grace/5s terminate
running+draining              drain         running                    -
running+draining              shutdown      stopping/terminating       arm:grace/5s terminate
running+draining              up            running                    -
running+draining              start-failed  running                    -
running+draining              exit          stopped                    process:stop(stopped) answer
running+draining              timer         running                    -
running+draining              term-failed   running                    -
running+draining              exit-ok       stopped                    process:stop(stopped) answer
stopping/cancelling-start     start         stopping/cancelling-start  refuse
stopping/cancelling-start     stop          stopping/cancelling-start  -
stopping/cancelling-start     restart       stopping/cancelling-start  -
stopping/cancelling-start     drain         stopping/cancelling-start  -
stopping/cancelling-start     shutdown      stopping/cancelling-start  -
stopping/cancelling-start     up            stopping/terminating       disarm arm:grace/5s terminate
stopping/cancelling-start     start-failed  stopped                    disarm process:stop(stopped) answer
stopping/cancelling-start     exit          stopping/cancelling-start  -
stopping/cancelling-start     timer         stopping/cancelling-start  cancel-start(timeout)
stopping/cancelling-start     term-failed   stopping/cancelling-start  -
stopping/cancelling-start     exit-ok       stopping/cancelling-start  -
stopping/terminating          start         stopping/terminating       refuse
stopping/terminating          stop          stopping/terminating       -
stopping/terminating          restart       stopping/terminating       -
stopping/terminating          drain         stopping/terminating       -
stopping/terminating          shutdown      stopping/terminating       -
stopping/terminating          up            stopping/terminating       -
stopping/terminating          start-failed  stopping/terminating       -
stopping/terminating          exit          stopped                    disarm process:stop(stopped) answer
stopping/terminating          timer         stopping/killing           kill
stopping/terminating          term-failed   stopping/killing           disarm kill
stopping/terminating          exit-ok       stopped                    disarm process:stop(stopped) answer
stopping/terminating+restart  start         stopping/terminating       refuse
stopping/terminating+restart  stop          stopping/terminating       -
stopping/terminating+restart  restart       stopping/terminating       -
stopping/terminating+restart  drain         stopping/terminating       -
stopping/terminating+restart  shutdown      stopping/terminating       -
stopping/terminating+restart  up            stopping/terminating       -
stopping/terminating+restart  start-failed  stopping/terminating       -
stopping/terminating+restart  exit          starting                   disarm arm:start/1m0s process:stop(stopped,restarting) launch(restart) answer
stopping/terminating+restart  timer         stopping/killing           kill
stopping/terminating+restart  term-failed   stopping/killing           disarm kill
stopping/terminating+restart  exit-ok       starting                   disarm arm:start/1m0s process:stop(stopped,restarting) launch(restart) answer
stopping/killing              start         stopping/killing           refuse
stopping/killing              stop          stopping/killing           -
stopping/killing              restart       stopping/killing           -
stopping/killing              drain         stopping/killing           -
stopping/killing              shutdown      stopping/killing           -
stopping/killing              up            stopping/killing           -
stopping/killing              start-failed  stopping/killing           -
stopping/killing              exit          stopped                    process:stop(stopped) answer
stopping/killing              timer         stopping/killing           -
stopping/killing              term-failed   stopping/killing           -
stopping/killing              exit-ok       stopped                    process:stop(stopped) answer
stopped                       start         starting                   arm:start/1m0s launch
stopped                       stop          stopped                    answer
stopped                       restart       starting                   arm:start/1m0s launch(restart) answer
stopped                       drain         stopped                    -
stopped                       shutdown      stopped                    answer
stopped                       up            stopped                    -
stopped                       start-failed  stopped                    -
stopped                       exit          stopped                    -
stopped                       timer         stopped                    -
stopped                       term-failed   stopped                    -
stopped                       exit-ok       stopped                    -
crashed                       start         starting                   arm:start/1m0s launch
crashed                       stop          stopped                    answer
crashed                       restart       starting                   arm:start/1m0s launch(restart) answer
crashed                       drain         crashed                    -
crashed                       shutdown      stopped                    answer
crashed                       up            crashed                    -
crashed                       start-failed  crashed                    -
crashed                       exit          crashed                    -
crashed                       timer         crashed                    -
crashed                       term-failed   crashed                    -
crashed                       exit-ok       crashed                    -
backoff                       start         starting                   disarm arm:start/1m0s launch
backoff                       stop          stopped                    disarm answer
backoff                       restart       starting                   disarm arm:start/1m0s launch(restart) answer
backoff                       drain         stopped                    disarm
backoff                       shutdown      stopped                    disarm answer
backoff                       up            backoff                    -
backoff                       start-failed  backoff                    -
backoff                       exit          backoff                    -
backoff                       timer         starting                   arm:start/1m0s launch(restart)
backoff                       term-failed   backoff                    -
backoff                       exit-ok       backoff                    -
fatal                         start         starting                   arm:start/1m0s launch
fatal                         stop          stopped                    answer
fatal                         restart       starting                   arm:start/1m0s launch(restart) answer
fatal                         drain         fatal                      -
fatal                         shutdown      stopped                    answer
fatal                         up            fatal                      -
fatal                         start-failed  fatal                      -
fatal                         exit          fatal                      -
fatal                         timer         fatal                      -
fatal                         term-failed   fatal                      -
fatal                         exit-ok       fatal                      -
`
