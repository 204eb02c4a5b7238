package materialize

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/actctl/actctl/schema"
)

// shared holds work reused across the agents of one RenderAll call.
//
// A rendered skill file depends only on the skill, the layout format and
// the values of the few variables the skill text uses, so the many agents
// that share a template (or a hub skill) share its bytes instead of
// re-rendering 20k identical SKILL.md files. The cache lives for one
// RenderAll call only, so it can never serve a stale config. Safe for
// concurrent use.
type shared struct {
	mu    sync.Mutex
	info  map[string]*skillInfo
	files map[string]rendered
	mcp   map[string]mcpRendered
}

func newShared() *shared {
	return &shared{info: map[string]*skillInfo{}, files: map[string]rendered{}, mcp: map[string]mcpRendered{}}
}

// mcpRendered is one MCP server rendered in one dialect.
type mcpRendered struct {
	value json.RawMessage
	warns []string
	err   error
}

// mcpServer renders server s under its key name in dialect d, once per
// distinct (d, name, s) in a RenderAll. The key is everything the value
// depends on, the server's whole definition included: the reserved server
// "actctl" is a different server for every agent (its --as), so a key of
// the reference alone handed the first agent's entry to all of them
// (issue #20 item 22).
func (sh *shared) mcpServer(d mcpDialect, name string, s schema.MCPServer) mcpRendered {
	k := mcpKey(d, name, s)
	sh.mu.Lock()
	m, ok := sh.mcp[k]
	sh.mu.Unlock()
	if ok {
		return m
	}
	v, warns, err := mcpServerValue(d, name, s)
	m = mcpRendered{warns: warns, err: err}
	if err == nil {
		m.value = canonicalJSON(v)
	}
	sh.mu.Lock()
	sh.mcp[k] = m
	sh.mu.Unlock()
	return m
}

// mcpKey encodes every input of mcpServerValue, each string prefixed by its
// length so that no two inputs share a key.
func mcpKey(d mcpDialect, name string, s schema.MCPServer) string {
	b := make([]byte, 0, 128)
	str := func(v string) {
		b = strconv.AppendInt(b, int64(len(v)), 10)
		b = append(b, ':')
		b = append(b, v...)
	}
	strs := func(vs []string) {
		b = strconv.AppendInt(b, int64(len(vs)), 10)
		b = append(b, '#')
		for _, v := range vs {
			str(v)
		}
	}
	pairs := func(m map[string]string) {
		b = strconv.AppendInt(b, int64(len(m)), 10)
		b = append(b, '=')
		if len(m) == 0 {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			str(k)
			str(m[k])
		}
	}
	str(string(d))
	str(name)
	str(s.Command)
	strs(s.Args)
	pairs(s.Env)
	str(s.URL)
	pairs(s.Headers)
	return string(b)
}

// skillInfo is what can be known about a skill independently of any agent.
type skillInfo struct {
	vars   []string // variable names the content uses, in order
	rels   []string // sibling files, sorted, SKILL.md excluded
	relErr error    // first unsafe sibling path, if any
	badRel string
}

type rendered struct {
	content []byte
	missing []string
}

func (sh *shared) skill(ref string, s *schema.Skill) *skillInfo {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if in, ok := sh.info[ref]; ok {
		return in
	}
	in := &skillInfo{}
	_, in.vars = fillVars(s.Content, nil)
	for rel := range s.Files {
		if rel == "SKILL.md" {
			continue // generated from Content
		}
		in.rels = append(in.rels, rel)
	}
	sort.Strings(in.rels)
	for _, rel := range in.rels {
		// Judge the sibling's own path: "a/../../x" must be refused even
		// if, joined under the skill directory, it would stay inside.
		if err := checkRel(rel); err != nil {
			in.relErr, in.badRel = err, rel
			break
		}
	}
	sh.info[ref] = in
	return in
}

// file returns the cached rendering of (kind, ref) for the values vars
// gives to the skill's variables, calling build on a miss.
func (sh *shared) file(kind, ref string, in *skillInfo, vars map[string]string, build func() rendered) rendered {
	var k strings.Builder
	k.WriteString(kind)
	k.WriteByte(0)
	k.WriteString(ref)
	for _, name := range in.vars {
		k.WriteByte(0)
		if v, ok := vars[name]; ok {
			k.WriteByte(1)
			k.WriteString(v)
		}
	}
	key := k.String()
	sh.mu.Lock()
	r, ok := sh.files[key]
	sh.mu.Unlock()
	if ok {
		return r
	}
	r = build()
	sh.mu.Lock()
	sh.files[key] = r
	sh.mu.Unlock()
	return r
}
