package main

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/actctl/actctl/schema"
)

// getSingular names one thing of a kind `get` lists, for its messages.
var getSingular = map[string]string{
	"agents": "agent", "templates": "template", "backends": "backend", "skills": "skill",
	"prompts": "prompt", "commands": "command", "mcp": "MCP server", "hooks": "hook",
	"webhooks": "webhook",
}

// onlyNamed keeps of a listing (rows, each starting with its name, and js,
// a slice of the same things in the same order) those named in names, in
// the listing's order: `get KIND NAME...`, as kubectl's `get pods NAME`.
// A name not listed is an error saying what it may have meant.
func onlyNamed(kind string, rows [][]string, js any, names []string) ([][]string, any, error) {
	listed := make([]string, len(rows))
	for i, r := range rows {
		listed[i] = r[0]
	}
	for _, n := range names {
		if !slices.Contains(listed, n) && kind == "agents" {
			return nil, nil, schema.UnknownAgent(n, listed)
		}
		if !slices.Contains(listed, n) {
			msg := fmt.Sprintf("get %s: no %s %q", kind, getSingular[kind], n)
			if s := schema.Suggest(n, listed); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else if len(listed) > 0 {
				msg += " (there are " + strings.Join(listed, ", ") + ")"
			}
			return nil, nil, fmt.Errorf("%s", msg)
		}
	}
	all := reflect.ValueOf(js)
	kept := reflect.MakeSlice(all.Type(), 0, len(names))
	var out [][]string
	for i, r := range rows {
		if slices.Contains(names, r[0]) {
			out = append(out, r)
			kept = reflect.Append(kept, all.Index(i))
		}
	}
	return out, kept.Interface(), nil
}
