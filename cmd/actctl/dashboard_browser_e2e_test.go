//go:build unix

package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/actctl/actctl/internal/acptestagent"
)

// ScreenshotsVar names a directory the browser test saves its
// screenshots to (docs/dashboard.md's pictures).
const ScreenshotsVar = "ACTCTL_SCREENSHOTS"

// chromium finds the system's Chromium; without one the browser test is
// skipped, except in CI (CI=true), where it fails.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium found (chromium, chromium-browser, google-chrome): CI must run the browser test; .ci/run installs the chromium package")
	}
	t.Skip("no Chromium found (chromium, chromium-browser, google-chrome): the browser test is skipped outside CI")
	return ""
}

// browser is a headless Chromium driven by chromedp.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]), chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox, chromedp.WindowSize(1100, 800), chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	// The first action starts the browser, with no deadline (one would
	// end the browser); then a bound on the whole test, so that a broken
	// page fails it instead of hanging. Every wait below waits for
	// something to happen in the page.
	if err := chromedp.Do(ctx); err != nil {
		cancelTab()
		cancelAlloc()
		t.Fatalf("start %s: %v", chromium(t), err)
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancel(); cancelTab(); cancelAlloc() })
	return ctx
}

func cdp(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// value runs an action that returns a value.
func value[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// until waits until the expression is true in the page (no timeout of
// its own: the test's bound ends a wait that never ends). A poll does not
// survive a navigation (chromedp's Poll evaluates in one execution
// context): when the page navigates while it waits (a form's redirect
// whose new document chromedp has not yet seen, a reload the page asks
// for), the wait starts again in the new document; any other error ends it.
func until(expr string) chromedp.Action[chromedp.Void] {
	poll := chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(0))
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		for {
			v, err := poll(ctx, t)
			if err == nil || ctx.Err() != nil || !navigatedAway(err) {
				return v, err
			}
		}
	}
}

// navigatedAway reports whether err is the devtools protocol's answer to
// an evaluation in a document that is gone.
func navigatedAway(err error) bool {
	msg := err.Error()
	for _, s := range []string{"Cannot find context with specified id", "Execution context was destroyed", "Inspected target navigated or closed"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// eval runs a script whose value does not matter.
func eval(script string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[bool](script+"; true")(ctx, t)
		return chromedp.Void{}, err
	}
}

// css is a CSS selector.
func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

func screenshot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv(ScreenshotsVar)
	if dir == "" {
		return
	}
	png := value(t, ctx, "screenshot "+name, chromedp.CaptureScreenshot())
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDashboardBrowser drives the dashboard of a real `actctl up` (the
// test agent behind it) in headless Chromium: the cards appear, a
// crash turns a card to backoff and back without a reload, a prompt's
// reply streams into the page, restart works, an employee's canvas
// updates live in its sandbox, and a tool title holding <script> shows
// as text and runs nothing.
func TestDashboardBrowser(t *testing.T) {
	ctx := browser(t)
	root, home := upWorkspace(t)
	p := startUp(t, root, home)
	u := p.waitLine(`up: dashboard (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64})$`)[1]
	pids := map[string]int{}
	for range 2 {
		m := p.waitLine(`up: (api|triage): process:start pid (\d+)`)
		pids[m[1]], _ = strconv.Atoi(m[2])
	}
	pu, _ := url.Parse(u)
	base := "http://" + pu.Host
	js := func(expr string) string { return value(t, ctx, expr, chromedp.Evaluate[string]("String("+expr+")")) }
	text := func(sel string) string { return value(t, ctx, "text of "+sel, chromedp.TextContent(css(sel))) }
	pidIs := func(pid int) chromedp.Action[chromedp.Void] {
		return until(`document.querySelector('li.card[data-name="api"] [data-f=pid]').textContent === "` + strconv.Itoa(pid) + `"`)
	}

	// The cards, live.
	cdp(t, ctx, "agents page", chromedp.Navigate(u),
		chromedp.WaitVisible(css(`li.card[data-name="api"]`)), chromedp.WaitVisible(css(`li.card[data-name="triage"]`)),
		until(`document.body.dataset.live === "1"`), pidIs(pids["api"]))
	if loc := value(t, ctx, "location", chromedp.Location()); loc != base+"/" {
		t.Errorf("the token stays in the address bar: %s", loc)
	}
	screenshot(t, ctx, "agents.png")

	// A crash: backoff, then running again, without a reload.
	cdp(t, ctx, "watch the state", eval(`window.__marker = 1; window.__states = [];
		const el = document.querySelector('li.card[data-name="api"] [data-f=stateText]');
		new MutationObserver(() => window.__states.push(el.textContent)).observe(el, {childList: true, characterData: true, subtree: true})`))
	if err := killProcess(pids["api"]); err != nil {
		t.Fatal(err)
	}
	newPid := p.started("api")
	cdp(t, ctx, "restarted card", pidIs(newPid),
		until(`document.querySelector('li.card[data-name="api"] [data-f=restarts]').textContent === "1"`))
	if js("window.__marker") != "1" {
		t.Fatal("the page reloaded")
	}
	cdp(t, ctx, "counts by state", until(`document.querySelector('#counts [data-n="running"]').textContent === "2"`))
	states := value(t, ctx, "states", chromedp.Evaluate[[]string]("window.__states"))
	if !slices.ContainsFunc(states, func(s string) bool { return strings.HasPrefix(s, "backoff: next restart at ") }) || states[len(states)-1] != "running" {
		t.Fatalf("states shown: %q, want a backoff then running", states)
	}

	// A prompt streams its reply into the page.
	cdp(t, ctx, "prompt", chromedp.Navigate(base+"/agents/api"), until(`document.body.dataset.live === "1"`),
		eval(`window.__stderrN = document.querySelectorAll("#stderr div").length`),
		chromedp.SendKeys(css(`#prompt-text`), "chunks 5"), chromedp.Click(css(`#prompt-form button`)),
		chromedp.WaitVisible(css(`#reply[data-state="done"]`)))
	// The agent's stderr follows live: the session's line comes in.
	cdp(t, ctx, "stderr", until(`[...document.querySelectorAll("#stderr div")].slice(window.__stderrN).some(d => d.textContent.startsWith("test agent: session/new cwd="))`))
	if reply := text(`#reply .msg`); reply != "chunk 1 chunk 2 chunk 3 chunk 4 chunk 5 end" {
		t.Fatalf("reply %q", reply)
	}
	if n := js(`document.querySelectorAll("iframe").length`); n != "0" {
		t.Fatalf("a service's page has %s frames", n)
	}

	// Agent text with HTML shows as text and runs nothing, live and in
	// the task's log.
	cdp(t, ctx, "hostile title", chromedp.SetValue(css(`#prompt-text`), "html-title"), chromedp.Click(css(`#prompt-form button`)),
		until(`document.querySelector("#reply .done") !== null`))
	title, stop := text(`#reply .tool .title`), text(`#reply .done .title`)
	if title != acptestagent.HostileTitle || js("window.__pwned") != "undefined" || js(`document.querySelectorAll("#reply script, #reply img, #reply b").length`) != "0" {
		t.Fatalf("hostile title shown as %q, __pwned %s", title, js("window.__pwned"))
	}
	task := strings.TrimSuffix(strings.TrimPrefix(stop, "stop: end_turn (task "), ")")
	cdp(t, ctx, "task log", chromedp.Navigate(base+"/agents/api/tasks/"+task), chromedp.WaitVisible(css(`#tasklog .tool`)))
	if title := text(`#tasklog .tool .title`); title != acptestagent.HostileTitle || js("window.__pwned") != "undefined" ||
		js(`document.querySelectorAll("#tasklog script, #tasklog img, #tasklog b").length`) != "0" {
		t.Fatalf("task page %s: title %q, __pwned %s", task, title, js("window.__pwned"))
	}

	// Restart from the page.
	cdp(t, ctx, "restart", chromedp.Navigate(base+"/agents/api"), until(`document.body.dataset.live === "1"`),
		chromedp.Click(css(`form.ctl[action$="/restart"] button`)))
	restarted := p.started("api")
	cdp(t, ctx, "restarted", pidIs(restarted), until(`document.getElementById("ctl-result").textContent === "restart api: done"`))

	// Controls follow the state: a running agent's Start is disabled; a
	// stopped one's prompt box offers Start, which starts it.
	if js(`document.querySelector('form.inline.ctl[action$="/start"] button').disabled`) != "true" {
		t.Fatal("Start is enabled on a running agent")
	}
	cdp(t, ctx, "stop", chromedp.Click(css(`form.inline.ctl[action$="/stop"] button`)),
		until(`document.getElementById("prompt-form").hidden && !document.getElementById("prompt-down").hidden`),
		until(`!document.querySelector('form.inline.ctl[action$="/start"] button').disabled`),
		chromedp.Click(css(`#prompt-down button`)))
	started := p.started("api")
	cdp(t, ctx, "started from the prompt box", pidIs(started), until(`!document.getElementById("prompt-form").hidden`),
		until(`document.querySelector('form.inline.ctl[action$="/start"] button').disabled`))

	// An employee's canvas, updated live by canvas_update, in a sandbox
	// without the dashboard's origin (no cookie).
	cdp(t, ctx, "employee page", chromedp.Navigate(base+"/agents/triage"), until(`document.body.dataset.live === "1"`),
		eval(`window.__msgs = []; addEventListener("message", e => window.__msgs.push(String(e.data)))`))
	cs := mcpConnectEnv(t, root, home, "triage", nil)
	for _, v := range []string{"v1", "v2"} {
		html := fmt.Sprintf(`<style>body{font:16px sans-serif}</style><h2>Triage board %s</h2><ul><li>#12 open</li><li>#13 in review</li></ul>`+
			`<script>let c; try { c = document.cookie } catch (e) { c = "blocked" } parent.postMessage("%s cookie=" + c, "*")</script>`, v, v)
		if text, isErr := callTool(t, cs, "canvas_update", map[string]any{"html": html}, nil); isErr {
			t.Fatalf("canvas_update: %s", text)
		}
		cdp(t, ctx, "canvas "+v, until(`window.__msgs.includes("`+v+` cookie=blocked")`))
	}
	// The running task's log, live: a task that waits for a file.
	gate := filepath.Join(t.TempDir(), "go-on")
	if r := actctl(t, root, home, "prompt", "triage", "--no-wait", "-p", "wait "+gate); r.Code != 0 {
		t.Fatalf("prompt --no-wait: %d %s", r.Code, r.Stderr)
	}
	cdp(t, ctx, "live log", until(`(document.querySelector("#livelog .msg") || {}).textContent === "waiting\n"`),
		eval(`window.__marker = 2`))
	waiting := strings.TrimPrefix(text(`#running a`), "task #")
	// A task queued behind it shows in the queue, as text, without a
	// reload; each task that ends joins the history.
	if r := actctl(t, root, home, "prompt", "triage", "--no-wait", "-p", "queued <b>x</b>"); r.Code != 0 {
		t.Fatalf("prompt --no-wait: %d %s", r.Code, r.Stderr)
	}
	cdp(t, ctx, "queued task", until(`[...document.querySelectorAll("#queue li")].some(li => li.textContent.endsWith(" prompt: queued <b>x</b> Cancel"))`))
	if n := js(`document.querySelectorAll("#queue b").length`); n != "0" {
		t.Fatalf("the queue has %s <b> elements", n)
	}
	queued := strings.TrimPrefix(strings.Fields(js(`[...document.querySelectorAll("#queue li")].pop().textContent`))[0], "#")
	// The ended task's log shows its last line until the queued task,
	// which starts at once, replaces it: watched as it happens, not
	// polled (a loaded machine polled past that moment and failed).
	// The mutation records are read, not the page when the callback runs:
	// the callback may come once for both changes (the line added, then
	// the log replaced), and only the records still hold the first.
	cdp(t, ctx, "watch the live log", eval(`window.__waited = false; new MutationObserver((records) => {
		const inLog = (n) => { const e = n.nodeType === 1 ? n : n.parentElement; return !!(e && (e.closest("#livelog") || e.querySelector && e.querySelector("#livelog"))); };
		for (const r of records) {
			const nodes = r.type === "characterData" ? [r.target] : [...r.addedNodes];
			if (nodes.some(n => (inLog(n) || inLog(r.target)) && (n.textContent || "").includes("waited"))) window.__waited = true;
		}
	}).observe(document.body, {subtree: true, childList: true, characterData: true})`))
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cdp(t, ctx, "live log's end", until(`window.__waited === true`),
		until(`document.querySelector('#tasks tr[data-task="`+waiting+`"]') !== null`),
		until(`document.querySelector('#tasks tr[data-task="`+queued+`"]') !== null`),
		until(`document.getElementById("queue").textContent === "Empty."`))
	if row := text(`#tasks tbody tr:first-child td:first-child`); row != "#"+queued {
		t.Fatalf("newest row %q, want task %s", row, queued)
	}
	// The next ticks, drawn again by each of those messages, are still
	// there, in the viewer's zone too.
	if n := js(`[...document.querySelectorAll("#ticks time.viewer")].filter(t => t.textContent !== "").length`); n != "5" {
		t.Fatalf("%s next ticks shown in the viewer's zone, want 5", n)
	}
	if js("window.__marker") != "2" {
		t.Fatal("the page reloaded")
	}
	screenshot(t, ctx, "agent.png")
	cdp(t, ctx, "events page", chromedp.Navigate(base+"/events"), chromedp.WaitVisible(css(`#timeline tbody tr`)))
	screenshot(t, ctx, "events.png")

	// At phone width (390 px) no page scrolls sideways, and the events
	// page grows by a bounded height per event (each row a block, its
	// data collapsed).
	cdp(t, ctx, "phone width", chromedp.EmulateViewport(390, 844))
	for _, path := range []string{"/events", "/", "/agents/api", "/agents/triage", "/agents/api/tasks/" + task} {
		cdp(t, ctx, "phone "+path, chromedp.Navigate(base+path), chromedp.WaitVisible(css(`main`)))
		if w := js(`document.documentElement.scrollWidth`); w != "390" {
			t.Errorf("%s at 390 px is %s px wide", path, w)
		}
		if path == "/events" {
			rows, _ := strconv.Atoi(js(`document.querySelectorAll("#timeline tbody tr").length`))
			height, _ := strconv.Atoi(js(`document.documentElement.scrollHeight`))
			if rows < 10 || height > 1500+rows*160 {
				t.Errorf("the events page at 390 px: %d px for %d events", height, rows)
			}
			screenshot(t, ctx, "events-phone.png")
		}
	}
	cdp(t, ctx, "desktop width", chromedp.EmulateViewport(1100, 800))

	// A page left open across a restart of up says it lost its up, greys
	// its cards and says how to get the new URL.
	cdp(t, ctx, "page before the restart", chromedp.Navigate(base+"/agents/api"), until(`document.body.dataset.live === "1"`))

	// The canvas survives a restart of up.
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("up: %v", err)
	}
	cdp(t, ctx, "lost up", until(`document.body.dataset.lost === "1"`))
	if msg := text(`#lost`); !strings.Contains(msg, "lost its actctl up") || !strings.Contains(msg, "actctl dashboard") ||
		!strings.Contains(js(`getComputedStyle(document.querySelector("li.card")).filter`), "grayscale") {
		t.Fatalf("a page whose up stopped says %q", msg)
	}
	screenshot(t, ctx, "lost.png")
	p = startUp(t, root, home)
	u = p.waitLine(`up: dashboard (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64})$`)[1]
	p.waitLine(`up: triage: process:start`)
	pu, _ = url.Parse(u)
	cdp(t, ctx, "canvas after a restart of up", chromedp.Navigate(u), chromedp.Navigate("http://"+pu.Host+"/agents/triage/canvas"),
		chromedp.WaitVisible(css(`h2`)))
	if h := text(`h2`); h != "Triage board v2" {
		t.Fatalf("canvas after a restart of up: %q", h)
	}
}
