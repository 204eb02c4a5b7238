package schema

import (
	"maps"
	"path/filepath"
	"slices"
)

// LocalComponents are the absolute paths outside the workspace's *.cue
// files that the config reads: the directories of dir skills and the files
// of file skills (hub components excluded). apply --watch watches them.
func (c *Config) LocalComponents() (dirs, files []string) {
	for _, name := range slices.Sorted(maps.Keys(c.Skills)) {
		s := c.Skills[name]
		if IsHubRef(name) {
			continue
		}
		switch {
		case s.Dir != "":
			dirs = append(dirs, absUnder(c.Root, s.Dir))
		case s.File != "":
			files = append(files, absUnder(c.Root, s.File))
		}
	}
	return dirs, files
}

// absUnder is p made absolute against root (p itself when absolute).
func absUnder(root, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(root, p)
}
