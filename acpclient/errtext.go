package acpclient

import (
	"encoding/json"
	"fmt"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// codeAuthRequired is ACP's "Authentication required" error code.
const codeAuthRequired = -32000

// dataKeys are the fields of an error's data that hold the agent's own
// words (pi's login hint, a details line), in the order they are shown.
var dataKeys = []string{"message", "details", "detail", "hint", "reason", "error", "description"}

// maxDataText bounds what an error's data adds to a message: it ends up
// in one line of status and of logs.
const maxDataText = 500

// requestErrorText is an agent's error answer in its own words: its
// message, then what its data says (dataText), never a Go map; an auth
// error names the agent's authMethods, those it listed in initialize (or,
// when it listed none there, those in the error's data) (docs/run.md).
func (c *Client) requestErrorText(re *acp.RequestError) string {
	s := re.Message
	data := re.Data
	auth := re.Code == codeAuthRequired
	var methods []acp.AuthMethod
	if auth {
		methods = c.info.AuthMethods
		if m, ok := data.(map[string]any); ok {
			if len(methods) == 0 {
				methods = authMethodsOf(m["authMethods"])
			}
			data = without(m, "authMethods")
		}
	}
	if d := dataText(data); d != "" && d != re.Message {
		s += ": " + d
	}
	if auth {
		if len(methods) == 0 {
			return s + "; the agent listed no authMethods in initialize"
		}
		return s + "; log in with one of the agent's authMethods: " + authMethodsText(methods)
	}
	return s
}

// dataText is an error's data as words: a string as it is, the string
// fields of an object that hold a message (dataKeys), else compact JSON;
// at most maxDataText bytes.
func dataText(data any) string {
	var s string
	switch v := data.(type) {
	case nil:
		return ""
	case string:
		s = v
	case map[string]any:
		var words []string
		for _, k := range dataKeys {
			if w, ok := v[k].(string); ok && strings.TrimSpace(w) != "" {
				words = append(words, strings.TrimSpace(w))
			}
		}
		if len(words) > 0 {
			s = strings.Join(words, "; ")
		} else if len(v) > 0 {
			s = compactJSON(v)
		}
	default:
		s = compactJSON(v)
	}
	s = strings.TrimSpace(s)
	if len(s) > maxDataText {
		s = strings.ToValidUTF8(s[:maxDataText], "") + "..."
	}
	return s
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// without is m less key (m itself when it lacks key).
func without(m map[string]any, key string) map[string]any {
	if _, ok := m[key]; !ok {
		return m
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

// authMethodsOf decodes the authMethods an error's data lists.
func authMethodsOf(v any) []acp.AuthMethod {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var ms []acp.AuthMethod
	if json.Unmarshal(b, &ms) != nil {
		return nil
	}
	return ms
}

// authMethodsText names each method: its name and id, and for an
// environment-variable method the variables to set.
func authMethodsText(ms []acp.AuthMethod) string {
	var parts []string
	for _, m := range ms {
		var id, name, extra string
		switch {
		case m.Agent != nil:
			id, name = m.Agent.Id, m.Agent.Name
		case m.EnvVar != nil:
			id, name = m.EnvVar.Id, m.EnvVar.Name
			var vars []string
			for _, v := range m.EnvVar.Vars {
				vars = append(vars, v.Name)
			}
			if len(vars) > 0 {
				extra = ", set " + strings.Join(vars, " and ")
			}
		case m.Terminal != nil:
			id, name, extra = m.Terminal.Id, m.Terminal.Name, ", in a terminal"
		default:
			continue
		}
		if name == "" || name == id {
			parts = append(parts, id+extra)
		} else {
			parts = append(parts, fmt.Sprintf("%s (%s%s)", name, id, extra))
		}
	}
	return strings.Join(parts, "; ")
}
