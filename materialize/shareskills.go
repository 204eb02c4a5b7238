package materialize

import (
	"bytes"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/actctl/actctl/schema"
)

// Several tools read one skill directory: .agents/skills is Codex's,
// Antigravity's and OpenCode's own and Gemini CLI, Cursor and Pi read it
// too; Cursor, Copilot, OpenCode and Goose also read .claude/skills (the
// backends' files.skills.reads, docs/formats.md "Shared skill
// directories"). Two agents in one directory would each write a skill the
// other's tool then sees a second time, or both own the same file. So a
// skill that another agent in the same directory writes, byte for byte the
// same, into a directory this agent's tool reads is not written again:
// every reader of that directory gets the one copy.

// skillCopy is one agent's files of one skill directory.
type skillCopy struct {
	dir     string // <skills dir>/<name>
	entries []int  // indexes into the target's Entries
}

// shareSkills drops, from the targets (in name order) that share a
// directory, the skill copies that another agent there writes, byte for
// byte the same, into a directory their tool reads: for each skill, the
// copies kept are chosen directory by directory, the one the most agents
// still without it read first, so each reader gets one copy where the
// layouts allow (a tool that reads only its own directory keeps its
// copy). The agent that keeps a copy owns it. Copies that differ (other
// vars) are never merged; an agent whose tool reads another's different
// copy is warned: it sees the skill twice.
func shareSkills(cfg *schema.Config, targets []*Target) schema.Diagnostics {
	var diags schema.Diagnostics
	for _, group := range sameDirGroups(targets, filepath.Join(cfg.Home, "instances")) {
		copies := make([]map[string]skillCopy, len(group))
		names := map[string]bool{}
		for i, t := range group {
			copies[i] = skillCopies(t)
			for n := range copies[i] {
				names[n] = true
			}
		}
		drop := make([]map[int]bool, len(group))
		for _, name := range slices.Sorted(maps.Keys(names)) {
			kept := map[int]bool{}
			for _, part := range sameCopies(group, copies, name) {
				for _, i := range part {
					kept[i] = false
				}
				for _, i := range keepCopies(group, copies, name, part) {
					kept[i] = true
				}
			}
			for i, k := range kept {
				if k {
					continue
				}
				if drop[i] == nil {
					drop[i] = map[int]bool{}
				}
				for _, e := range copies[i][name].entries {
					drop[i][e] = true
				}
			}
			diags = append(diags, twiceWarnings(cfg, group, copies, name, kept)...)
		}
		for i, t := range group {
			if len(drop[i]) > 0 {
				t.Entries = without(t.Entries, drop[i])
			}
		}
	}
	return diags
}

// without returns entries without the indexes in drop, in order.
func without(entries []Entry, drop map[int]bool) []Entry {
	out := make([]Entry, 0, len(entries)-len(drop))
	for k, e := range entries {
		if !drop[k] {
			out = append(out, e)
		}
	}
	return out
}

// sameCopies partitions the group's agents that have skill name by
// identical copies, in name order.
func sameCopies(group []*Target, copies []map[string]skillCopy, name string) [][]int {
	var parts [][]int
	for i := range group {
		c, ok := copies[i][name]
		if !ok {
			continue
		}
		placed := false
		for p, part := range parts {
			if sameSkill(group[part[0]], copies[part[0]][name], group[i], c) {
				parts[p] = append(part, i)
				placed = true
				break
			}
		}
		if !placed {
			parts = append(parts, []int{i})
		}
	}
	return parts
}

// keepCopies picks, among agents part (identical copies of skill name),
// whose copies to keep: directories in turn, the one read by the most
// agents of part not yet served (then the one fewest served agents read,
// then the first in name order), kept by its first agent; every agent
// reads its own directory, so all are served in the end.
func keepCopies(group []*Target, copies []map[string]skillCopy, name string, part []int) []int {
	served := map[int]bool{}
	var keep []int
	for len(served) < len(part) {
		best, bestNew, bestDup := -1, 0, 0
		for _, i := range part {
			n, dup := readers(group, part, path.Dir(copies[i][name].dir), served)
			if n > bestNew || n == bestNew && n > 0 && dup < bestDup {
				best, bestNew, bestDup = i, n, dup
			}
		}
		keep = append(keep, best)
		d := path.Dir(copies[best][name].dir)
		for _, j := range part {
			if readsDir(group[j], d) {
				served[j] = true
			}
		}
	}
	return keep
}

// readers counts the agents of part whose tool reads dir: those not yet
// served, and those served already.
func readers(group []*Target, part []int, dir string, served map[int]bool) (fresh, dup int) {
	for _, j := range part {
		switch {
		case !readsDir(group[j], dir):
		case served[j]:
			dup++
		default:
			fresh++
		}
	}
	return fresh, dup
}

// twiceWarnings warns each agent whose tool reads a kept copy of skill
// name with other content than its own, and each whose tool reads two or
// more kept copies the same as its own: no one directory is read by every
// tool there (Copilot and Goose read .agents/skills and .claude/skills,
// Codex and Claude Code only one each), so the tool sees the skill twice
// (docs/formats.md, "Shared skill directories").
func twiceWarnings(cfg *schema.Config, group []*Target, copies []map[string]skillCopy, name string, kept map[int]bool) schema.Diagnostics {
	var diags schema.Diagnostics
	warn := func(i int, format string, args ...any) {
		d := cfg.Diag(schema.Path("agents", group[i].Agent), format, args...)
		d.Warning = true
		diags = append(diags, d)
	}
	for i := range group {
		mine, ok := copies[i][name]
		if !ok {
			continue
		}
		var same []string
		other := -1
		for j := range group {
			c := copies[j][name]
			switch {
			case !kept[j] || !readsDir(group[i], path.Dir(c.dir)):
			case !sameSkill(group[i], mine, group[j], c):
				if other < 0 && j != i {
					other = j
				}
			case !slices.Contains(same, path.Dir(c.dir)):
				same = append(same, path.Dir(c.dir))
			}
		}
		if other >= 0 {
			warn(i, "skill %q: agent %q writes it to %s, which agent %q's tool also reads, with other content (vars?): the tool sees the skill twice", name, group[other].Agent, path.Dir(copies[other][name].dir), group[i].Agent)
		}
		if len(same) > 1 {
			warn(i, "skill %q: agent %q's tool reads it in %s, each copy kept for another tool here that reads only its own directory: the tool sees the skill twice", name, group[i].Agent, strings.Join(same, " and "))
		}
	}
	return diags
}

func readsDir(t *Target, dir string) bool {
	for _, d := range t.skillDirs {
		if path.Clean(d) == dir {
			return true
		}
	}
	return false
}

// sameSkill reports whether two copies hold the same files (relative to
// their skill directory), bytes and modes.
func sameSkill(a *Target, ca skillCopy, b *Target, cb skillCopy) bool {
	if len(ca.entries) != len(cb.entries) {
		return false
	}
	files := make(map[string]*Entry, len(cb.entries))
	for _, k := range cb.entries {
		e := &b.Entries[k]
		files[strings.TrimPrefix(e.Path, cb.dir)] = e
	}
	for _, k := range ca.entries {
		e := &a.Entries[k]
		o := files[strings.TrimPrefix(e.Path, ca.dir)]
		if o == nil || o.Exec != e.Exec || !bytes.Equal(o.Content, e.Content) {
			return false
		}
	}
	return true
}

// skillCopies groups a target's skill files by skill name.
func skillCopies(t *Target) map[string]skillCopy {
	out := map[string]skillCopy{}
	for k, e := range t.Entries {
		if e.skill == "" {
			continue
		}
		name := path.Base(e.skill)
		c := out[name]
		c.dir = e.skill
		c.entries = append(c.entries, k)
		out[name] = c
	}
	return out
}

// sameDirGroups returns the targets that share their (real) directory
// with another, grouped by directory, each group in name order.
func sameDirGroups(targets []*Target, instances string) [][]*Target {
	var withSkills []*Target
	for _, t := range targets {
		if len(t.skillDirs) > 0 {
			withSkills = append(withSkills, t)
		}
	}
	if len(withSkills) < 2 {
		return nil
	}
	dirs := realDirs(withSkills, instances)
	byDir := map[string][]*Target{}
	var order []string
	for i, t := range withSkills {
		if byDir[dirs[i]] == nil {
			order = append(order, dirs[i])
		}
		byDir[dirs[i]] = append(byDir[dirs[i]], t)
	}
	var groups [][]*Target
	for _, d := range order {
		if len(byDir[d]) > 1 {
			groups = append(groups, byDir[d])
		}
	}
	return groups
}
