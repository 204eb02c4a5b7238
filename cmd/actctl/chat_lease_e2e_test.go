package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
)

// chatWith runs `actctl chat ARGS` in root with stdin.
func chatWith(t *testing.T, root, home, stdin string, args ...string) result {
	t.Helper()
	return actctlStdin(t, root, home, nil, strings.NewReader(stdin), append([]string{"chat"}, args...)...)
}

// chatWorkspace is upWorkspace whose services offer chat.
func chatWorkspace(t *testing.T) (root, home string) {
	root, home = upWorkspace(t)
	f, err := os.OpenFile(filepath.Join(root, "actant.cue"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString("archetypes: service: interactionModes: [\"start\", \"chat\", \"proxy\"]\n")
		f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return root, home
}

var sessionTurn = regexp.MustCompile(`session (\S+) cwd \S+ turn (\d+)`)

// TestChatLeasesWarmAgent: `chat` on a service `up` runs is a session on
// its running process (no cold copy), owned by the chatting user: listed
// by `chat --list` and resumed by `chat --resume` from a new process,
// where the conversation goes on (turn 2 of the same session).
func TestChatLeasesWarmAgent(t *testing.T) {
	root, home := chatWorkspace(t)
	p := startUp(t, root, home, "api")
	p.started("api")
	first := chatWith(t, root, home, "session\n", "api")
	m := sessionTurn.FindStringSubmatch(first.Stdout)
	if first.Code != 0 || m == nil || m[2] != "1" || !strings.Contains(first.Stderr, "api runs under actctl up: a new session "+m[1]) {
		t.Fatalf("chat: %+v", first)
	}
	sid := m[1]
	list := chatWith(t, root, home, "", "api", "--list")
	if list.Code != 0 || !strings.HasPrefix(list.Stdout, sid+"\t") {
		t.Fatalf("chat --list: %+v", list)
	}
	back := chatWith(t, root, home, "session\n", "api", "--resume")
	if m := sessionTurn.FindStringSubmatch(back.Stdout); back.Code != 0 || m == nil || m[1] != sid || m[2] != "2" {
		t.Fatalf("chat --resume: %+v", back)
	}
	named := chatWith(t, root, home, "session\n", "api", "--resume", sid)
	if m := sessionTurn.FindStringSubmatch(named.Stdout); named.Code != 0 || m == nil || m[1] != sid || m[2] != "3" {
		t.Fatalf("chat --resume %s: %+v", sid, named)
	}
	if n := strings.Count(p.stderr(), "api: process:start"); n != 1 {
		t.Errorf("%d process starts of api, want the one up made:\n%s", n, p.stderr())
	}
	bad := chatWith(t, root, home, "session\n", "api", "--resume", "nope")
	if bad.Code != 1 || !strings.Contains(bad.Stderr, "api has no session nope of yours to resume") || bad.Stdout != "" {
		t.Errorf("chat --resume nope: %+v", bad)
	}
}

// TestChatResumeNeedsUp: without up, --list and --resume say what they
// need, and start nothing.
func TestChatResumeNeedsUp(t *testing.T) {
	root, home := chatWorkspace(t)
	for _, args := range [][]string{{"api", "--list"}, {"api", "--resume"}} {
		r := chatWith(t, root, home, "session\n", args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, "need api running under actctl up: "+upNoUp) || r.Stdout != "" {
			t.Errorf("chat %v: %+v", args, r)
		}
	}
	assertNotWritten(t, root, "chat --list without up", "prompts.log")
}

// TestChatAskDeadline: a question nobody answers in time is left to the
// agent's preset (acpclient.ErrNoAnswer), and chat says so.
func TestChatAskDeadline(t *testing.T) {
	var out strings.Builder
	now := make(chan time.Time)
	close(now)
	a := &asker{lines: make(chan string), w: &out, always: map[acp.ToolKind]bool{}, deadline: func() <-chan time.Time { return now }}
	_, err := a.ask(context.Background(), acpclient.ToolCall{ID: "c1", Title: "Run", Kind: acp.ToolKindExecute}, nil)
	if !errors.Is(err, acpclient.ErrNoAnswer) || !strings.Contains(out.String(), "no answer in time: the agent's preset decides") {
		t.Errorf("ask past its deadline: %v, said %q", err, out.String())
	}
}
