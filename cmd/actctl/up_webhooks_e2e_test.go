//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/actctl/actctl/internal/testutil"
	"github.com/actctl/actctl/webhook"
)

const webhookSecret = "It's a Secret to Everybody"

// webhookWorkspace declares an employee and a GitHub webhook whose
// issues prompt it; the test agent logs every prompt to prompts.log.
func webhookWorkspace(t *testing.T) (root, home string) {
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, `ACTCTL_TEST_PROMPT_LOG: "`+filepath.Join(root, "prompts.log")+`"`)+`
templates: emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "24h", prompt: "rest"}}
agents: triage: template: "emp"
webhooks: gh: {secretEnv: "ACTCTL_TEST_GH_SECRET", signature: "github", events: ["issues"]}
hooks: "new-issue": {on: "webhook:gh", prompt: {agent: "triage", text: "New issue: {{event.data.payload.issue.title}} (#{{event.data.payload.issue.number}})"}}
`)
	return root, home
}

// postFixture sends webhook/testdata's fixture to url, signed with
// secret unless it is empty; the status and the answer.
func postFixture(t *testing.T, url, fixture, secret string) (int, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "webhook", "testdata", fixture+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Headers map[string]string
		Payload json.RawMessage
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(f.Payload))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range f.Headers {
		req.Header.Set(k, v)
	}
	if secret != "" {
		req.Header.Set(webhook.GitHubSignatureHeader, testutil.Sign([]byte(secret), f.Payload))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// TestUpWebhooksE2E: up --webhooks serves the declared webhook on the
// address it prints; a signed GitHub issues delivery prompts the employee
// through a hook, its prompt filled from the payload (the task log shows
// it); unsigned, wrongly signed, filtered and replayed deliveries prompt
// nobody.
func TestUpWebhooksE2E(t *testing.T) {
	root, home := webhookWorkspace(t)
	t.Setenv("ACTCTL_TEST_GH_SECRET", webhookSecret)
	p := startUp(t, root, home, "--webhooks", "127.0.0.1:0")
	addr := p.waitLine(`up: webhooks on http://(\S+)/webhooks/ \(gh\)`)[1]
	p.started("triage")
	logs, stdout, stderr := startLogs(t, root, home, "triage", "-f")
	if !stderr.WaitFor("no tasks logged for triage yet") {
		t.Fatalf("logs -f: %s", stderr)
	}
	url := "http://" + addr + "/webhooks/gh"
	for _, tc := range []struct {
		fixture, secret string
		code            int
		want            string
	}{
		{"issues", "", 401, "no signature"},
		{"issues", "a guess", 401, "does not match"},
		{"push", webhookSecret, 200, `ignored: event "push"`},
		{"issues", webhookSecret, 202, "queued"},
	} {
		if code, body := postFixture(t, url, tc.fixture, tc.secret); code != tc.code || !strings.Contains(body, tc.want) {
			t.Fatalf("%s signed with %q: %d %q, want %d %q", tc.fixture, tc.secret, code, body, tc.code, tc.want)
		}
	}
	p.waitLine(`up: webhook gh: issues delivery 72d3162e-cc78-11e3-81ab-4c9367dc0958$`)
	if !stdout.WaitFor("prompt(hook)") || !stdout.WaitFor("New issue: Found a bug (#1347)") {
		t.Fatalf("no task for the delivery; logs:\n%s\nup:\n%s", stdout, p.stderr())
	}
	if code, body := postFixture(t, url, "issues", webhookSecret); code != 200 || !strings.Contains(body, "duplicate") {
		t.Errorf("replay: %d %q", code, body)
	}
	interrupt(t, logs, stderr)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("up: %v\n%s", err, p.stderr())
	}
	b, _ := os.ReadFile(filepath.Join(root, "prompts.log"))
	if n := strings.Count(string(b), "New issue:"); n != 1 {
		t.Errorf("%d prompts from the webhook, want 1:\n%s", n, b)
	}
	if strings.Contains(p.stderr(), "warning") {
		t.Errorf("up warned:\n%s", p.stderr())
	}
}

// TestUpWebhooksBadInput: a secret's variable unset, no webhook declared,
// an address taken or not an address stops up before it starts anything,
// with a message saying which; nothing is left running or written.
func TestUpWebhooksBadInput(t *testing.T) {
	root, home := webhookWorkspace(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	noWebhooks := t.TempDir()
	writeConfigTB(t, noWebhooks, "package actant\n")
	for _, tc := range []struct {
		dir  string
		env  []string
		addr string
		want string
	}{
		{root, []string{"ACTCTL_TEST_GH_SECRET="}, "127.0.0.1:0",
			"actctl: up: --webhooks: webhook gh: its secret's environment variable ACTCTL_TEST_GH_SECRET is not set (webhooks.gh.secretEnv)"},
		{noWebhooks, nil, "127.0.0.1:0", "actctl: up: --webhooks 127.0.0.1:0: actant.cue declares no webhooks"},
		{root, []string{"ACTCTL_TEST_GH_SECRET=s"}, taken.Addr().String(), "actctl: up: --webhooks: listen tcp " + taken.Addr().String()},
		// Not an address: a usage error (exit 2), as --ui's, before the secret.
		{root, []string{"ACTCTL_TEST_GH_SECRET="}, "nonsense", `actctl: up: --webhooks "nonsense": want HOST:PORT (127.0.0.1:8787, or 0.0.0.0:8787 for other machines): address nonsense: missing port in address`},
	} {
		r := actctlEnv(t, tc.dir, home, tc.env, "up", "--webhooks", tc.addr)
		code := 1
		if tc.addr == "nonsense" {
			code = 2
		}
		if r.Code != code || !strings.Contains(r.Stderr, tc.want) || strings.Contains(r.Stderr, "control socket") {
			t.Errorf("--webhooks %s: exit %d\n%s\nwant %q", tc.addr, r.Code, r.Stderr, tc.want)
		}
		if files := listFiles(t, tc.dir); len(files) != 1 {
			t.Errorf("--webhooks %s: files written: %v", tc.addr, files)
		}
	}
}
