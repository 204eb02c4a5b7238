package schema

import (
	"maps"
	"slices"
)

// validateSettings checks a template's native settings (docs/formats.md
// "Settings"): each key names a declared backend (with "did you mean"),
// and settings for a backend whose settings file is TOML hold no null,
// which TOML cannot represent.
func (c *Config) validateSettings(name string, t Template) Diagnostics {
	var ds Diagnostics
	for _, b := range slices.Sorted(maps.Keys(t.Settings)) {
		at := Path("templates", name, "settings", b)
		if d, ok := checkRef(c, at, "backend", b, c.Backends); !ok {
			ds = append(ds, d)
			continue
		}
		files := c.Backends[b].Files
		for _, k := range slices.Sorted(maps.Keys(t.Settings[b])) {
			f := SettingsFileFor(files, k)
			if f == nil || f.Format != FormatTOML {
				continue
			}
			if p := nullAt(t.Settings[b][k]); p != nil {
				ds = append(ds, c.Diag(Path(append([]string{"templates", name, "settings", b, k}, p...)...), "null cannot be written to %s (TOML has no null); leave the key out instead", f.Path))
			}
		}
	}
	return ds
}

// nullAt returns the path below v to its first null (empty for v itself),
// or nil when v holds none.
func nullAt(v any) []string {
	switch x := v.(type) {
	case nil:
		return []string{}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if p := nullAt(x[k]); p != nil {
				return append([]string{k}, p...)
			}
		}
	}
	return nil
}

// SettingsFileFor returns the settings file that takes the top-level
// settings key k: the first of f.SettingsFiles listing it, else
// f.Settings (nil when the backend has none).
func SettingsFileFor(f Files, k string) *SettingsFile {
	for i := range f.SettingsFiles {
		if slices.Contains(f.SettingsFiles[i].Keys, k) {
			return &f.SettingsFiles[i]
		}
	}
	return f.Settings
}

// validateSubAgentBackends checks that each key of a template's
// subAgent.backends names a declared backend, with "did you mean": a
// misspelt one would leave that backend with the translated common
// values, silently.
func (c *Config) validateSubAgentBackends(name string, t Template) Diagnostics {
	if t.SubAgent == nil {
		return nil
	}
	var ds Diagnostics
	for _, b := range slices.Sorted(maps.Keys(t.SubAgent.Backends)) {
		if d, ok := checkRef(c, Path("templates", name, "subAgent", "backends", b), "backend", b, c.Backends); !ok {
			ds = append(ds, d)
		}
	}
	return ds
}
