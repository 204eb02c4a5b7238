package runrecord

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writerVar makes the test binary a writer of one key: "PATH KEY".
const writerVar = "ACTCTL_TEST_RECORD_WRITER"

func TestMain(m *testing.M) {
	if v := os.Getenv(writerVar); v != "" {
		path, key, _ := strings.Cut(v, " ")
		if err := Update(path, map[string]any{key: true}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestUpdateRecordProcesses: processes writing one record at once (up,
// proxies, attach) each find their key in it: the record's lock is a
// kernel lock between processes (issue #26 item 7).
func TestUpdateRecordProcesses(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), ".actant.json")
	const n = 8
	var cmds []*exec.Cmd
	for i := range n {
		cmd := exec.Command(self, "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s k%d", writerVar, path, i))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if got[fmt.Sprintf("k%d", i)] != true {
			t.Errorf("k%d lost: %s", i, b)
		}
	}
}
