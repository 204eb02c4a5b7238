//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/layout"
)

// TestForgedInputsRecordIgnored: an agent changed an output apply owns
// (.claude/settings.json) and rewrote .actant/inputs.rec with that file's
// new stat data, the digest recomputed, so that every later apply said
// "no changes" and never reported the drift. The forged record fails its
// seal: apply takes the normal path, which reports the drift.
func TestForgedInputsRecordIgnored(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"actant.cue": readonlyConfig})
	age(t, dir, "actant.cue")
	if r := actctl(t, dir, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: %+v", r)
	}
	applyPath(t, dir, home, true, "", "no changes")
	p := filepath.Join(dir, ".claude/settings.json")
	before := statLine(t, p)
	writeFiles(t, dir, map[string]string{".claude/settings.json": strings.Replace(read(t, p), `"plan"`, `"bypassPermissions"`, 1)})
	after := statLine(t, p)
	forgeCache(t, layout.Path(dir, layout.Inputs), func(b []byte) []byte {
		if !bytes.Contains(b, before) {
			t.Fatalf("no stat data of %s (%s) in the record:\n%q", p, before, b)
		}
		return bytes.Replace(b, before, after, 1)
	})
	r := actctlEnv(t, dir, home, debugEnv, "apply")
	if !strings.Contains(r.Stderr, fullLine+": "+layout.Path(dir, layout.Inputs)+": damaged or forged") {
		t.Fatalf("apply took the forged record: %+v", r)
	}
	if !strings.Contains(r.Stdout+r.Stderr, "settings.json") {
		t.Fatalf("apply did not report the edited settings: %+v", r)
	}
}

// statLine is the stat data of p as inputs.rec's tables write it (mode,
// size, mtime, ctime, inode, device: see inputs.statTable), the flags
// before them left out.
func statLine(t *testing.T, p string) []byte {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	ctime := time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec)).UnixNano()
	return fmt.Appendf(nil, " %d %d %d %d %d %d ", int64(fi.Mode()), fi.Size(), fi.ModTime().UnixNano(), ctime, st.Ino, st.Dev)
}
