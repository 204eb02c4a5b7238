package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProxyRecordPrunedAndRedeclared: an instance agent served by proxy,
// then removed from the config and declared again, applies cleanly: the
// runtime keys proxy wrote do not make its files the user's.
func TestProxyRecordPrunedAndRedeclared(t *testing.T) {
	for _, agent := range []string{"builder", "worker", "server"} {
		t.Run(agent, func(t *testing.T) {
			root, home, _ := proxyWorkspace(t)
			c := startProxy(t, root, home, agent, "-C", root)
			c.initialize()
			c.close()
			cue := string(mustRead(t, filepath.Join(root, "actant.cue")))
			line := "\t" + agent + ": template: "
			at := strings.Index(cue, line)
			end := at + strings.IndexByte(cue[at:], '\n') + 1
			writeFiles(t, root, map[string]string{"actant.cue": cue[:at] + cue[end:]})
			if r := actctl(t, root, home, "apply"); r.Code != 0 {
				t.Fatalf("apply after removing %s: %s", agent, r.Stderr)
			}
			inst := filepath.Join(home, "instances", agent)
			if _, err := os.Stat(inst); err == nil {
				t.Errorf("pruned instance left behind: %v", listFiles(t, inst))
			}
			writeFiles(t, root, map[string]string{"actant.cue": cue})
			if r := actctl(t, root, home, "apply"); r.Code != 0 {
				t.Fatalf("apply after declaring %s again: %s", agent, r.Stderr)
			}
			if r := actctl(t, root, home, "status", agent); r.Code != 0 || !strings.Contains(r.Stdout, "Synced") {
				t.Errorf("status: %s%s", r.Stdout, r.Stderr)
			}
		})
	}
}
