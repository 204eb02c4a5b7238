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
