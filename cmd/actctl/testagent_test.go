package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// runTestAgent is a minimal ACP agent (newline-delimited JSON-RPC on
// stdio) that appends what the proxy tests check to the file out:
// "process <cwd>" at start and "session <method> <cwd>" for every session
// request. It answers initialize, session/new, session/load and
// session/prompt, and exits at EOF.
func runTestAgent(out string) int {
	f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer f.Close()
	wd, _ := os.Getwd()
	fmt.Fprintf(f, "process %s\n", wd)
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	enc := json.NewEncoder(os.Stdout)
	n := 0
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cwd string `json:"cwd"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID == nil {
			continue
		}
		var result any
		switch msg.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{"loadSession": true}}
		case "session/new", "session/load", "session/resume":
			fmt.Fprintf(f, "session %s %s\n", msg.Method, msg.Params.Cwd)
			n++
			result = map[string]any{"sessionId": fmt.Sprintf("s%d", n)}
		case "session/prompt":
			result = map[string]any{"stopReason": "end_turn"}
		default:
			enc.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
			continue
		}
		enc.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
	}
	return 0
}
