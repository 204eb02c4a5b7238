package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/testutil"
)

// TestPruneScript runs the workflow's prune step under GitHub's default
// shell on an employee's logs: the newest $KEEP task logs and summary
// lines stay, the older ones go, and a missing logs directory is no
// error.
func TestPruneScript(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		testutil.Missing(t, "bash is not on PATH: the prune step runs under GitHub's default shell, bash")
	}
	home := t.TempDir()
	logs := filepath.Join(home, "instances", "triage", "logs")
	if err := os.MkdirAll(filepath.Join(logs, "tasks"), 0o755); err != nil {
		t.Fatal(err)
	}
	var names, lines []string
	for i, stamp := range []string{"20270101T000000Z", "20270102T000000Z", "20270103T000000Z", "20270104T000000Z", "20270105T000000Z"} {
		name := stamp + "-" + string(rune('1'+i)) + ".jsonl"
		names = append(names, name)
		lines = append(lines, name)
		if err := os.WriteFile(filepath.Join(logs, "tasks", name), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(logs, "actctl.log"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string) {
		cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", pruneScript(name))
		cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "KEEP=2")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("prune %s: %v\n%s", name, err, out)
		}
	}
	run("triage")
	run("absent")
	entries, _ := os.ReadDir(filepath.Join(logs, "tasks"))
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if !slices.Equal(left, names[3:]) {
		t.Errorf("task logs left %v, want %v", left, names[3:])
	}
	if b, _ := os.ReadFile(filepath.Join(logs, "actctl.log")); string(b) != strings.Join(lines[3:], "\n")+"\n" {
		t.Errorf("summary left %q", b)
	}
}
