package materialize

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/actctl/actctl/schema"
)

// settings merges the template's native settings for its backend
// (templates.<t>.settings.<backend>) into the backend's settings file as
// managed keys: one key per leaf, objects are descended into, so the
// user's sibling keys (another env variable, another hook event) stay
// theirs. Arrays and scalars are leaves. See docs/formats.md "Settings".
func (rd *renderer) settings(f schema.Files) error {
	r := rd.r
	s := r.Template.Settings[r.BackendName]
	if len(s) == 0 {
		return nil
	}
	if f.Settings == nil {
		rd.warn("backend %q has no settings layout: settings.%s of template %q are not rendered", r.BackendName, r.BackendName, r.TemplateName)
		return nil
	}
	var keys []Key
	if err := settingsKeys(f.Settings.Format, nil, s, &keys); err != nil {
		return fmt.Errorf("backend %q: settings: %w", r.BackendName, err)
	}
	return rd.addKeys(f.Settings.Path, f.Settings.Format, keys, "settings")
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
