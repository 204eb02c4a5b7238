package reconcile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIgnoredStateNamesBackups: a state that is not trusted is ignored,
// and the message names the copies of the user's files it recorded that
// exist under .actant/backup (quoted), since prune no longer puts them
// back; names outside .actant/backup or missing are not said.
func TestIgnoredStateNamesBackups(t *testing.T) {
	root := t.TempDir()
	bk := filepath.Join(root, MetaDir, BackupDir, "s1", "CLAUDE.md")
	if err := os.MkdirAll(filepath.Dir(bk), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bk, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := `{"version":1,"root":"` + root + `","agents":{"a":{"dir":"` + root + `","entries":[` +
		`{"path":"CLAUDE.md","mode":"file","backup":".actant/backup/s1/CLAUDE.md"},` +
		`{"path":"x","mode":"file","backup":".actant/backup/s1/gone"},` +
		`{"path":"y","mode":"file","backup":".actant/backup/../../etc/passwd"}]}}}`
	if err := os.WriteFile(metaPath(root, StateFile), []byte(st), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, why, err := readTrusted(root, StateFile, make([]byte, 32), nil)
	if got != nil || err != nil || !strings.Contains(why, "not sealed") || !strings.HasSuffix(why, `: ".actant/backup/s1/CLAUDE.md"`) {
		t.Errorf("readTrusted: %v %v %q", got, err, why)
	}
}
