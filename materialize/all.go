package materialize

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/actctl/actctl/internal/par"
	"github.com/actctl/actctl/schema"
)

// RenderAll resolves and renders every declared agent, in name order, and
// checks that no two agents claim the same thing on disk (README, "A tour of
// the config": no two agents own the same file; two blocks in one shared file
// are fine). Agents that fail to resolve or render are reported as positioned
// diagnostics at agents.<name> and left out of the result; target warnings are
// returned as warning diagnostics too, so `actctl validate` shows them.
func RenderAll(cfg *schema.Config, o Options) ([]*Target, schema.Diagnostics) {
	return RenderAgents(cfg, slices.Sorted(maps.Keys(cfg.Agents)), o)
}

// RenderAgents is RenderAll for the declared agents names (sorted) only:
// the checks between agents see only these (reconcile.Options.Scoped
// passes an agent and those in its directory).
func RenderAgents(cfg *schema.Config, names []string, o Options) ([]*Target, schema.Diagnostics) {

	// Agents render independently (the shared cache is concurrency-safe),
	// so spread them over the available cores; results keep name order.
	type result struct {
		t   *Target
		err error
	}
	results := make([]result, len(names))
	sh := newShared()
	par.For(len(names), par.CPU(), func(i int) {
		r, err := cfg.Resolve(names[i])
		if err != nil {
			results[i].err = err
			return
		}
		results[i].t, results[i].err = renderWith(cfg, r, o, sh)
	})

	var diags schema.Diagnostics
	targets := make([]*Target, 0, len(names))
	for i, n := range names {
		res := results[i]
		if res.err == nil && len(res.t.Warnings) == 0 {
			targets = append(targets, res.t)
			continue
		}
		// Config.Pos is costly (it parses the CUE path); look it up once
		// per agent, and only for agents with something to say.
		at := schema.Path("agents", n)
		pos := cfg.Pos(at)
		if res.err != nil {
			diags = append(diags, schema.Diagnostic{Pos: pos, Path: at, Message: res.err.Error()})
			continue
		}
		for _, w := range res.t.Warnings {
			diags = append(diags, schema.Diagnostic{Pos: pos, Path: at, Message: w, Warning: true})
		}
		targets = append(targets, res.t)
	}
	diags = append(diags, shareSkills(cfg, targets)...)
	diags = append(diags, checkOwnership(cfg, targets)...)
	diags = append(diags, checkProtected(cfg, targets)...)
	diags = append(diags, sharedInstructions(cfg, targets)...)
	return targets, diags
}

// checkProtected reports every entry that lands on a file of the
// workspace that no agent may write (schema.ProtectedInWorkspace: the
// config, its modules, actctl's own files, .git/), whatever the agent's
// workDir. Backend layouts are checked on their own when the config is
// validated; this catches a workDir that carries them there (cue.mod, the
// root's parent). An agent below the root is judged by its directory
// alone, so the usual layouts cost one check per agent.
func checkProtected(cfg *schema.Config, targets []*Target) schema.Diagnostics {
	var diags schema.Diagnostics
	if cfg.Root == "" {
		return nil
	}
	root := filepath.Clean(cfg.Root)
	for _, t := range targets {
		dir := filepath.Clean(t.Dir)
		report := func(p, why string) {
			diags = append(diags, cfg.Diag(schema.Path("agents", t.Agent), "%s: agent %q may not write there: %s", p, t.Agent, why))
		}
		base, err := filepath.Rel(root, dir)
		switch {
		case err != nil:
		case schema.Within(root, dir) && base != ".":
			if why := schema.ProtectedDir(filepath.ToSlash(base)); why != "" {
				report(dir, why)
			}
		case schema.Within(dir, root):
			for _, e := range t.Entries {
				// An entry path is clean and relative (Entry.Path): below
				// the root itself it is its own path from the root.
				rel := filepath.FromSlash(e.Path)
				if dir != root {
					var err error
					rel, err = filepath.Rel(root, filepath.Join(dir, rel))
					if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
						continue
					}
				}
				if why := schema.ProtectedInWorkspace(filepath.ToSlash(rel)); why != "" {
					report(filepath.Join(root, rel), why)
				}
			}
		}
	}
	return diags
}

// claim is one agent's hold on an absolute path.
type claim struct {
	agent  string
	mode   Mode
	format string
}

// fileClaims is everything claimed at one absolute path.
type fileClaims struct {
	claims []claim
	// keys maps a joined key path to the agent owning it; interior holds
	// every proper prefix of an owned key, so that an agent owning
	// "permissions" and another owning "permissions.allow" collide.
	keys     map[string]string
	interior map[string]string
}

// checkOwnership reports, at the later agent in name order, every path two
// agents both want in incompatible ways: a file owned by two agents, a
// path that is a whole file for one and a block/keys file for another, a
// text (block) file that another agent treats as structured (keys), and
// the same (or an overlapping) key in the same file. Paths are compared
// absolute and with symlinks resolved, so agents with different workDirs
// that meet in one directory (one a symlink to the other's, or a path
// into it) are caught too.
func checkOwnership(cfg *schema.Config, targets []*Target) schema.Diagnostics {
	var diags schema.Diagnostics
	targets, dirs := overlapping(targets, realDirs(targets, filepath.Join(cfg.Home, "instances")))
	diags = append(diags, aliasedDirs(cfg, targets, dirs)...)
	n := 0
	for _, t := range targets {
		n += len(t.Entries)
	}
	byAbs := make(map[string]*fileClaims, n)
	dirOf := make(map[string]string, len(targets))
	for ti, t := range targets {
		dirOf[t.Agent] = dirs[ti]
	}
	// One allocation for all claim records; most paths are claimed once.
	pool := make([]fileClaims, 0, n)
	for ti, t := range targets {
		// Entry paths are checked clean and relative, so plain
		// concatenation equals filepath.Join and avoids re-cleaning 40k paths.
		dir := dirs[ti]
		reported := map[string]bool{}
		var others []string // agents t collides with, in the order met
		report := func(abs, other, format string, args ...any) {
			msg := fmt.Sprintf(format, args...)
			if reported[abs+msg] {
				return
			}
			reported[abs+msg] = true
			if !slices.Contains(others, other) {
				others = append(others, other)
				if dirOf[other] == dir {
					msg += "; " + shareHint(cfg, other, t.Agent)
				}
			}
			if real := strings.TrimSuffix(dir, string(filepath.Separator)); real != filepath.Clean(t.Dir) {
				msg += fmt.Sprintf(" (workDir %s is %s)", t.Dir, real)
			}
			diags = append(diags, cfg.Diag(schema.Path("agents", t.Agent), "%s", msg))
		}
		for _, e := range t.Entries {
			abs := dir + filepath.FromSlash(e.Path)
			fc := byAbs[abs]
			if fc == nil {
				pool = append(pool, fileClaims{})
				fc = &pool[len(pool)-1]
				byAbs[abs] = fc
			}
			for _, c := range fc.claims {
				if c.agent == t.Agent {
					continue
				}
				if msg := incompatible(c, e); msg != "" {
					report(abs, c.agent, "%s: %s (agent %q %s it)", abs, msg, c.agent, verb(c.mode))
				}
			}
			if e.Mode == ModeKeys {
				if fc.keys == nil {
					fc.keys, fc.interior = map[string]string{}, map[string]string{}
				}
				for _, k := range e.Keys {
					j := strings.Join(k.Path, "\x00")
					if other, ok := fc.keys[j]; ok && other != t.Agent {
						report(abs, other, "%s: key %s is also managed by agent %q", abs, dotted(k.Path), other)
					} else if other, ok := fc.interior[j]; ok && other != t.Agent {
						report(abs, other, "%s: key %s contains keys managed by agent %q", abs, dotted(k.Path), other)
					} else {
						for i := len(k.Path) - 1; i > 0; i-- {
							pj := strings.Join(k.Path[:i], "\x00")
							if other, ok := fc.keys[pj]; ok && other != t.Agent {
								report(abs, other, "%s: key %s is inside key %s managed by agent %q", abs, dotted(k.Path), dotted(k.Path[:i]), other)
								break
							}
						}
					}
				}
				for _, k := range e.Keys {
					j := strings.Join(k.Path, "\x00")
					if _, ok := fc.keys[j]; !ok {
						fc.keys[j] = t.Agent
					}
					for i := len(k.Path) - 1; i > 0; i-- {
						pj := strings.Join(k.Path[:i], "\x00")
						if _, ok := fc.interior[pj]; !ok {
							fc.interior[pj] = t.Agent
						}
					}
				}
			}
			fc.claims = append(fc.claims, claim{agent: t.Agent, mode: e.Mode, format: e.Format})
		}
	}
	return diags
}

// shareHint says, once per pair of agents whose files collide, the two
// ways to have both (README, "Two agents in one directory"): a workDir of
// its own for the later one, or the later one's template rendered as a
// sub-agent of the earlier one's, which keeps its own permissions where
// the tool's sub-agent format holds them.
func shareHint(cfg *schema.Config, first, second string) string {
	tmpl := func(agent string) string {
		if a, ok := cfg.Agents[agent]; ok && a.Template != "" {
			return a.Template
		}
		return agent
	}
	return fmt.Sprintf("agents %q and %q share this directory and its files: give %q a workDir of its own (agents.%s.workDir), or keep one agent and make the other a sub-agent (templates.%s.subAgents: [%q], with its own permissions)",
		first, second, second, second, tmpl(first), tmpl(second))
}

// realDirs returns each target's directory, cleaned, with symlinks
// resolved and a trailing separator: two workDirs naming one directory
// (a symlink to another agent's workDir, a path through one) compare
// equal. A directory that does not exist yet is resolved through its
// deepest existing ancestor. Ancestors are resolved once for all targets,
// and the instance directories actctl makes itself below instances (no
// workDir names them) are not looked up one by one: the check costs a few
// lstats, plus one per project agent.
func realDirs(targets []*Target, instances string) []string {
	sep := string(filepath.Separator)
	memo := map[string]realDir{}
	out := make([]string, len(targets))
	for i, t := range targets {
		d := filepath.Clean(t.Dir)
		if parent := filepath.Dir(d); parent == instances {
			d = filepath.Join(realPath(parent, memo), filepath.Base(d))
		} else {
			d = realPath(d, memo)
		}
		if !strings.HasSuffix(d, sep) {
			d += sep
		}
		out[i] = d
	}
	return out
}

// realDir is a resolved path and whether it exists.
type realDir struct {
	path   string
	exists bool
}

// realPath resolves the symlinks of the clean absolute path p, as far as
// it exists (below a missing directory nothing is looked up).
func realPath(p string, memo map[string]realDir) string {
	return realPathDir(p, memo).path
}

func realPathDir(p string, memo map[string]realDir) realDir {
	if r, ok := memo[p]; ok {
		return r
	}
	r := realDir{path: p, exists: true}
	if parent := filepath.Dir(p); parent != p {
		pr := realPathDir(parent, memo)
		r = realDir{path: filepath.Join(pr.path, filepath.Base(p))}
		if pr.exists {
			fi, err := os.Lstat(r.path)
			r.exists = err == nil
			if r.exists && fi.Mode()&os.ModeSymlink != 0 {
				if e, err := filepath.EvalSymlinks(r.path); err == nil {
					r.path = e
				}
			}
		}
	}
	memo[p] = r
	return r
}

// overlapping returns the targets whose directory (dirs[i], from
// realDirs) equals, contains or lies inside another target's directory,
// with their directories. Entry paths are clean and relative, so a target
// in a directory tree nobody else touches cannot collide with anyone;
// skipping those keeps the check cheap for the common layout of one
// instance directory per agent.
func overlapping(targets []*Target, dirs []string) ([]*Target, []string) {
	type dirT struct {
		dir string // cleaned, with a trailing separator
		i   int
	}
	ds := make([]dirT, len(targets))
	for i := range targets {
		ds[i] = dirT{dirs[i], i}
	}
	// With trailing separators, a directory sorts right before the
	// directories inside it, so ancestors form a stack while scanning.
	sort.Slice(ds, func(a, b int) bool { return ds[a].dir < ds[b].dir })
	related := make([]bool, len(targets))
	var stack []dirT
	for _, d := range ds {
		for len(stack) > 0 && !strings.HasPrefix(d.dir, stack[len(stack)-1].dir) {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			related[d.i] = true
			for _, a := range stack {
				related[a.i] = true
			}
		}
		stack = append(stack, d)
	}
	var out []*Target
	var outDirs []string
	for i, t := range targets {
		if related[i] {
			out = append(out, t)
			outDirs = append(outDirs, dirs[i])
		}
	}
	return out, outDirs
}

// incompatible explains why entry e cannot coexist with an earlier claim
// by another agent, or returns "" when it can.
func incompatible(c claim, e Entry) string {
	switch {
	case c.mode == ModeFile && e.Mode == ModeFile:
		return "file is owned by two agents"
	case c.mode == ModeFile || e.Mode == ModeFile:
		return fmt.Sprintf("wanted as a %s but another agent owns the whole file", e.Mode)
	case c.mode == ModeDir && e.Mode == ModeDir:
		return "" // both just want the directory to exist
	case c.mode == ModeDir || e.Mode == ModeDir:
		return fmt.Sprintf("wanted as a %s but another agent wants a directory there", e.Mode)
	case c.mode != e.Mode:
		return fmt.Sprintf("wanted as %s but another agent manages it as %s", e.Mode, c.mode)
	case e.Mode == ModeKeys && c.format != e.Format:
		return fmt.Sprintf("read as %s but another agent writes it as %s", e.Format, c.format)
	}
	return "" // blocks share a file; keys are compared one by one
}

func verb(m Mode) string {
	switch m {
	case ModeFile:
		return "owns"
	case ModeDir:
		return "creates"
	case ModeBlock:
		return "has a block in"
	default:
		return "manages keys in"
	}
}

// aliasedDirs reports agents whose workDir names another agent's
// directory under another name (a symlink to it, or a path through one).
// Agents may share a directory, but only under one name: the plan keys
// files by path, and two names for one file would each be written as if
// the other did not exist. dirs are targets' real directories.
func aliasedDirs(cfg *schema.Config, targets []*Target, dirs []string) schema.Diagnostics {
	var diags schema.Diagnostics
	first := map[string]*Target{}
	for i, t := range targets {
		o := first[dirs[i]]
		if o == nil {
			first[dirs[i]] = t
			continue
		}
		if filepath.Clean(o.Dir) != filepath.Clean(t.Dir) {
			real := strings.TrimSuffix(dirs[i], string(filepath.Separator))
			diags = append(diags, cfg.Diag(schema.Path("agents", t.Agent), "workDir %s is %s, agent %s's workDir %s under another name: give both the same path", t.Dir, real, o.Agent, o.Dir))
		}
	}
	return diags
}
