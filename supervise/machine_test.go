package supervise

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestMachine drives the state machine through scripted steps: each step
// is "op@seconds" and the expected state (plus the backoff wait after an
// exit).
func TestMachine(t *testing.T) {
	type step struct {
		op    string // start, up, exit, backoff, stop
		at    float64
		state State
		wait  time.Duration
	}
	crashLoop := []step{{"start", 0, Starting, 0}, {"up", 0, Running, 0}}
	at := 0.0
	for _, wait := range []time.Duration{1, 2, 4, 8} {
		at += 0.1
		crashLoop = append(crashLoop, step{"exit", at, Backoff, wait * time.Second})
		at += wait.Seconds()
		crashLoop = append(crashLoop, step{"backoff", at, Starting, 0}, step{"up", at, Running, 0})
	}
	crashLoop = append(crashLoop, step{"exit", at + 0.1, Fatal, 0},
		step{"backoff", at + 20, Fatal, 0}, // no timer leaves fatal
		step{"start", at + 30, Starting, 0}, step{"up", at + 30, Running, 0},
		step{"exit", at + 31, Backoff, time.Second}) // a manual start forgets the failures

	// Runs of 20 s never make 5 failures start within 60 s: the wait keeps
	// doubling to the 60 s cap and the service is never fatal.
	slowCrash := []step{{"start", 0, Starting, 0}, {"up", 0, Running, 0}}
	at = 0
	for _, wait := range []time.Duration{1, 2, 4, 8, 16, 32, 60, 60} {
		at += 20
		slowCrash = append(slowCrash, step{"exit", at, Backoff, wait * time.Second})
		at += wait.Seconds()
		slowCrash = append(slowCrash, step{"backoff", at, Starting, 0}, step{"up", at, Running, 0})
	}

	for name, steps := range map[string]struct {
		policy Policy
		steps  []step
	}{
		"crash loop to fatal":     {ServicePolicy(), crashLoop},
		"slow crashes cap at 60s": {ServicePolicy(), slowCrash},
		"reset after 60s up": {ServicePolicy(), []step{
			{"start", 0, Starting, 0}, {"up", 0, Running, 0},
			{"exit", 1, Backoff, time.Second}, {"backoff", 2, Starting, 0}, {"up", 2, Running, 0},
			{"exit", 3, Backoff, 2 * time.Second}, {"backoff", 5, Starting, 0}, {"up", 5, Running, 0},
			{"exit", 65, Backoff, time.Second}, // 60 s up: back to 1 s
		}},
		"start failures count": {ServicePolicy(), []step{
			{"start", 0, Starting, 0}, {"exit", 0, Backoff, time.Second},
			{"backoff", 1, Starting, 0}, {"exit", 1, Backoff, 2 * time.Second},
			{"backoff", 3, Starting, 0}, {"exit", 3, Backoff, 4 * time.Second},
			{"backoff", 7, Starting, 0}, {"exit", 7, Backoff, 8 * time.Second},
			{"backoff", 15, Starting, 0}, {"exit", 15, Fatal, 0},
		}},
		// on-failure (the default of employees and services): a crash is
		// restarted, an exit with status 0 is left crashed.
		"on-failure": {PolicyFor("on-failure"), []step{
			{"start", 0, Starting, 0}, {"up", 0, Running, 0}, {"exit", 5, Backoff, time.Second},
			{"backoff", 6, Starting, 0}, {"up", 6, Running, 0}, {"exit-ok", 7, Crashed, 0},
			{"backoff", 8, Crashed, 0}, {"start", 9, Starting, 0},
		}},
		"always restarts a clean exit": {PolicyFor("always"), []step{
			{"start", 0, Starting, 0}, {"up", 0, Running, 0}, {"exit-ok", 5, Backoff, time.Second},
		}},
		"background is not restarted": {BackgroundPolicy(), []step{
			{"start", 0, Starting, 0}, {"up", 0, Running, 0}, {"exit", 5, Crashed, 0},
			{"backoff", 6, Crashed, 0}, {"start", 7, Starting, 0},
		}},
		"stop": {ServicePolicy(), []step{
			{"stop", 0, Stopped, 0}, // never started
			{"start", 1, Starting, 0}, {"up", 1, Running, 0}, {"stop", 2, Stopping, 0},
			{"start", 2, Stopping, 0}, // refused while stopping
			{"exit", 3, Stopped, 0},   // an exit after a stop is no crash
			{"start", 4, Starting, 0}, {"stop", 4, Stopping, 0}, {"exit", 4, Stopped, 0},
			{"start", 5, Starting, 0}, {"up", 5, Running, 0}, {"exit", 6, Backoff, time.Second},
			{"stop", 6, Stopped, 0}, // a stop in backoff cancels the restart
			{"backoff", 7, Stopped, 0},
		}},
	} {
		t.Run(name, func(t *testing.T) {
			m := NewMachine(unbounded(steps.policy)) // no start timer: "backoff" fires the backoff's
			base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			var trace []string
			for i, s := range steps.steps {
				now := base.Add(time.Duration(s.at * float64(time.Second)))
				var wait time.Duration
				in := map[string]Input{"start": InStart, "up": InUp, "exit": InExit, "exit-ok": InExitOK, "backoff": InTimer, "stop": InStop}[s.op]
				if s.op == "exit" && m.starting {
					in = InStartFailed // an exit before it was up: the start failed
				}
				if _, a := m.Handle(in, now); a.Arm == BackoffTimer {
					wait = a.Delay
				}
				trace = append(trace, fmt.Sprintf("%s@%g=%s", s.op, s.at, m.State()))
				if m.State() != s.state || wait != s.wait {
					t.Fatalf("step %d %s@%g: state %s wait %v, want %s %v\n%s", i, s.op, s.at, m.State(), wait, s.state, s.wait, strings.Join(trace, " "))
				}
			}
		})
	}
}

// TestPolicyFor: restart "on-failure" (and "", the default) and
// "always" restart with the same backoff (1 s doubling to 60 s, 5
// failures in 60 s -> fatal); "never" does not restart.
func TestPolicyFor(t *testing.T) {
	for _, r := range []string{"", "on-failure", "always"} {
		p := PolicyFor(r)
		if !p.Restart || p.InitialBackoff != time.Second || p.MaxBackoff != time.Minute || p.ResetAfter != time.Minute || p.MaxFailures != 5 || p.FailureWindow != time.Minute {
			t.Errorf("restart %q: policy %+v", r, p)
		}
		if p.OnFailure != (r != "always") {
			t.Errorf("restart %q: OnFailure %v", r, p.OnFailure)
		}
	}
	if PolicyFor("never").Restart {
		t.Error("restart never restarts")
	}
}
