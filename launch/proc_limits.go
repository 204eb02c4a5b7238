package launch

import "fmt"

// LimitError: starting one more process would cross a resource limit
// (docs/runtime.md, "Limits"). The process is not started; the caller
// retries later (a supervisor's backoff), when the limit may have room.
type LimitError struct {
	Limit string // what is limited: "RLIMIT_NOFILE", "pids.max of cgroup /x"
	Used  uint64 // in use now
	Max   uint64 // the limit; 0: unknown (a start failed on it)
	Need  uint64 // what a start needs
	Raise string // how to raise it
}

func (e *LimitError) Error() string {
	if e.Max == 0 { // hit by a start, not checked before it
		return fmt.Sprintf("%s was reached (raise it: %s)", e.Limit, e.Raise)
	}
	return fmt.Sprintf("%s would be crossed: %d of %d in use and a start needs %d (raise it: %s)", e.Limit, e.Used, e.Max, e.Need, e.Raise)
}
