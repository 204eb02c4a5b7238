package schema

import (
	"fmt"
	"path"
	"reflect"
	"strings"
)

// ProtectedTarget explains why a backend may not write at rel (a layout
// path, relative to the agent's workspace directory), or returns "".
// Protected are the files actctl itself reads or keeps, where a block or
// key written by a backend would break every later command: CUE files
// (the config), cue.mod/ (its modules), the root's actant.* files
// (actant.cue, actant.lock and the records kept beside them), .git/ and
// .actant/. New root-level records need no change here as long as they are
// named actant.*.
func ProtectedTarget(rel string) string {
	orig := strings.Split(path.Clean(strings.ReplaceAll(rel, `\`, "/")), "/")
	// Lower case: on a case-insensitive file system ACTANT.CUE is actant.cue.
	parts := strings.Split(strings.ToLower(strings.Join(orig, "/")), "/")
	for _, p := range parts {
		switch p {
		case ".git":
			return "it is inside .git/, git's own directory"
		case ".actant":
			return "it is inside .actant/, where actctl keeps its state"
		case "cue.mod":
			return "it is inside cue.mod/, the workspace's CUE modules"
		}
	}
	base := parts[len(parts)-1]
	if strings.HasSuffix(base, ".cue") {
		return "it is a *.cue file, which actctl loads as configuration"
	}
	if strings.HasPrefix(parts[0], "actant.") {
		return fmt.Sprintf("%s at the root is actctl's own file (like actant.cue and actant.lock)", orig[0])
	}
	return ""
}

// LayoutPath is one path a backend's file layout writes to.
type LayoutPath struct {
	// Field is its CUE path below the backend, e.g. "files.instructions[0]".
	Field string
	Path  string
}

// LayoutPaths lists every path of a file layout: each string list (such
// as instructions) and the dir or path of each layout entry. It reads the
// Files type itself, so a layout field added later is covered too.
func (f Files) LayoutPaths() []LayoutPath {
	var out []LayoutPath
	v := reflect.ValueOf(f)
	for i := 0; i < v.NumField(); i++ {
		name := jsonName(v.Type().Field(i))
		fv := v.Field(i)
		switch {
		case fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.String:
			for j := 0; j < fv.Len(); j++ {
				out = append(out, LayoutPath{fmt.Sprintf("files.%s[%d]", name, j), fv.Index(j).String()})
			}
		case fv.Kind() == reflect.Pointer && !fv.IsNil() && fv.Elem().Kind() == reflect.Struct:
			s := fv.Elem()
			for k := 0; k < s.NumField(); k++ {
				sub := jsonName(s.Type().Field(k))
				if (sub == "dir" || sub == "path") && s.Field(k).Kind() == reflect.String {
					out = append(out, LayoutPath{"files." + name + "." + sub, s.Field(k).String()})
				}
			}
		}
	}
	return out
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// CheckBackend reports what is wrong with backend name beyond its types:
// modes without their command, and layout paths that target files actctl
// protects (see ProtectedTarget), each at its position. The hub package
// calls it for hub backends.
func (c *Config) CheckBackend(name string) Diagnostics {
	ds := c.checkModes(name)
	for _, lp := range c.Backends[name].Files.LayoutPaths() {
		if why := ProtectedTarget(lp.Path); why != "" {
			ds = append(ds, c.Diag(Path("backends", name)+"."+lp.Field,
				"backend %q may not write %s: %s", name, lp.Path, why))
		}
	}
	return ds
}
