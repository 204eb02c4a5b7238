package materialize

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/actctl/actctl/schema"
)

// Claude Code permission modes (code.claude.com/docs/en/permission-modes).
// They double as actctl's ACP mode vocabulary (docs/run.md, "Session mode").
const (
	claudeDefault     = "default"
	claudeAcceptEdits = "acceptEdits"
	claudePlan        = "plan"
	claudeBypass      = "bypassPermissions"
	claudeDontAsk     = "dontAsk"
	claudeAuto        = "auto"
)

// presetMode maps each permission preset onto an ACP/Claude permission mode
// (README, "What apply writes", the presets table).
var presetMode = map[string]string{
	schema.PresetReadonly:   claudePlan,
	schema.PresetRestricted: claudeDefault,
	schema.PresetStandard:   claudeAcceptEdits,
	schema.PresetPermissive: claudeBypass,
}

// codexPolicy is what a permission mode means for Codex.
type codexPolicy struct {
	Sandbox  string // sandbox_mode
	Approval string // approval_policy
	Network  bool   // sandbox_workspace_write.network_access (workspace-write only)
}

// codexByMode maps a mode onto Codex settings (the README's presets table; seed
// 001 for the sandbox/network pairs). dontAsk and auto have no Codex
// equivalent and are approximated: dontAsk never prompts and stays
// read-only, auto behaves like acceptEdits (Codex has no safety
// classifier). danger-full-access is deliberately absent: no preset or
// mode may produce it; only an explicit backend setting can.
var codexByMode = map[string]codexPolicy{
	claudePlan:        {Sandbox: "read-only", Approval: "on-request"},
	claudeDefault:     {Sandbox: "read-only", Approval: "on-request"},
	claudeAcceptEdits: {Sandbox: "workspace-write", Approval: "on-request"},
	claudeAuto:        {Sandbox: "workspace-write", Approval: "on-request"},
	claudeBypass:      {Sandbox: "workspace-write", Approval: "never", Network: true},
	claudeDontAsk:     {Sandbox: "read-only", Approval: "never"},
}

// geminiByMode maps a mode onto Gemini CLI's general.defaultApprovalMode
// ("default" prompts, "auto_edit" approves edit tools, "plan" is
// read-only; geminicli.com/docs/reference/configuration). Gemini CLI
// refuses YOLO from settings (only --yolo on its command line), so
// bypassPermissions is approximated by auto_edit, with a warning; dontAsk
// (never prompt, deny what is not pre-approved) by read-only plan.
var geminiByMode = map[string]struct {
	mode   string
	approx bool
}{
	claudePlan:        {"plan", false},
	claudeDefault:     {"default", false},
	claudeAcceptEdits: {"auto_edit", false},
	claudeAuto:        {"auto_edit", true},
	claudeBypass:      {"auto_edit", true},
	claudeDontAsk:     {"plan", true},
}

// openCodeByMode maps a mode onto OpenCode's permission actions for its
// edit, bash and webfetch tools (opencode.ai/docs/permissions: "allow",
// "ask" or "deny"). OpenCode has no classifier: auto is approximated by
// acceptEdits.
var openCodeByMode = map[string]struct {
	edit, bash, webfetch string
	approx               bool
}{
	claudePlan:        {"deny", "ask", "ask", false},
	claudeDefault:     {"ask", "ask", "ask", false},
	claudeAcceptEdits: {"allow", "ask", "ask", false},
	claudeAuto:        {"allow", "ask", "ask", true},
	claudeBypass:      {"allow", "allow", "allow", false},
	claudeDontAsk:     {"deny", "deny", "deny", false},
}

// effectiveMode is the permission mode of p: its explicit defaultMode, else
// its preset's mode; "" when neither is set (explicit rules only).
func effectiveMode(p schema.Permissions) (string, error) {
	mode := ""
	if p.Preset != "" {
		m, ok := presetMode[p.Preset]
		if !ok {
			return "", fmt.Errorf("unknown permission preset %q (want permissive, standard, restricted or readonly)", p.Preset)
		}
		mode = m
	}
	if p.DefaultMode != "" {
		if _, ok := codexByMode[p.DefaultMode]; !ok {
			return "", fmt.Errorf("unknown permission defaultMode %q (want default, acceptEdits, plan, auto, dontAsk or bypassPermissions)", p.DefaultMode)
		}
		mode = p.DefaultMode
	}
	return mode, nil
}

// checkPermFile checks that a permissions file's format is the one its
// dialect's tool reads: TOML for codex, JSON for claude and gemini.
func checkPermFile(f *schema.PermissionsFile) error {
	want := schema.FormatJSON
	if f.Dialect == schema.DialectCodex {
		want = schema.FormatTOML
	}
	if f.Format != want && slices.Contains(permDialects(), strconv.Quote(f.Dialect)) {
		return fmt.Errorf("permissions file %q: dialect %s is written as %s, not %q", f.Path, f.Dialect, want, f.Format)
	}
	return nil
}

// permissionKeys renders p in the given dialect (schema.PermissionsFile)
// for the agent whose workspace is dir. committed says the workspace is a
// project's, whose files a repository may commit: nothing written may then
// depend on dir (docs/formats.md, "codex").
func permissionKeys(dir string, committed bool, dialect string, p schema.Permissions) ([]Key, []string, error) {
	mode, err := effectiveMode(p)
	if err != nil {
		return nil, nil, err
	}
	switch dialect {
	case schema.DialectClaude:
		var keys []Key
		if mode != "" {
			keys = append(keys, key(mode, "permissions", "defaultMode"))
		}
		for _, l := range []struct {
			name  string
			rules []string
		}{{"allow", p.Allow}, {"deny", p.Deny}, {"ask", p.Ask}, {"additionalDirectories", p.AdditionalDirectories}} {
			if len(l.rules) > 0 {
				keys = append(keys, key(l.rules, "permissions", l.name))
			}
		}
		return keys, nil, nil
	case schema.DialectCodex:
		var warns []string // rules: see codexRules
		if mode == "" {
			// Claude Code starts in "default" when no defaultMode is set;
			// give Codex the same meaning.
			mode = claudeDefault
		}
		pol := codexByMode[mode]
		keys := []Key{
			key(pol.Sandbox, "sandbox_mode"),
			key(pol.Approval, "approval_policy"),
		}
		if pol.Sandbox == "workspace-write" {
			keys = append(keys, key(pol.Network, "sandbox_workspace_write", "network_access"))
		}
		k, w := codexWritableRoots(dir, committed, mode, pol, p.AdditionalDirectories)
		return append(keys, k...), append(warns, w...), nil
	case schema.DialectGemini:
		warns := unruled("gemini", "general.defaultApprovalMode", p)
		if mode == "" {
			mode = claudeDefault
		}
		g := geminiByMode[mode]
		if g.approx {
			warns = append(warns, fmt.Sprintf("permission mode %s has no Gemini CLI setting (YOLO only from its command line); approximated by general.defaultApprovalMode %q", mode, g.mode))
		}
		keys := []Key{key(g.mode, "general", "defaultApprovalMode")}
		if len(p.AdditionalDirectories) > 0 {
			// Gemini CLI adds these to its workspace (absolute, relative
			// or ~/; geminicli.com/docs/reference/configuration).
			keys = append(keys, key(p.AdditionalDirectories, "context", "includeDirectories"))
		}
		return keys, warns, nil
	case schema.DialectOpenCode:
		keys, warns := openCodePermissions(dir, committed, mode, p)
		return keys, warns, nil
	}
	if render, ok := rulesOnly[dialect]; ok {
		keys, warns := render(mode, p)
		return keys, warns, nil
	}
	return nil, nil, fmt.Errorf("unknown permissions dialect %q (want %s)", dialect, strings.Join(permDialects(), ", "))
}

// rulesOnly are the permission dialects whose keys depend on the mode and
// the rules alone (not on the agent's directory).
var rulesOnly = map[string]func(mode string, p schema.Permissions) ([]Key, []string){
	schema.DialectCursor: cursorPermissions,
	schema.DialectQwen:   qwenPermissions,
	schema.DialectDevin:  devinPermissions,
	schema.DialectAmp:    ampPermissions,
	schema.DialectVSCode: vscodePermissions,
}

// permDialects are the permission dialects permissionKeys renders, quoted,
// in a stable order (made once: checkPermFile asks for each agent).
var permDialects = sync.OnceValue(func() []string {
	names := []string{schema.DialectClaude, schema.DialectCodex, schema.DialectGemini, schema.DialectOpenCode}
	names = append(names, slices.Sorted(maps.Keys(rulesOnly))...)
	for i, n := range names {
		names[i] = strconv.Quote(n)
	}
	return names
})

// unruled warns about p's allow/deny/ask rules, which the tool cannot
// express.
func unruled(tool, keys string, p schema.Permissions) []string {
	if len(p.Allow)+len(p.Deny)+len(p.Ask) > 0 {
		return []string{fmt.Sprintf("permission rules (allow/deny/ask) cannot be expressed for %s; only the mode is mapped to %s", tool, keys)}
	}
	return nil
}

// codexWritableRoots gives Codex the additional directories as
// sandbox_workspace_write.writable_roots (developers.openai.com/codex
// config reference): absolute paths and "~/" ones (Codex expands them) as
// given. A relative one is resolved from the agent's workspace dir only in
// an instance workspace: in a project one the absolute path would tie the
// committed .codex/config.toml to this machine, and which directory Codex
// resolves a relative entry against is not documented, so it is left to
// the user, with a warning. They only widen the workspace-write sandbox:
// under a read-only mode nothing is written, with a warning.
func codexWritableRoots(dir string, committed bool, mode string, pol codexPolicy, dirs []string) ([]Key, []string) {
	if len(dirs) == 0 {
		return nil, nil
	}
	if pol.Sandbox != "workspace-write" {
		return nil, []string{fmt.Sprintf("permissions.additionalDirectories: codex's sandbox is %s under mode %s, and writable_roots only widen workspace-write; not written", pol.Sandbox, mode)}
	}
	roots, warns := extraDirs(dir, committed, dirs, func(d string) string {
		return fmt.Sprintf("permissions.additionalDirectories: %q is not written to codex's sandbox_workspace_write.writable_roots: Codex takes absolute paths there, and this directory's would tie the committed .codex/config.toml to this machine; give an absolute or ~/ path, or add it to writable_roots in your ~/.codex/config.toml", d)
	})
	if len(roots) == 0 {
		return nil, warns
	}
	return []Key{key(roots, "sandbox_workspace_write", "writable_roots")}, warns
}

// extraDirs gives a tool the additional directories dirs of an agent
// whose workspace is dir: absolute and ~/ paths as given; a relative one
// made absolute from dir in an instance workspace, and in a committed
// project workspace left out with the warning committedWarn(d) says (an
// absolute path would tie the committed file to this machine).
func extraDirs(dir string, committed bool, dirs []string, committedWarn func(string) string) (roots, warns []string) {
	for _, d := range dirs {
		switch {
		case filepath.IsAbs(d) || d == "~" || strings.HasPrefix(d, "~/"):
			roots = append(roots, d)
		case committed:
			warns = append(warns, committedWarn(d))
		default:
			roots = append(roots, filepath.Join(dir, filepath.FromSlash(d)))
		}
	}
	return roots, warns
}
