package deploy

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/actctl/actctl/schema"
)

// codexTrust is a script that marks each of dirs (double-quoted shell
// words: "$ACTANT_HOME/..." expands) a trusted project in Codex's
// ~/.codex/config.toml, once each: in a pod or a runner nothing answers
// Codex's trust prompt, and without it Codex ignores the .codex/ actctl
// writes (docs/deploy.md, "Trust gates on the targets"). "" for none.
func codexTrust(dirs []string) string {
	if len(dirs) == 0 {
		return ""
	}
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

// trustDirs are the directories, as dirOf gives them on target, of the
// agents rs whose trust the renderer answers ahead (schema.PreTrusted).
func trustDirs(cfg *schema.Config, target string, rs []*schema.Resolved, dirOf func(*schema.Resolved) string) []string {
	var dirs []string
	for _, r := range rs {
		if cfg.PreTrusted(r.Name, target) {
			dirs = append(dirs, dirOf(r))
		}
	}
	return dirs
}

// podDir is agent r's directory in a pod: its instance under the pod's
// $ACTANT_HOME, or the clone (a project agent at the workspace's root).
func podDir(cfg *schema.Config, r *schema.Resolved) string {
	if rel, err := filepath.Rel(cfg.Root, r.Dir); err == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		return path.Join(WorkspaceDir, filepath.ToSlash(rel))
	}
	return actantHome + "/instances/" + r.Name
}
