//go:build unix

package main

import (
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDashboardConversation drives a conversation with a service in
// headless Chromium against a real `actctl up` (the test agent behind
// it): two turns in one session on the running process, a turn cancelled
// from the page (session/cancel: the process goes on), and a permission
// request the preset leaves to the person answered from the page and
// recorded as the user's decision; the page read again from the server
// (no script needed) shows it all. Then an employee's queued and running
// tasks are cancelled from their rows, without leaving the page.
func TestDashboardConversation(t *testing.T) {
	ctx := browser(t)
	root, home := upWorkspace(t)
	p := startUp(t, root, home, "api", "triage")
	u := p.waitLine(`up: dashboard (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64})$`)[1]
	for range 2 {
		p.waitLine(`up: (api|triage): process:start`)
	}
	pu, _ := url.Parse(u)
	base := "http://" + pu.Host
	js := func(expr string) string { return value(t, ctx, expr, chromedp.Evaluate[string]("String("+expr+")")) }
	// ended waits for the page's turn n (1-based) to end, and returns its
	// reply's text.
	ended := func(n string) string {
		cdp(t, ctx, "turn "+n+" ends", until(`(() => { const a = document.querySelectorAll("article.turn");
			return a.length === `+n+` && document.getElementById("conversation").dataset.ended === a[`+n+`-1].dataset.task })()`))
		return js(`document.querySelectorAll("article.turn")[` + n + `-1].querySelector(".reply").textContent`)
	}
	say := func(text string, then ...chromedp.Action[chromedp.Void]) []chromedp.Action[chromedp.Void] {
		return append([]chromedp.Action[chromedp.Void]{chromedp.SetValue(css(`#say-text`), text), chromedp.Click(css(`#say-send`))}, then...)
	}
	cdp(t, ctx, "a new conversation", chromedp.Navigate(u), chromedp.Navigate(base+"/agents/api"), until(`document.body.dataset.live === "1"`),
		chromedp.Click(css(`#new-conversation`)), chromedp.WaitVisible(css(`#say-form`)), until(`document.body.dataset.live === "1"`))
	convo := value(t, ctx, "location", chromedp.Location())

	turn := regexp.MustCompile(`session (\S+) cwd \S+ turn (\d)`)
	cdp(t, ctx, "turn 1", say("session")...)
	m1 := turn.FindStringSubmatch(ended("1"))
	cdp(t, ctx, "turn 2", say("session")...)
	m2 := turn.FindStringSubmatch(ended("2"))
	if m1 == nil || m2 == nil || m1[1] != m2[1] || m1[2] != "1" || m2[2] != "2" {
		t.Fatalf("two turns of one session: %q %q", m1, m2)
	}

	// Cancel while the turn runs: the agent was told (session/cancel).
	cdp(t, ctx, "a long turn", say("wait "+filepath.Join(t.TempDir(), "never"),
		until(`(document.querySelector("article.turn:last-child .reply .msg") || {}).textContent === "waiting\n"`),
		until(`!document.getElementById("cancel-form").hidden`), chromedp.Click(css(`#cancel-turn`)))...)
	if reply := ended("3"); !strings.Contains(reply, "stop: cancelled") || !strings.Contains(reply, "error: cancelled by the user") {
		t.Fatalf("cancelled turn: %q", reply)
	}

	// A permission request the preset (standard: edits) does not allow is
	// put to the person, who allows it from the page.
	cdp(t, ctx, "asked", say("perm execute", chromedp.WaitVisible(css(`article.turn:last-child .ask button[data-kind="allow_once"]`)))...)
	screenshot(t, ctx, "conversation.png")
	cdp(t, ctx, "allow", chromedp.Click(css(`article.turn:last-child .ask button[data-kind="allow_once"]`)))
	if reply := ended("4"); !strings.Contains(reply, "permission: yes") || !strings.Contains(reply, "allowed") || !strings.Contains(reply, "by the user") {
		t.Fatalf("answered turn: %q", reply)
	}
	if n := strings.Count(p.stderr(), "api: process:start"); n != 1 {
		t.Errorf("%d process starts of api", n)
	}

	// The page from the server alone: the turns, the decision, no ask.
	cdp(t, ctx, "reload", chromedp.Navigate(convo), chromedp.WaitVisible(css(`#turns`)))
	if n := js(`document.querySelectorAll("article.turn").length`); n != "4" {
		t.Fatalf("%s turns after a reload", n)
	}
	if js(`document.querySelectorAll(".ask").length`) != "0" || !strings.Contains(js(`document.querySelector("article.turn:last-child .perm").textContent`), "by the user") {
		t.Fatalf("the answered request after a reload: %s", js(`document.querySelector("article.turn:last-child").textContent`))
	}
	cdp(t, ctx, "the agent's page lists it", chromedp.Navigate(base+"/agents/api"), chromedp.WaitVisible(css(`.convos a`)))
	if title := js(`document.querySelector(".convos a").textContent`); title != "session" {
		t.Errorf("conversation listed as %q", title)
	}
	// An employee's queued and running tasks, cancelled from their rows:
	// the queued one never runs, the running one's turn ends, the process
	// goes on; the live queue and history show it.
	gate := filepath.Join(t.TempDir(), "never")
	for _, text := range []string{"wait " + gate, "queued one"} {
		if r := actctl(t, root, home, "prompt", "triage", "--no-wait", "-p", text); r.Code != 0 {
			t.Fatalf("prompt --no-wait: %d %s", r.Code, r.Stderr)
		}
	}
	queue := `[...document.querySelectorAll("#queue li")].map(li => li.textContent)`
	cdp(t, ctx, "triage's queue", chromedp.Navigate(base+"/agents/triage"), until(`document.body.dataset.live === "1"`),
		until(`(q => q.length === 2 && q[0].includes("(running): wait ") && q[1].includes(": queued one"))(`+queue+`)`),
		eval(`window.__marker = 3`), chromedp.Click(css(`#queue li:last-child button`)),
		until(`(q => q.length === 1 && q[0].includes("(running): wait "))(`+queue+`)`),
		chromedp.Click(css(`#queue li:first-child button`)),
		until(`document.getElementById("queue").textContent === "Empty."`),
		until(`[...document.querySelectorAll("#tasks tbody tr")].filter(tr => tr.textContent.includes("cancelled by the user")).length === 2`))
	if js("window.__marker") != "3" {
		t.Error("the page reloaded")
	}
	screenshot(t, ctx, "cancelled.png")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("up: %v", err)
	}
}
