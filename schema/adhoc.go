package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"sort"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/internal/userkey"
)

// Ad-hoc agents are part of the configuration though no file declares
// them: the loader merges them in (MergeAdhoc) once the hub has resolved
// the declared ones, so a caller gets every agent of the workspace.
//
// Because actant.cue does not show them, adhoc.json is trusted only when
// this user's actctl wrote it for this workspace (sealed with the user's
// key, internal/userkey), and even then an agent in it is only one
// actctl itself makes: a copy of a declared agent or a template's agent
// as declared (no other permissions, checkout or vars), in the root, the
// instance area, or a client's project as proxy records it (docs/design.md,
// "What actctl trusts").

// AdhocFile holds the agents that `actctl proxy -t TEMPLATE` created on
// the fly, in the workspace's .actant directory. They are part of the
// workspace like declared agents (loaded with the config, recorded in the
// state, kept by apply) without editing the user's actant.cue.
const AdhocFile = layout.Adhoc

type adhocDoc struct {
	Agents map[string]Agent `json:"agents"`
}

// adhocKind is what the seal of root's adhoc.json is for: the file is
// bound to its workspace.
func adhocKind(root string) string { return "actctl adhoc " + root }

// AdhocAgents reads the ad-hoc agents of the workspace at root, trusted
// with the key of the actctl home home; a file that is not sealed with it
// gives none, and why it was ignored.
func AdhocAgents(root, home string) (agents map[string]Agent, ignored string, err error) {
	return adhocAgents(root, home, nil)
}

// adhocAgents is AdhocAgents where a file tracked says git tracks (a
// path relative to root, nil: none) is ignored too.
func adhocAgents(root, home string, tracked func(rel string) bool) (agents map[string]Agent, ignored string, err error) {
	p := layout.Path(root, AdhocFile)
	b, err := ReadRegular(p, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", layout.NotDir(filepath.Dir(p), fmt.Errorf("read %s: %w", p, err))
	}
	key, _ := userkey.Key(home, false)
	body, _, ok := userkey.UnsealJSON(key, adhocKind(root), b)
	if !ok {
		return nil, p + " is not sealed by this user's actctl (written elsewhere, or by an earlier actctl): its agents are ignored", nil
	}
	if tracked != nil && tracked(layout.Dir+"/"+AdhocFile) {
		return nil, p + " is tracked by git, so it may come from another machine: its agents are ignored (git rm --cached it)", nil
	}
	var d adhocDoc
	if err := json.Unmarshal(body, &d); err != nil {
		return nil, "", fmt.Errorf("read %s: %w", p, err)
	}
	return d.Agents, "", nil
}

// MergeAdhoc adds the workspace's ad-hoc agents to cfg; a declared agent of
// the same name wins. It returns what it ignored and why: the file (not
// sealed by this user, or tracked by git as tracked says: a path relative
// to the root, nil: nothing is), or each agent actctl would not have made
// (adhocRefused).
func MergeAdhoc(cfg *Config, tracked func(rel string) bool) (ignored []string, err error) {
	agents, why, err := adhocAgents(cfg.Root, cfg.Home, tracked)
	if err != nil || why != "" {
		return appendWhy(nil, why), err
	}
	names := make([]string, 0, len(agents))
	for name := range agents {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := cfg.Agents[name]; ok {
			continue
		}
		if msg := cfg.adhocRefused(name, agents[name]); msg != "" {
			ignored = append(ignored, fmt.Sprintf("ad-hoc agent %q in %s ignored: %s", name, layout.Path(cfg.Root, AdhocFile), msg))
			continue
		}
		if cfg.Agents == nil {
			cfg.Agents = map[string]Agent{}
		}
		a := agents[name]
		a.Adhoc = true
		cfg.Agents[name] = a
	}
	return ignored, nil
}

func appendWhy(list []string, why string) []string {
	if why == "" {
		return list
	}
	return append(list, why)
}

// adhocRefused says why a is not an ad-hoc agent actctl makes, "" when it
// is: it must be a declared template's agent or a copy of a declared
// agent, changed only in where it lives (so it raises no preset and adds
// no checkout), and live in the root, the instance area, or a client's
// project as proxy records it (an absolute directory CheckWorkDir takes).
//
// One that cannot resolve (its template removed since) is not refused:
// it can write nothing, and the load reports it as a broken record, which
// `actctl delete` removes.
func (c *Config) adhocRefused(name string, a Agent) string {
	if _, ok := c.Templates[a.Template]; !ok {
		return ""
	}
	shape := a
	shape.WorkDir, shape.WorkDirConflict = "", ""
	if !c.adhocShape(shape) {
		return "not a copy of a declared agent nor a declared template's agent as declared"
	}
	c.Agents[name] = a
	r, err := c.Resolve(name)
	delete(c.Agents, name)
	if err != nil {
		return ""
	}
	if Within(c.Root, r.Dir) || Within(filepath.Join(c.Home, "instances"), r.Dir) {
		return ""
	}
	// A client's project: proxy records the editor's directory as it is,
	// absolute, never a path relative to the root that climbs out.
	if !filepath.IsAbs(a.WorkDir) {
		return fmt.Sprintf("its workspace %s is outside the workspace root %s", r.Dir, c.Root)
	}
	return CheckWorkDir(r.Dir, c.Home)
}

// adhocShape reports whether shape (an ad-hoc agent without its workDir)
// is a declared template's bare agent or a declared agent's.
func (c *Config) adhocShape(shape Agent) bool {
	if _, ok := c.Templates[shape.Template]; ok && reflect.DeepEqual(shape, Agent{Template: shape.Template}) {
		return true
	}
	for _, d := range c.Agents {
		if d.Adhoc {
			continue
		}
		d.WorkDir, d.WorkDirConflict = "", ""
		if reflect.DeepEqual(shape, d) {
			return true
		}
	}
	return false
}

// RecordAdhoc adds (or replaces) an ad-hoc agent of the workspace at root;
// a nil agent removes it. The file is sealed with the key of the actctl
// home home (made if missing); agents of a file not sealed with it are
// dropped.
func RecordAdhoc(root, home, name string, a *Agent) error {
	agents, _, err := AdhocAgents(root, home)
	if err != nil {
		return err
	}
	if agents == nil {
		agents = map[string]Agent{}
	}
	if a == nil {
		delete(agents, name)
	} else {
		agents[name] = *a
	}
	p := layout.Path(root, AdhocFile)
	if len(agents) == 0 {
		return atomicfile.Remove(p)
	}
	b, err := json.MarshalIndent(adhocDoc{Agents: agents}, "", "  ")
	if err != nil {
		return err
	}
	if key, err := userkey.Key(home, true); err == nil {
		b = userkey.SealJSON(key, adhocKind(root), b)
	}
	if _, err := atomicfile.MkdirAll(filepath.Dir(p)); err != nil {
		return err
	}
	return atomicfile.Write(p, append(b, '\n'), 0o644)
}
