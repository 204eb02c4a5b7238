package acpclient

import (
	"fmt"
	"sort"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/model"
)

// MCPServers converts the template's MCP server references to ACP's
// mcpServers form: stdio {name, command, args, env: [{name, value}]},
// remote {type: "http", name, url, headers: [{name, value}]}. Names are the
// ones the materialized files use (model.DiskName). lookup finds a
// reference's server: the config's, or actctl's own MCP server for the
// agent under the reserved name "actctl" (schema's Config.MCPServerFor).
func MCPServers(lookup func(ref string) (model.MCPServer, bool), refs []string) ([]acp.McpServer, error) {
	out := make([]acp.McpServer, 0, len(refs))
	for _, ref := range refs {
		s, ok := lookup(ref)
		if !ok {
			return nil, fmt.Errorf("mcp server %q is not declared", ref)
		}
		name := model.DiskName(ref)
		if s.URL != "" {
			out = append(out, acp.McpServer{Http: &acp.McpServerHttpInline{Type: "http", Name: name, Url: s.URL, Headers: pairs(s.Headers, func(k, v string) acp.HttpHeader { return acp.HttpHeader{Name: k, Value: v} })}})
			continue
		}
		args := s.Args
		if args == nil {
			args = []string{}
		}
		out = append(out, acp.McpServer{Stdio: &acp.McpServerStdio{Name: name, Command: s.Command, Args: args, Env: pairs(s.Env, func(k, v string) acp.EnvVariable { return acp.EnvVariable{Name: k, Value: v} })}})
	}
	return out, nil
}

// pairs lists m sorted by key (never nil: ACP wants an array).
func pairs[T any](m map[string]string, mk func(k, v string) T) []T {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]T, 0, len(m))
	for _, k := range keys {
		out = append(out, mk(k, m[k]))
	}
	return out
}
