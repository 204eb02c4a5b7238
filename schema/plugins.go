package schema

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Plugin is one session plugin (docs/plugins.md): a step of the inbound
// chain (the prompt, before the agent) or the outbound one (the agent's
// messages, before the client) of the ACP sessions actctl carries.
type Plugin struct {
	// Kind is PluginAgent, PluginCommand, PluginPrefix, PluginSuffix or
	// PluginRedact.
	Kind string `json:"kind"`
	// On is OnInbound, OnOutbound or OnBoth ("": the kind's, Direction).
	On string `json:"on,omitempty"`
	// Agent, Prompt, Inject, Preset: kind agent.
	Agent  string `json:"agent,omitempty"`
	Prompt string `json:"prompt,omitempty"`
	Inject string `json:"inject,omitempty"`
	Preset string `json:"preset,omitempty"`
	// Command, Args, Env: kind command.
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Text: kinds prefix and suffix.
	Text string `json:"text,omitempty"`
	// Patterns, Replacement: kind redact.
	Patterns    []string `json:"patterns,omitempty"`
	Replacement string   `json:"replacement,omitempty"`
	// The bounds (Bounds gives them with their defaults).
	Timeout       string `json:"timeout,omitempty"`
	Retries       int    `json:"retries,omitempty"`
	Budget        int    `json:"budget,omitempty"`
	SessionBudget int    `json:"sessionBudget,omitempty"`
	OnError       string `json:"onError,omitempty"`
	Stream        string `json:"stream,omitempty"`
}

// The kinds of plugin.
const (
	PluginAgent   = "agent"
	PluginCommand = "command"
	PluginPrefix  = "prefix"
	PluginSuffix  = "suffix"
	PluginRedact  = "redact"
)

// The chains a plugin joins (Plugin.On).
const (
	OnInbound  = "inbound"
	OnOutbound = "outbound"
	OnBoth     = "both"
)

// The plugin's answers to a failure (Plugin.OnError) and its ways of
// taking the agent's messages (Plugin.Stream).
const (
	OnErrorPass   = "pass"
	OnErrorFail   = "fail"
	StreamChunk   = "chunk"
	StreamMessage = "message"
	// InjectReplace and InjectContext: what an inbound agent plugin's
	// reply does to the prompt.
	InjectReplace = "replace"
	InjectContext = "context"
)

// Direction is the chain the plugin joins, its kind's default applied:
// redact both, the others inbound.
func (p Plugin) Direction() string {
	switch {
	case p.On != "":
		return p.On
	case p.Kind == PluginRedact:
		return OnBoth
	}
	return OnInbound
}

// Inbound and Outbound report whether the plugin is on that chain.
func (p Plugin) Inbound() bool  { return p.Direction() != OnOutbound }
func (p Plugin) Outbound() bool { return p.Direction() != OnInbound }

// Builtin reports whether the plugin runs inside actctl (prefix, suffix,
// redact): no process, no budget by default.
func (p Plugin) Builtin() bool { return p.Kind != PluginAgent && p.Kind != PluginCommand }

// Bounds are a plugin's bounds with the defaults applied
// (docs/plugins.md, "Bounds").
type Bounds struct {
	Timeout       time.Duration
	Retries       int
	Budget        int // calls per turn; 0: none
	SessionBudget int // sub-agent turns per session; 0: none
	Fail          bool
	Stream        string
	Inject        string
	Preset        string
}

// DefaultPluginBudget is the calls per turn of an agent or command
// plugin that sets no budget.
const DefaultPluginBudget = 32

// Bounds are p's bounds with the defaults applied; p is valid.
func (p Plugin) Bounds() Bounds {
	b := Bounds{Timeout: 30 * time.Second, Retries: p.Retries, Budget: p.Budget, SessionBudget: p.SessionBudget,
		Fail: p.OnError == OnErrorFail, Stream: p.Stream, Inject: p.Inject, Preset: p.Preset}
	if p.Kind == PluginAgent {
		b.Timeout = 2 * time.Minute
	}
	if d, err := time.ParseDuration(p.Timeout); err == nil && d > 0 {
		b.Timeout = d
	}
	if b.Budget == 0 && !p.Builtin() {
		b.Budget = DefaultPluginBudget
	}
	if b.Stream == "" {
		b.Stream = StreamChunk
		if p.Kind == PluginAgent {
			b.Stream = StreamMessage
		}
	}
	if b.Inject == "" {
		b.Inject = InjectReplace
	}
	if b.Preset == "" {
		b.Preset = PresetReadonly
	}
	return b
}

// PluginsOf are agent r's plugins, in order: its template's, else its
// archetype's.
func PluginsOf(r *Resolved) []string {
	if r.Template.Plugins != nil {
		return *r.Template.Plugins
	}
	return r.Archetype.Plugins
}

// pluginFields are the fields only some kinds take, with those kinds.
var pluginFields = []struct {
	name  string
	kinds []string
	set   func(Plugin) bool
}{
	{"agent", []string{PluginAgent}, func(p Plugin) bool { return p.Agent != "" }},
	{"prompt", []string{PluginAgent}, func(p Plugin) bool { return p.Prompt != "" }},
	{"inject", []string{PluginAgent}, func(p Plugin) bool { return p.Inject != "" }},
	{"preset", []string{PluginAgent}, func(p Plugin) bool { return p.Preset != "" }},
	{"sessionBudget", []string{PluginAgent}, func(p Plugin) bool { return p.SessionBudget != 0 }},
	{"command", []string{PluginCommand}, func(p Plugin) bool { return p.Command != "" }},
	{"args", []string{PluginCommand}, func(p Plugin) bool { return p.Args != nil }},
	{"env", []string{PluginCommand}, func(p Plugin) bool { return p.Env != nil }},
	{"text", []string{PluginPrefix, PluginSuffix}, func(p Plugin) bool { return p.Text != "" }},
	{"patterns", []string{PluginRedact}, func(p Plugin) bool { return p.Patterns != nil }},
	{"replacement", []string{PluginRedact}, func(p Plugin) bool { return p.Replacement != "" }},
}

// validatePlugins checks the plugins (what CUE cannot: the fields of
// each kind, the patterns, the agents they name) and the lists of the
// templates and archetypes.
func (c *Config) validatePlugins() Diagnostics {
	var ds Diagnostics
	for _, name := range slices.Sorted(maps.Keys(c.Plugins)) {
		if msg := CheckName(name); msg != "" {
			ds = append(ds, c.Diag(Path("plugins", name), "%s", msg))
		}
		ds = append(ds, c.validatePlugin(name, c.Plugins[name])...)
	}
	for _, name := range slices.Sorted(maps.Keys(c.Archetypes)) {
		ds = append(ds, c.checkPluginList(Path("archetypes", name, "plugins"), c.Archetypes[name].Plugins)...)
	}
	for _, name := range localKeys(c.Templates) {
		if l := c.Templates[name].Plugins; l != nil {
			ds = append(ds, c.checkPluginList(Path("templates", name, "plugins"), *l)...)
		}
	}
	return ds
}

// validatePlugin checks plugin name's fields against its kind, its
// chains, its patterns and the agent it asks.
func (c *Config) validatePlugin(name string, p Plugin) Diagnostics {
	ds := c.checkPluginKind(name, p)
	ds = append(ds, c.checkPluginChains(name, p)...)
	for i, pat := range p.Patterns {
		if _, err := regexp.Compile(pat); err != nil {
			ds = append(ds, c.Diag(Path("plugins", name, "patterns")+fmt.Sprintf("[%d]", i), "pattern %q: %v", pat, err))
		}
	}
	if p.Kind == PluginAgent && p.Agent != "" {
		ds = append(ds, c.checkPluginAgent(name, p.Agent)...)
	}
	return ds
}

// checkPluginKind checks that plugin name has the fields of its kind
// and none of another's.
func (c *Config) checkPluginKind(name string, p Plugin) Diagnostics {
	var ds Diagnostics
	for _, f := range pluginFields {
		if f.set(p) && !slices.Contains(f.kinds, p.Kind) {
			ds = append(ds, c.Diag(Path("plugins", name, f.name), "%s is for a plugin of kind %s, not %s", f.name, strings.Join(f.kinds, " or "), p.Kind))
		}
	}
	if need, missing := pluginNeeds(p); missing {
		ds = append(ds, c.Diag(Path("plugins", name), "a plugin of kind %s needs %s", p.Kind, need))
	}
	return ds
}

// checkPluginChains checks the fields that depend on the chains plugin
// name joins, and its timeout.
func (c *Config) checkPluginChains(name string, p Plugin) Diagnostics {
	var ds Diagnostics
	at := func(field string) string { return Path("plugins", name, field) }
	if (p.Kind == PluginPrefix || p.Kind == PluginSuffix) && p.Direction() != OnInbound {
		ds = append(ds, c.Diag(at("on"), "%s adds text to the prompt: it is inbound only", p.Kind))
	}
	if p.Inject != "" && p.Direction() != OnInbound {
		ds = append(ds, c.Diag(at("inject"), "inject is how an inbound reply joins the prompt: set on: \"inbound\""))
	}
	if p.Stream != "" && !p.Outbound() {
		ds = append(ds, c.Diag(at("stream"), "stream is how the agent's messages are taken: the plugin is not outbound"))
	}
	if p.Timeout != "" {
		if d, err := time.ParseDuration(p.Timeout); err != nil || d <= 0 {
			ds = append(ds, c.Diag(at("timeout"), "timeout %q: want a positive duration such as \"30s\"", p.Timeout))
		}
	}
	return ds
}

// pluginNeeds is the field p's kind requires, and whether p lacks it.
func pluginNeeds(p Plugin) (field string, missing bool) {
	switch p.Kind {
	case PluginAgent:
		return "agent", p.Agent == ""
	case PluginCommand:
		return "command", p.Command == ""
	case PluginPrefix, PluginSuffix:
		return "text", p.Text == ""
	case PluginRedact:
		return "patterns", len(p.Patterns) == 0
	}
	return "", false
}

// checkPluginAgent checks that the agent plugin name asks (an agent or a
// template of the workspace) exists and does not run plugin name itself:
// a sub-agent runs without plugins, but a plugin that names its own
// agent is a loop in the config.
func (c *Config) checkPluginAgent(name, agent string) Diagnostics {
	at := Path("plugins", name, "agent")
	var plugins []string
	if _, ok := c.Agents[agent]; ok {
		if r, err := c.Resolve(agent); err == nil {
			plugins = PluginsOf(r)
		}
	} else if t, ok := c.Templates[agent]; ok {
		plugins = c.Archetypes[t.Archetype].Plugins
		if t.Plugins != nil {
			plugins = *t.Plugins
		}
	} else {
		known := slices.Concat(slices.Sorted(maps.Keys(c.Agents)), localKeys(c.Templates))
		msg := fmt.Sprintf("unknown agent or template %q", agent)
		if s := suggest(agent, known); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return Diagnostics{c.Diag(at, "%s", msg)}
	}
	if slices.Contains(plugins, name) {
		return Diagnostics{c.Diag(at, "plugin %q asks %q, whose own plugins include %q: it would ask itself; use another agent or template", name, agent, name)}
	}
	return nil
}

// checkPluginList checks that a template's or archetype's plugins are
// declared, each once.
func (c *Config) checkPluginList(path string, names []string) Diagnostics {
	var ds Diagnostics
	for i, n := range names {
		at := path + fmt.Sprintf("[%d]", i)
		if slices.Contains(names[:i], n) {
			ds = append(ds, c.Diag(at, "plugin %q is listed twice", n))
			continue
		}
		if IsHubRef(n) {
			ds = append(ds, c.Diag(at, "plugin %q: hub sources carry no plugins; declare it under plugins", n))
			continue
		}
		if d, ok := checkRef(c, at, "plugin", n, c.Plugins); !ok {
			ds = append(ds, d)
		}
	}
	return ds
}
