package reconcile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/schema"
)

// AdhocFile holds the agents that `actctl proxy -t TEMPLATE` created on
// the fly, in the workspace's .actant directory. They are part of the
// workspace like declared agents (loaded with the config, recorded in the
// state, kept by apply) without editing the user's actant.cue.
const AdhocFile = layout.Adhoc

type adhocDoc struct {
	Agents map[string]schema.Agent `json:"agents"`
}

// AdhocAgents reads the ad-hoc agents of the workspace at root.
func AdhocAgents(root string) (map[string]schema.Agent, error) {
	p := metaPath(root, AdhocFile)
	b, err := schema.ReadRegular(p, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, metaNotDir(filepath.Dir(p), fmt.Errorf("read %s: %w", p, err))
	}
	var d adhocDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return d.Agents, nil
}

// MergeAdhoc adds the workspace's ad-hoc agents to cfg; a declared agent of
// the same name wins. It returns the names it added.
func MergeAdhoc(cfg *schema.Config) ([]string, error) {
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
			cfg.Agents = map[string]schema.Agent{}
		}
		a.Adhoc = true
		cfg.Agents[name] = a
		added = append(added, name)
	}
	return added, nil
}

// RecordAdhoc adds (or replaces) an ad-hoc agent; a nil agent removes it.
func RecordAdhoc(root, name string, a *schema.Agent) error {
	agents, err := AdhocAgents(root)
	if err != nil {
		return err
	}
	if agents == nil {
		agents = map[string]schema.Agent{}
	}
	if a == nil {
		delete(agents, name)
	} else {
		agents[name] = *a
	}
	p := metaPath(root, AdhocFile)
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
