package materialize

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/actctl/actctl/schema"
)

// settings merges the template's native settings for its backend
// (templates.<t>.settings.<backend>) into the backend's settings files as
// managed keys: each top-level key goes to the file of files.settingsFiles
// that lists it, else to files.settings; one key per leaf, objects are
// descended into, so the user's sibling keys (another env variable,
// another hook event) stay theirs. Arrays and scalars are leaves. See
// docs/formats.md "Settings".
func (rd *renderer) settings(f schema.Files) error {
	r := rd.r
	s := r.Template.Settings[r.BackendName]
	if len(s) == 0 {
		return nil
	}
	byFile, rest := routeSettings(f, s)
	if len(rest) > 0 {
		rd.warn("backend %q has no settings file for %s: those keys of settings.%s (template %q) are not rendered", r.BackendName, strings.Join(slices.Sorted(maps.Keys(rest)), ", "), r.BackendName, r.TemplateName)
	}
	for _, sf := range settingsFiles(f) {
		m := byFile[sf.Path]
		if len(m) == 0 {
			continue
		}
		rd.warnIgnored(sf, m)
		var keys []Key
		if err := settingsKeys(sf.Format, nil, m, &keys); err != nil {
			return fmt.Errorf("backend %q: settings: %w", r.BackendName, err)
		}
		if err := rd.addKeys(sf.Path, sf.Format, keys, "settings"); err != nil {
			return err
		}
	}
	return nil
}

// warnIgnored warns about the keys of m (the settings going to file sf)
// that the tool does not read from sf (SettingsFile.Ignored).
func (rd *renderer) warnIgnored(sf schema.SettingsFile, m map[string]any) {
	if sf.Ignored == nil {
		return
	}
	var set []string
	for _, k := range sf.Ignored.Keys {
		if k == "*" { // every key the file gets
			set = slices.Sorted(maps.Keys(m))
			break
		}
		if _, ok := m[k]; ok {
			set = append(set, k)
		}
	}
	if len(set) > 0 {
		rd.warn("settings.%s (template %q): %s are written to %s, but %s", rd.r.BackendName, rd.r.TemplateName, strings.Join(set, ", "), sf.Path, sf.Ignored.Note)
	}
}

// settingsFiles lists a backend's settings files: settingsFiles, then
// settings.
func settingsFiles(f schema.Files) []schema.SettingsFile {
	out := append([]schema.SettingsFile(nil), f.SettingsFiles...)
	if f.Settings != nil {
		out = append(out, *f.Settings)
	}
	return out
}

// routeSettings splits the top-level keys of s by the file they go to
// (SettingsFile.Path); keys no file takes are returned apart.
func routeSettings(f schema.Files, s map[string]any) (map[string]map[string]any, map[string]any) {
	byFile := map[string]map[string]any{}
	rest := map[string]any{}
	for k, v := range s {
		sf := schema.SettingsFileFor(f, k)
		if sf == nil {
			rest[k] = v
			continue
		}
		if byFile[sf.Path] == nil {
			byFile[sf.Path] = map[string]any{}
		}
		byFile[sf.Path][k] = v
	}
	return byFile, rest
}

// settingsKeys appends one Key per leaf of m under prefix.
func settingsKeys(format string, prefix []string, m map[string]any, out *[]Key) error {
	names := slices.Sorted(maps.Keys(m))
	for _, k := range names {
		p := append(append([]string(nil), prefix...), k)
		if sub, ok := m[k].(map[string]any); ok && len(sub) > 0 {
			if err := settingsKeys(format, p, sub, out); err != nil {
				return err
			}
			continue
		}
		if format == schema.FormatTOML && hasNull(m[k]) {
			return fmt.Errorf("%s: TOML has no null; leave the key out instead", strings.Join(p, "."))
		}
		*out = append(*out, key(m[k], p...))
	}
	return nil
}

// hasNull reports whether v holds a JSON null anywhere.
func hasNull(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, e := range x {
			if hasNull(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasNull(e) {
				return true
			}
		}
	}
	return false
}
