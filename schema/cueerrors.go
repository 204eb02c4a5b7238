package schema

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

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

var conflictRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^conflicting values (.+) and (.+)$`)
})

// collapseDisjunctions turns CUE's report of a value matching none of a
// disjunction ("N errors in empty disjunction:" followed by one "conflicting
// values A and X" per alternative) into one diagnostic: `X is not one of
// A, B, C`.
func collapseDisjunctions(ds Diagnostics) Diagnostics {
	type key struct{ pos, path, got string }
	alts := map[key][]string{}
	first := map[key]int{}
	var out Diagnostics
	for _, d := range ds {
		if strings.HasSuffix(d.Message, "errors in empty disjunction:") {
			continue
		}
		m := conflictRE().FindStringSubmatch(d.Message)
		if m == nil || strings.Contains(d.Message, "(") {
			out = append(out, d)
			continue
		}
		k := key{fmt.Sprint(d.Pos), d.Path, m[2]}
		if _, ok := first[k]; !ok {
			first[k] = len(out)
			out = append(out, d)
		}
		alts[k] = append(alts[k], m[1])
	}
	for k, i := range first {
		if len(alts[k]) < 2 {
			continue
		}
		sort.Strings(alts[k])
		out[i].Message = fmt.Sprintf("%s is not one of %s", k.got, strings.Join(alts[k], ", "))
	}
	out.Sort()
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
