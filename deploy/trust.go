package deploy

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/actctl/actctl/schema"
)

// Trust gates ahead: in a pod or a runner nothing answers a tool's trust
// prompt, and a tool that gates a project behind one ignores what actctl
// writes there (its MCP servers, settings). For the backends whose trust
// lives in a file of the user's home (schema.PreTrustBackends) the
// renderers write it before the agent starts (docs/deploy.md, "Trust
// gates on the targets"); the other backends' agents are warned about at
// validate.

// trustScript is the script that trusts ahead the directories of the
// agents rs that target's renderer pre-trusts (schema.PreTrusted), each
// as dirOf gives it (a double-quoted shell word: "$ACTANT_HOME/..."
// expands), one backend after the other; "" for none.
func trustScript(cfg *schema.Config, target string, rs []*schema.Resolved, dirOf func(*schema.Resolved) string) string {
	dirs := map[string][]string{}
	for _, r := range rs {
		if cfg.PreTrusted(r.Name, target) {
			dirs[r.BackendName] = append(dirs[r.BackendName], dirOf(r))
		}
	}
	var b strings.Builder
	for _, backend := range schema.PreTrustBackends {
		if len(dirs[backend]) > 0 {
			b.WriteString(trusters[backend](dirs[backend]))
		}
	}
	return b.String()
}

// trusters write, for each backend of schema.PreTrustBackends, the
// script that trusts dirs ahead, once however often it runs.
var trusters = map[string]func(dirs []string) string{
	"codex":  codexTrust,
	"gemini": geminiTrust,
	"pi":     piTrust,
}

// codexTrust marks each of dirs a trusted project in Codex's
// ~/.codex/config.toml ([projects."<dir>"] trust_level = "trusted"):
// without it Codex ignores the .codex/ actctl writes.
func codexTrust(dirs []string) string {
	lines := []string{
		`f="$HOME/.codex/config.toml"`,
		`mkdir -p "$HOME/.codex"`,
		`trust() {`,
		`  h="[projects.\"$1\"]"`,
		`  grep -qxF "$h" "$f" 2>/dev/null || printf '\n%s\ntrust_level = "trusted"\n' "$h" >> "$f"`,
		`}`,
	}
	for _, d := range dirs {
		lines = append(lines, `trust "`+d+`"`)
	}
	return strings.Join(lines, "\n") + "\n"
}

// geminiTrust adds each of dirs as "TRUST_FOLDER" to Gemini CLI's
// ~/.gemini/trustedFolders.json, keeping the folders already there: with
// folder trust on, Gemini CLI ignores an untrusted folder's .gemini/.
func geminiTrust(dirs []string) string {
	return jsonEdit(`process.env.HOME + "/.gemini"`, "trustedFolders.json",
		`for (const p of process.argv.slice(1)) j[p] = "TRUST_FOLDER";`, dirs)
}

// piTrust sets "defaultProjectTrust": "always" in pi's
// ~/.pi/agent/settings.json ($PI_CODING_AGENT_DIR) unless it is set:
// pi --mode rpc, which pi-acp runs, never asks, and without a saved
// decision ignores a project's .pi/. Pi keeps a project's own decision
// in a store of its own, so the setting is the pod's or the runner's
// whole home: every project pi opens there is actctl's.
func piTrust([]string) string {
	return jsonEdit(`process.env.PI_CODING_AGENT_DIR || process.env.HOME + "/.pi/agent"`, "settings.json",
		`if (j.defaultProjectTrust === undefined) j.defaultProjectTrust = "always";`, nil)
}

// jsonEdit is a script that applies edit (JavaScript on the object j,
// its arguments in process.argv) to the JSON file name in the directory
// dir (a JavaScript expression), or to {} when there is none, and
// writes it back: the tools that read these files run on Node.js, so
// node is where they are. No $ or backquote in the single quotes: the
// shell passes the program as written.
func jsonEdit(dir, name, edit string, args []string) string {
	prog := strings.Join([]string{
		`const fs = require("fs"), d = ` + dir + `, f = d + "/` + name + `";`,
		`let j = {};`,
		`try { j = JSON.parse(fs.readFileSync(f, "utf8")); } catch (e) { if (e.code !== "ENOENT") throw e; }`,
		edit,
		`fs.mkdirSync(d, { recursive: true });`,
		`fs.writeFileSync(f, JSON.stringify(j, null, 2) + "\n");`,
	}, "\n")
	line := "node -e '" + prog + "'"
	for _, a := range args {
		line += ` "` + a + `"`
	}
	return line + "\n"
}

// podDir is agent r's directory in a pod: its instance under the pod's
// $ACTANT_HOME, or the clone (a project agent at the workspace's root).
func podDir(cfg *schema.Config, r *schema.Resolved) string {
	if rel, err := filepath.Rel(cfg.Root, r.Dir); err == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		return path.Join(WorkspaceDir, filepath.ToSlash(rel))
	}
	return actantHome + "/instances/" + r.Name
}
