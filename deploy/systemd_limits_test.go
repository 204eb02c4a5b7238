package deploy

import "testing"

// TestUnitLimits: the unit's TasksMax grows with the agents up runs;
// LimitNOFILE's hard limit never goes below systemd's default
// (docs/runtime.md, "Limits").
func TestUnitLimits(t *testing.T) {
	for _, c := range []struct{ agents, tasks, files int }{
		{0, 256, 524288},
		{3, 448, 524288},
		{1000, 64256, 524288},
		{40000, 2560256, 641024},
	} {
		if tasks, files := unitLimits(c.agents); tasks != c.tasks || files != c.files {
			t.Errorf("%d agents: TasksMax=%d, LimitNOFILE hard %d; want %d, %d", c.agents, tasks, files, c.tasks, c.files)
		}
	}
}
