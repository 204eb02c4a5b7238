//go:build unix

package main

import (
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDashboardRepoBrowser drives a repo agent's card and page in headless
// Chromium against a real `actctl up` (issue #35 item 7): its card says
// "on demand" with no Start or Stop; its page shows its files and
// resolved template; New conversation starts its process, a turn's reply
// streams in, and closing the conversation ends the process, the card
// back to "on demand" without a reload.
func TestDashboardRepoBrowser(t *testing.T) {
	ctx := browser(t)
	root, home := repoWorkspace(t)
	p := startUp(t, root, home)
	u := p.waitLine(`up: dashboard (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64})$`)[1]
	p.waitLine(`up: api: process:start pid`)
	js := func(expr string) string { return value(t, ctx, expr, chromedp.Evaluate[string]("String("+expr+")")) }
	state := `document.querySelector('li.card[data-name="docs"] [data-f=stateText]').textContent`

	cdp(t, ctx, "agents page", chromedp.Navigate(u), chromedp.WaitVisible(css(`li.card[data-name="docs"]`)),
		until(`document.body.dataset.live === "1"`), until(state+` === "on demand"`),
		until(`document.querySelector('#counts [data-n="on demand"]').textContent === "2"`))
	if js(`document.querySelectorAll('input[value="docs"][form="bulk"]').length`) != "0" {
		t.Error("docs can be selected for a bulk start or stop")
	}
	cdp(t, ctx, "docs's page", chromedp.Click(css(`li.card[data-name="docs"] h2 a`)), chromedp.WaitVisible(css(`#on-demand`)),
		until(`document.body.dataset.live === "1"`))
	page := js(`document.querySelector("main").textContent`)
	for _, want := range []string{"SCRIPTED.md", "Resolved template", "runs this repo agent on demand"} {
		if !strings.Contains(page, want) {
			t.Errorf("docs's page lacks %q:\n%s", want, page)
		}
	}
	if n := js(`document.querySelectorAll('form[action$="/start"], form[action$="/stop"], #prompt-form').length`); n != "0" {
		t.Errorf("docs's page has %s Start, Stop or prompt forms", n)
	}
	screenshot(t, ctx, "repo-agent.png")

	cdp(t, ctx, "a conversation on demand", chromedp.Click(css(`#new-conversation`)), chromedp.WaitVisible(css(`#say-form`)),
		until(`document.body.dataset.live === "1"`),
		chromedp.SetValue(css(`#say-text`), "session"), chromedp.Click(css(`#say-send`)),
		until(`(a => a.length === 1 && document.getElementById("conversation").dataset.ended === a[0].dataset.task)(document.querySelectorAll("article.turn"))`))
	if reply := js(`document.querySelector("article.turn .reply").textContent`); !strings.Contains(reply, "turn 1") {
		t.Fatalf("the turn's reply: %q", reply)
	}
	pid, _ := strconv.Atoi(p.waitLine(`up: docs: process:start pid (\d+)`)[1])
	screenshot(t, ctx, "repo-conversation.png")

	cdp(t, ctx, "close it", chromedp.Click(css(`#close-conversation`)), chromedp.WaitVisible(css(`#on-demand`)),
		until(`document.body.dataset.live === "1"`), until(state+` === "on demand"`))
	if !processGone(pid) {
		t.Fatalf("docs's process %d left running after its conversation closed", pid)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("up: %v", err)
	}
}
