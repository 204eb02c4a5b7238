package schema

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"
)

// validateAll reports every error of the evaluated config. A single
// Validate of the root stops at the first failing top-level field, so each
// entry of each top-level map (every agent, template, ...) is validated on
// its own and the errors are joined.
func validateAll(v cue.Value) error {
	var all cueerrors.Error
	it, err := v.Fields()
	if err != nil {
		return err
	}
	for it.Next() {
		top := it.Value()
		entries, err := top.Fields()
		if err != nil {
			all = cueerrors.Append(all, cueerrors.Promote(err, ""))
			continue
		}
		for entries.Next() {
			if err := entries.Value().Validate(cue.Concrete(true), cue.All()); err != nil {
				all = cueerrors.Append(all, cueerrors.Promote(err, ""))
			}
		}
	}
	if all == nil {
		return v.Validate(cue.Concrete(true), cue.All())
	}
	return all
}

// cueDiagnostics converts a CUE error list into Diagnostics in actctl's
// words, each at the position in the user's files (not the embedded
// schema) when there is one: a value declared twice is reported at both
// places, a value of the wrong type in one line (collapse), a field the
// schema does not have with "did you mean", an unclosed brace at the
// brace.
func cueDiagnostics(err error) Diagnostics {
	var items []item
	seen := map[string]bool{}
	twice := map[string]*dup{}
	for _, e := range cueerrors.Errors(err) {
		if d := duplicate(e); d != nil {
			if prev := twice[d.path]; prev != nil {
				prev.add(d.ps)
			} else {
				twice[d.path] = d
			}
			continue
		}
		for _, it := range diagnose(e) {
			if k := it.d.String(); !seen[k] {
				seen[k] = true
				items = append(items, it)
			}
		}
	}
	for _, path := range slices.Sorted(maps.Keys(twice)) {
		items = append(items, twice[path].items()...)
	}
	if len(items) == 0 {
		items = append(items, item{d: Diagnostic{Message: err.Error()}})
	}
	return collapse(items)
}

// item is a diagnostic with, for a conflict of two values, what the two
// values were.
type item struct {
	d        Diagnostic
	conflict *conflict
}

// diagnose turns one CUE error into diagnostics.
func diagnose(e cueerrors.Error) []item {
	format, args := e.Msg()
	d := Diagnostic{
		Pos:     userPos(cueerrors.Positions(e)),
		Path:    pathString(e.Path()),
		Message: fmt.Sprintf(format, args...),
	}
	if d.Pos == token.NoPos {
		d.Pos = e.Position()
	}
	switch {
	case d.Message == "":
		// A wrapped error (a bad cue.mod/module.cue) keeps its text in
		// Error, not in Msg.
		d.Message = e.Error()
	case d.Message == "import failed":
		d.Path, d.Message = "", importFailure(e, d.Pos)
	case strings.HasPrefix(format, "conflicting values %s and %s") && len(args) >= 2:
		return []item{{d: d, conflict: newConflict(d.Pos, args)}}
	case format == "invalid value %v (out of bound %s)" && len(args) == 2:
		d.Message = boundMessage(fmt.Sprint(args[0]), fmt.Sprint(args[1]))
	case format == "field not allowed":
		d.Message = unknownFieldMessage(e.Path())
	case unclosedRE().MatchString(d.Message):
		d = unclosed(d)
	case strings.HasPrefix(d.Message, "missing ',' in"):
		d = wrongCloser(d)
	}
	return []item{{d: d}}
}

// pathString renders CUE path selectors as a path cue.ParsePath accepts
// and Config.Pos finds: labels joined by dots (quoted by CUE where
// needed), list indexes in brackets ("cron[0].pattern").
func pathString(sel []string) string {
	var b strings.Builder
	for i, l := range sel {
		if _, err := strconv.Atoi(l); err == nil && i > 0 {
			b.WriteString("[" + l + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(l)
	}
	return b.String()
}

// userPos picks the first position outside the embedded schema.
func userPos(ps []token.Pos) token.Pos {
	if u := userPositions(ps); len(u) > 0 {
		return u[0]
	}
	for _, p := range ps {
		if p.IsValid() {
			return p
		}
	}
	return token.NoPos
}

// userPositions are the distinct valid positions of ps in the user's
// files, in file order.
func userPositions(ps []token.Pos) []token.Pos {
	var out []token.Pos
	for _, p := range ps {
		if p.IsValid() && filepath.Base(p.Filename()) != schemaFile && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b token.Pos) int {
		if c := strings.Compare(a.Filename(), b.Filename()); c != 0 {
			return c
		}
		return a.Offset() - b.Offset()
	})
	return out
}

// importFailure says which import failed and why: CUE reports only
// "import failed" at the import, with the reason in the wrapped error.
func importFailure(e cueerrors.Error, pos token.Pos) string {
	msg := "import failed"
	if path := importPathAt(pos); path != "" {
		msg = fmt.Sprintf("import %q failed", path)
	}
	var why string
	for x := errors.Unwrap(e); x != nil; x = errors.Unwrap(x) {
		if ce, ok := x.(cueerrors.Error); ok {
			format, args := ce.Msg()
			why = fmt.Sprintf(format, args...)
		}
	}
	if why == "" {
		return msg
	}
	msg += ": " + why
	if strings.Contains(why, "no cue.mod/module.cue") {
		msg += " (create cue.mod/module.cue with a `module:` line, or run `cue mod init` in the workspace root)"
	}
	return msg
}

// importPathAt reads the quoted import path written at pos.
func importPathAt(pos token.Pos) string {
	if !pos.IsValid() {
		return ""
	}
	src, err := ReadRegular(pos.Filename(), 0)
	if err != nil || pos.Offset() >= len(src) {
		return ""
	}
	q, err := strconv.QuotedPrefix(string(src[pos.Offset():]))
	if err != nil {
		return ""
	}
	path, _ := strconv.Unquote(q)
	return path
}
