package acpclient

import (
	"errors"
	"strings"
	"testing"
)

// TestProtectedCheck: apply's protected set, seen from the root and from
// every directory below it (the client cannot tell where a workspace
// starts); the message says why.
func TestProtectedCheck(t *testing.T) {
	for rel, want := range map[string]string{
		"src/main.go": "", "README.md": "", "docs/actant-notes.md": "", "x.cuex": "",
		"actant.cue": "*.cue file", "a/b/c.CUE": "*.cue file", "cue.mod/module.cue": "cue.mod/",
		"vendor/cue.mod/x": "cue.mod/", ".git/config": ".git/", "a/.Git/HEAD": ".git/",
		".actant/config.cache": ".actant/", "actant.lock": "actant.lock at the root",
		"ws/actant.owned": "for a workspace in ws, actant.owned at the root", "a/b/Actant.Lock": "for a workspace in a/b, Actant.Lock",
	} {
		err := protectedCheck(rel)
		var p *errProtected
		switch {
		case want == "" && err != nil:
			t.Errorf("%s refused: %v", rel, err)
		case want != "" && (!errors.As(err, &p) || !strings.Contains(p.why, want)):
			t.Errorf("%s: %v, want %q", rel, err, want)
		}
	}
}

// TestInstanceRecord: the records of an instance, in any letter case;
// the agent's .heartbeat and its other files are not among them.
func TestInstanceRecord(t *testing.T) {
	for rel, want := range map[string]string{
		"logs/actctl.log": "logs/", "logs/tasks/1.jsonl": "logs/", "LOGS/x": "logs/", "logs": "logs/", "./logs/../logs/y": "logs/",
		".actant.json": "runtime record", ".actant.json.lock": "runtime record", ".Actant.JSON": "runtime record",
		"canvas.html": "canvas_update", "Canvas.HTML": "canvas_update",
		".heartbeat": "", "CLAUDE.md": "", "checkout/logs/x": "", "sub/canvas.html": "", "logsx": "", ".actant.jso": "",
	} {
		if got := InstanceRecord(rel); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", rel, got, want)
		}
	}
}
