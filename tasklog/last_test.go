package tasklog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLast: the last complete summary line, read from the end of a long
// actctl.log; nil without one.
func TestLast(t *testing.T) {
	dir := t.TempDir()
	if Last(dir) != nil {
		t.Fatal("a summary without a log")
	}
	var b strings.Builder
	for i := range 500 {
		line, _ := json.Marshal(Summary{Task: uint64(i + 1), Kind: "prompt", Source: "cli", StopReason: "end_turn", Prompt: strings.Repeat("p", 150)})
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteString(`{"task": 501, "kind": "pro`) // a line being written
	if err := os.MkdirAll(filepath.Dir(SummaryPath(dir)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(SummaryPath(dir), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if b.Len() <= lastTail {
		t.Fatalf("the log (%d bytes) is not longer than the tail read", b.Len())
	}
	if s := Last(dir); s == nil || s.Task != 500 || s.StopReason != "end_turn" {
		t.Fatalf("last %+v", s)
	}
}
