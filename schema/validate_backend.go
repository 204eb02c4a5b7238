package schema

import "fmt"

// CheckBackend reports what is wrong with backend name beyond its types:
// modes without their command, and layout paths that target files actctl
// protects (see ProtectedTarget), each at its position. The hub package
// calls it for hub backends.
func (c *Config) CheckBackend(name string) Diagnostics {
	ds := append(c.checkModes(name), c.checkTrust(name)...)
	ds = append(ds, c.checkInstall(name)...)
	for i, sf := range c.Backends[name].Files.SettingsFiles {
		if len(sf.Keys) == 0 {
			ds = append(ds, c.Diag(Path("backends", name)+fmt.Sprintf(".files.settingsFiles[%d]", i),
				"backend %q: settings file %s takes no keys: list the top-level settings keys it takes (keys: [\"hooks\"])", name, sf.Path))
		}
	}
	for _, lp := range c.Backends[name].Files.LayoutPaths() {
		if why := ProtectedTarget(lp.Path); why != "" {
			ds = append(ds, c.Diag(Path("backends", name)+"."+lp.Field,
				"backend %q may not write %s: %s", name, lp.Path, why))
		}
	}
	return ds
}
