package supervise

// The names the machine tests print stops and timers with.

var stopNames = [...]string{"-", "cancelling-start", "terminating", "killing"}

func (s Stop) String() string { return stopNames[s] }

var timerNames = [...]string{"-", "start", "backoff", "grace"}

func (t Timer) String() string { return timerNames[t] }

// StopStep returns where a stopping process is (NotStopping otherwise).
func (m *Machine) StopStep() Stop { return m.stop }
