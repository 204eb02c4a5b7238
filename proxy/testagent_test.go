package proxy

// The test binary plays three extra roles, chosen by environment variables
// in TestMain, so that tests can spawn real processes without building
// helper binaries: a scriptable raw ACP agent (this file), the proxy itself
// (for tests that signal or SIGKILL it) and a fast agent for benchmarks.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/testutil"
	"github.com/actctl/actctl/launch"
)

const (
	envRole      = "ACTCTL_PROXYTEST_ROLE"  // "agent" or "proxy"
	envAgentDir  = "ACTCTL_PROXYTEST_DIR"   // where the agent writes its transcripts
	envAgentMode = "ACTCTL_PROXYTEST_MODE"  // comma-separated agent modes
	envProxyOpts = "ACTCTL_PROXYTEST_PROXY" // JSON proxyRoleOptions
)

func TestMain(m *testing.M) {
	switch os.Getenv(envRole) {
	case "agent":
		runTestAgent()
		os.Exit(0)
	case "proxy":
		os.Exit(runProxyRole())
	}
	code := m.Run()
	testutil.Cleanup()
	os.Exit(code)
}

// proxyRoleOptions configures the proxy role (a subprocess running Run on
// its real stdio with the CLI's signal wiring).
type proxyRoleOptions struct {
	Command     string
	Args        []string
	Env         []string
	ProcessCwd  string
	SessionCwd  string
	Workspace   string
	InstallHint string
	GraceMS     int
	PidFile     string // backend pid is written here
}

func runProxyRole() int {
	var po proxyRoleOptions
	if err := json.Unmarshal([]byte(os.Getenv(envProxyOpts)), &po); err != nil {
		fmt.Fprintln(os.Stderr, "proxy role:", err)
		return 2
	}
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), launch.Signals...)
	defer stop()
	err := Run(ctx, Options{
		Command: po.Command, Args: po.Args, Env: po.Env,
		ProcessCwd: po.ProcessCwd, SessionCwd: po.SessionCwd, Workspace: po.Workspace,
		InstallHint: po.InstallHint,
		Stdin:       os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Grace: time.Duration(po.GraceMS) * time.Millisecond,
		OnStart: func(pid int) {
			if po.PidFile != "" {
				_ = os.WriteFile(po.PidFile, []byte(strconv.Itoa(pid)), 0o644)
			}
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxy role:", err)
		return 1
	}
	return 0
}

// testAgent is a raw JSON-RPC ACP agent whose output is byte-exact and
// scriptable. It records every line it receives (recv.jsonl) and every
// JSON-RPC line it sends (sent.jsonl) so tests can compare both ends of
// the relay byte for byte.
type testAgent struct {
	dir   string
	modes map[string]bool

	wmu  sync.Mutex
	w    *bufio.Writer
	sent *os.File
	recv *os.File

	rmu     sync.Mutex
	waiters map[string]chan json.RawMessage // client responses by raw id
}

type agentMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

func runTestAgent() {
	a := &testAgent{
		dir:     os.Getenv(envAgentDir),
		modes:   map[string]bool{},
		w:       bufio.NewWriterSize(os.Stdout, 1<<16),
		waiters: map[string]chan json.RawMessage{},
	}
	for _, m := range strings.Split(os.Getenv(envAgentMode), ",") {
		a.modes[m] = true
	}
	if a.modes["die-at-start"] {
		fmt.Fprintln(os.Stderr, "fatal: missing API key (simulated)")
		os.Exit(7)
	}
	if a.dir != "" {
		a.recv, _ = os.OpenFile(filepath.Join(a.dir, "recv.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		a.sent, _ = os.OpenFile(filepath.Join(a.dir, "sent.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	}
	fmt.Fprintln(os.Stderr, "test agent: started")
	requests := make(chan agentMsg, 1024)
	go func() {
		for m := range requests {
			a.handle(m)
		}
	}()
	br := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if a.recv != nil {
				_, _ = a.recv.Write(line)
			}
			if strings.HasPrefix(string(line[:min(len(line), 48)]), `{"jsonrpc":"2.0","method":"_bench/note`) {
				continue // benchmark payload: received is all that counts
			}
			var m agentMsg
			if json.Unmarshal(line, &m) != nil {
				a.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
				continue
			}
			if m.Method == "" {
				a.rmu.Lock()
				ch := a.waiters[string(m.ID)]
				a.rmu.Unlock()
				if ch != nil {
					ch <- m.Result
				}
				continue
			}
			if m.Method == "_bench/ping" { // answered inline: lowest latency
				a.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`)
				continue
			}
			if m.ID != nil {
				requests <- m
			}
		}
		if err != nil {
			break
		}
	}
	if a.dir != "" {
		_ = os.WriteFile(filepath.Join(a.dir, "eof"), []byte("stdin closed\n"), 0o644)
	}
	if a.modes["ignore-eof"] {
		select {}
	}
	close(requests)
	time.Sleep(50 * time.Millisecond) // let the handler finish a response in progress
}

// send writes one line (and records it unless it is noise).
func (a *testAgent) send(line string) {
	a.wmu.Lock()
	defer a.wmu.Unlock()
	_, _ = a.w.WriteString(line + "\n")
	_ = a.w.Flush()
	if a.sent != nil && json.Valid([]byte(line)) {
		_, _ = a.sent.WriteString(line + "\n")
	}
}

// call sends a request to the client and waits for its result.
func (a *testAgent) call(id, method, params string) json.RawMessage {
	ch := make(chan json.RawMessage, 1)
	a.rmu.Lock()
	a.waiters[id] = ch
	a.rmu.Unlock()
	a.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`)
	res := <-ch
	a.rmu.Lock()
	delete(a.waiters, id)
	a.rmu.Unlock()
	return res
}

func (a *testAgent) result(id json.RawMessage, result string) {
	a.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`)
}

func (a *testAgent) update(sid, update string) {
	a.send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + sid + `","update":` + update + `}}`)
}

func jsonStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (a *testAgent) handle(m agentMsg) {
	wd, _ := os.Getwd()
	switch m.Method {
	case "initialize":
		caps := `{"loadSession":true}`
		if a.modes["extra-dirs"] { // takes additionalDirectories
			caps = `{"loadSession":true,"sessionCapabilities":{"additionalDirectories":{}}}`
		}
		a.result(m.ID, `{"protocolVersion":1,"agentCapabilities":`+caps+`,"_meta":{"processCwd":`+jsonStr(wd)+`}}`)
	case "session/new", "session/load", "session/resume", "session/fork", "session/list":
		var p struct {
			Cwd string `json:"cwd"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if a.modes["modes"] && m.Method == "session/new" {
			// Session modes, and an update about the session right after
			// the answer (as claude-agent-acp sends its commands).
			a.result(m.ID, `{"sessionId":"sess-1","modes":{"currentModeId":"default","availableModes":[{"id":"default","name":"Default"},{"id":"plan","name":"Plan"}]},"_meta":{"x":1}}`)
			a.update("sess-1", `{"sessionUpdate":"available_commands_update","availableCommands":[]}`)
			return
		}
		a.result(m.ID, `{"sessionId":"sess-1","_meta":{"processCwd":`+jsonStr(wd)+`,"sessionCwd":`+jsonStr(p.Cwd)+`}}`)
	case "session/set_mode":
		if a.modes["refuse-mode"] {
			a.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32602,"message":"no such mode here"}}`)
			return
		}
		a.result(m.ID, `{}`)
	case "session/prompt":
		var p struct {
			SessionID string `json:"sessionId"`
			Prompt    []struct {
				Text string `json:"text"`
			} `json:"prompt"`
		}
		_ = json.Unmarshal(m.Params, &p)
		text := ""
		if len(p.Prompt) > 0 {
			text = p.Prompt[0].Text
		}
		a.prompt(m, p.SessionID, text)
	case "_test/echo":
		a.result(m.ID, string(m.Params))
	case "_test/collide":
		// A request to the client under the very id the client is waiting
		// on: ids of the two directions are separate namespaces.
		res := a.call(string(m.ID), "_test/ping", `{"_meta":{"from":"agent"}}`)
		a.result(m.ID, `{"pong":`+string(res)+`}`)
	case "_test/burst":
		var p struct {
			N int `json:"n"`
		}
		_ = json.Unmarshal(m.Params, &p)
		for i := 0; i < p.N; i++ {
			if i%3 == 2 {
				a.send(`{"jsonrpc":"2.0","method":"_vendor/tick","params":{"seq":` + strconv.Itoa(i) + `}}`)
			} else {
				a.update("sess-1", `{"sessionUpdate":"x_kind_`+strconv.Itoa(i%2)+`","seq":`+strconv.Itoa(i)+`}`)
			}
		}
		a.result(m.ID, `{"n":`+strconv.Itoa(p.N)+`}`)
	case "_bench/emit":
		var p struct {
			N int `json:"n"`
		}
		_ = json.Unmarshal(m.Params, &p)
		line := benchLine(1024)
		a.wmu.Lock()
		for i := 0; i < p.N; i++ {
			_, _ = a.w.Write(line)
		}
		a.wmu.Unlock()
		a.result(m.ID, `{}`)
	case "_test/hang":
		// never answered
	default:
		a.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"Method not found","data":{"method":` + jsonStr(m.Method) + `}}}`)
	}
}

func (a *testAgent) prompt(m agentMsg, sid, text string) {
	switch text {
	case "turn":
		a.send("noise: the backend printed this on stdout")
		a.update(sid, `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"working"}}`)
		a.update(sid, `{"sessionUpdate":"x_future_kind","payload":{"a":[1,2.50,"\u00e9"]},"_meta":{"vendor.example/k":"v"}}`)
		a.update(sid, `{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"Edit config","kind":"edit","status":"pending"}`)
		res := a.call("0", "session/request_permission", `{"sessionId":"`+sid+`","toolCall":{"toolCallId":"call_1"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}`)
		a.update(sid, `{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed"}`)
		a.result(m.ID, `{"stopReason":"end_turn","_meta":{"permission":`+string(res)+`}}`)
	case "crash":
		a.update(sid, `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"about to crash"}}`)
		fmt.Fprintln(os.Stderr, "boom: simulated crash")
		os.Exit(3)
	case "fork":
		var pids []string
		for i := 0; i < 2; i++ {
			c := exec.Command("sleep", "1000")
			if i == 0 {
				c.Stdout = os.Stdout // holds the relay's pipe open
			}
			if err := c.Start(); err != nil {
				a.result(m.ID, `{"error":`+jsonStr(err.Error())+`}`)
				return
			}
			pids = append(pids, strconv.Itoa(c.Process.Pid))
		}
		// A grandchild, reparented away from the agent once sh exits.
		gpFile := filepath.Join(a.dir, "grandchild")
		c := exec.Command("sh", "-c", `sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > "$1"`, "sh", gpFile)
		if err := c.Run(); err != nil {
			a.result(m.ID, `{"error":`+jsonStr(err.Error())+`}`)
			return
		}
		gp, _ := os.ReadFile(gpFile)
		pids = append(pids, strings.TrimSpace(string(gp)))
		// A daemon: a new session (out of the backend's process group)
		// whose leader exits, leaving the sleep reparented to init.
		dFile := filepath.Join(a.dir, "daemon")
		c = exec.Command("sh", "-c", `sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > "$1"`, "sh", dFile)
		newSession(c)
		if err := c.Run(); err != nil {
			a.result(m.ID, `{"error":`+jsonStr(err.Error())+`}`)
			return
		}
		d, _ := os.ReadFile(dFile)
		pids = append(pids, strings.TrimSpace(string(d)))
		_ = os.WriteFile(filepath.Join(a.dir, "pids"), []byte(strings.Join(pids, "\n")), 0o644)
		a.result(m.ID, `{"stopReason":"end_turn","_meta":{"pids":`+jsonStr(strings.Join(pids, ","))+`}}`)
	default:
		a.result(m.ID, `{"stopReason":"end_turn"}`)
	}
}

// benchLine is a session/update notification of exactly size bytes
// including its newline, the typical streaming message of a turn.
func benchLine(size int) []byte {
	head := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`
	tail := `"}}}}` + "\n"
	return []byte(head + strings.Repeat("x", size-len(head)-len(tail)) + tail)
}
