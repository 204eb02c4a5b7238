package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/actctl/actctl/reconcile"
)

func TestColorFor(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	// A pipe or a buffer is never a terminal, whatever the environment.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if colorFor(w, false, env("TERM", "xterm")) {
		t.Error("colour on a pipe")
	}
	if colorFor(&bytes.Buffer{}, false, env()) {
		t.Error("colour on a buffer")
	}
	// A terminal, where the machine has one: on unless turned off.
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		t.Log("no controlling terminal; terminal cases not run:", err)
		return
	}
	defer tty.Close()
	if !colorFor(tty, false, env("TERM", "xterm")) {
		t.Error("no colour on a terminal")
	}
	for name, p := range map[string]palette{
		"--no-color": colorFor(tty, true, env("TERM", "xterm")),
		"NO_COLOR":   colorFor(tty, false, env("TERM", "xterm", "NO_COLOR", "1")),
		"TERM=dumb":  colorFor(tty, false, env("TERM", "dumb")),
	} {
		if p {
			t.Errorf("colour with %s", name)
		}
	}
}

func TestPaletteDiff(t *testing.T) {
	const d = "--- a/CLAUDE.md\n+++ b/CLAUDE.md\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n"
	if got := palette(false).diff(d); got != d {
		t.Errorf("colour off changed the diff: %q", got)
	}
	got := palette(true).diff(d)
	want := "\x1b[1m--- a/CLAUDE.md\x1b[0m\n\x1b[1m+++ b/CLAUDE.md\x1b[0m\n" + ansiCyan + "@@ -1,2 +1,2 @@" + ansiReset + "\n keep\n" +
		ansiRed + "-old" + ansiReset + "\n" + ansiGreen + "+new" + ansiReset + "\n"
	if got != want {
		t.Errorf("painted diff\n%q\nwant\n%q", got, want)
	}
	// Stripping the colour gives back the exact diff.
	strip := strings.NewReplacer("\x1b[1m", "", ansiCyan, "", ansiRed, "", ansiGreen, "", ansiReset, "")
	if strip.Replace(got) != d {
		t.Error("painting changed the text")
	}
}

func TestPaletteCellsHaveOneWidth(t *testing.T) {
	p := palette(true)
	n := len(p.paint(ansiPlain, "x"))
	for _, a := range []reconcile.Action{reconcile.ActCreate, reconcile.ActUpdate, reconcile.ActDelete, reconcile.ActRestore, reconcile.ActSkip, reconcile.ActDrift, reconcile.ActConflict, reconcile.ActWarning} {
		if got := len(p.action(a)) - len(a); got != n-1 {
			t.Errorf("%s: %d escape bytes, want %d", a, got, n-1)
		}
	}
	for _, s := range []string{reconcile.Synced, reconcile.OutOfSync, reconcile.Missing, "Other"} {
		if got := len(p.status(s)) - len(s); got != n-1 {
			t.Errorf("%s: %d escape bytes, want %d", s, got, n-1)
		}
	}
}
