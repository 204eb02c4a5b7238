package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/layout"
)

// Ad-hoc agents are part of the configuration though no file declares
// them: the loader merges them in (MergeAdhoc) once the hub has resolved
// the declared ones, so a caller gets every agent of the workspace.

// AdhocFile holds the agents that `actctl proxy -t TEMPLATE` created on
// the fly, in the workspace's .actant directory. They are part of the
// workspace like declared agents (loaded with the config, recorded in the
// state, kept by apply) without editing the user's actant.cue.
const AdhocFile = layout.Adhoc

type adhocDoc struct {
	Agents map[string]Agent `json:"agents"`
}

// AdhocAgents reads the ad-hoc agents of the workspace at root.
func AdhocAgents(root string) (map[string]Agent, error) {
	p := layout.Path(root, AdhocFile)
	b, err := ReadRegular(p, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, layout.NotDir(filepath.Dir(p), fmt.Errorf("read %s: %w", p, err))
	}
	var d adhocDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return d.Agents, nil
}

// MergeAdhoc adds the workspace's ad-hoc agents to cfg; a declared agent of
// the same name wins. It returns the names it added.
func MergeAdhoc(cfg *Config) ([]string, error) {
	agents, err := AdhocAgents(cfg.Root)
	if err != nil {
		return nil, err
	}
	var added []string
	for name, a := range agents {
		if _, ok := cfg.Agents[name]; ok {
			continue
		}
		if cfg.Agents == nil {
			cfg.Agents = map[string]Agent{}
		}
		a.Adhoc = true
		cfg.Agents[name] = a
		added = append(added, name)
	}
	return added, nil
}

// RecordAdhoc adds (or replaces) an ad-hoc agent; a nil agent removes it.
func RecordAdhoc(root, name string, a *Agent) error {
	agents, err := AdhocAgents(root)
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
	if _, err := atomicfile.MkdirAll(filepath.Dir(p)); err != nil {
		return err
	}
	return atomicfile.Write(p, append(b, '\n'), 0o644)
}
