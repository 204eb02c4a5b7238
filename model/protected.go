package model

import (
	"fmt"
	"path"
	"reflect"
	"strings"
	"unicode/utf8"
)

// ProtectedTarget explains why a backend may not write at rel (a layout
// path, relative to the agent's workspace directory), or returns "".
// Protected are the files actctl itself reads or keeps, where a block or
// key written by a backend would break every later command: CUE files
// (the config), cue.mod/ (its modules), the root's actant.* files
// (actant.cue, actant.lock and the records kept beside them), .git/ and
// .actant/. New root-level records need no change here as long as they are
// named actant.*.
func ProtectedTarget(rel string) string { return protected(rel, true) }

// ProtectedInWorkspace is ProtectedTarget for a path relative to the
// workspace root that an agent's entry lands on, wherever its workDir is:
// there a *.cue file matters only at the root, where it is loaded (a skill
// may well carry an example.cue).
func ProtectedInWorkspace(rel string) string { return protected(rel, false) }

// ProtectedDir explains why no agent may write inside dir (relative to
// the workspace root), or returns "": a .git, .actant or cue.mod
// directory, or a root actant.* name.
func ProtectedDir(dir string) string {
	clean := cleanSlash(dir)
	if why := reservedPart(clean); why != "" {
		return why
	}
	return actantName(clean)
}

func protected(rel string, cueAnywhere bool) string {
	clean := cleanSlash(rel)
	if why := reservedPart(clean); why != "" {
		return why
	}
	base := clean[strings.LastIndexByte(clean, '/')+1:]
	if lowerHasSuffix(base, ".cue") && (cueAnywhere || len(base) == len(clean)) {
		return "it is a *.cue file, which actctl loads as configuration"
	}
	return actantName(clean)
}

// cleanSlash is p cleaned, with slashes. Its parts are compared in lower
// case (on a case-insensitive file system ACTANT.CUE is actant.cue), one
// at a time and without allocating: this runs for every entry of every
// agent whose workDir is the root.
func cleanSlash(p string) string { return path.Clean(strings.ReplaceAll(p, `\`, "/")) }

func reservedPart(clean string) string {
	for rest := clean; ; {
		part, next, more := strings.Cut(rest, "/")
		switch {
		case lowerIs(part, ".git"):
			return "it is inside .git/, git's own directory"
		case lowerIs(part, ".actant"):
			return "it is inside .actant/, where actctl keeps its state"
		case lowerIs(part, "cue.mod"):
			return "it is inside cue.mod/, the workspace's CUE modules"
		}
		if !more {
			return ""
		}
		rest = next
	}
}

func actantName(clean string) string {
	first, _, _ := strings.Cut(clean, "/")
	if lowerHasPrefix(first, "actant.") {
		return fmt.Sprintf("%s at the root is actctl's own file: every actant.* name there is kept for actctl", first)
	}
	return ""
}

// lowerIs reports whether strings.ToLower(s) == t, for t in lower-case
// ASCII; lowerHasPrefix and lowerHasSuffix likewise. For ASCII s this is
// ASCII case folding; any other s is lowered as it was (strings.EqualFold
// folds more: the Kelvin sign, the long s).
func lowerIs(s, t string) bool {
	if !isASCII(s) {
		return strings.ToLower(s) == t
	}
	return strings.EqualFold(s, t)
}

func lowerHasPrefix(s, prefix string) bool {
	if !isASCII(s) {
		return strings.HasPrefix(strings.ToLower(s), prefix)
	}
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func lowerHasSuffix(s, suffix string) bool {
	if !isASCII(s) {
		return strings.HasSuffix(strings.ToLower(s), suffix)
	}
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
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
			out = append(out, structPaths("files."+name, fv.Elem())...)
		case fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.Struct:
			for j := 0; j < fv.Len(); j++ {
				out = append(out, structPaths(fmt.Sprintf("files.%s[%d]", name, j), fv.Index(j))...)
			}
		}
	}
	return out
}

// structPaths are the paths a layout struct s (at field) writes: its dir,
// path and rules.
func structPaths(field string, s reflect.Value) []LayoutPath {
	var out []LayoutPath
	for k := 0; k < s.NumField(); k++ {
		sub := jsonName(s.Type().Field(k))
		if (sub == "dir" || sub == "path" || sub == "rules") && s.Field(k).Kind() == reflect.String && s.Field(k).String() != "" {
			out = append(out, LayoutPath{field + "." + sub, s.Field(k).String()})
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
