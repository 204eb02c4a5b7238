package up

import (
	"fmt"

	"github.com/actctl/actctl/control"
)

// takeLock takes the employee's task lock for as long as up runs it
// (released by remove and Shutdown, or by the kernel when up dies): an
// `actctl task` of the agent is refused meanwhile, naming up's pid, and
// up does not start an employee whose task is running (docs/runtime.md,
// "actctl task").
func (a *agent) takeLock() error {
	if a.spec.Root == "" {
		return nil
	}
	l, err := control.LockAgent(a.spec.Root, a.name, "up")
	if err != nil {
		return fmt.Errorf("%w: up does not run it (restart up once that task ended)", err)
	}
	a.lock = l
	return nil
}
