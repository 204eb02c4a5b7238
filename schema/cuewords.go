package schema

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/scanner"
	"cuelang.org/go/cue/token"
)

// conflict is CUE's "conflicting values A and B": the user's value, the
// value (or type) of the schema it failed to match, and whether the two
// are of different kinds.
type conflict struct {
	user, userKind   string
	other, otherKind string
	mismatched       bool
}

// newConflict reads the arguments of a "conflicting values %s and %s
// (mismatched types %s and %s)" error; the user's value is the one
// written at pos (CUE puts it first or second).
func newConflict(pos token.Pos, args []any) *conflict {
	a, b := fmt.Sprint(args[0]), fmt.Sprint(args[1])
	c := &conflict{user: a, other: b}
	if len(args) >= 4 {
		c.userKind, c.otherKind, c.mismatched = fmt.Sprint(args[2]), fmt.Sprint(args[3]), true
	}
	if lit := literalAt(pos); lit != "" && !sameStart(lit, a) && sameStart(lit, b) {
		c.user, c.other = b, a
		c.userKind, c.otherKind = c.otherKind, c.userKind
	}
	return c
}

// sameStart reports whether the literal written in the file and the value
// CUE printed are the same scalar, or both a struct or both a list.
func sameStart(lit, v string) bool {
	if lit == v {
		return true
	}
	return (lit == "{" || lit == "[") && strings.HasPrefix(v, lit)
}

// collapse puts each problem in one line of actctl's words. The
// conflicts of one value with the alternatives of a disjunction ("N
// errors in empty disjunction" and one conflict per alternative) become
// `X is not one of A, B` or `want a list of names, got "x"`; a struct or
// list that failed the other alternatives only because of an error
// inside it is reported by that error alone.
func collapse(items []item) Diagnostics {
	type key struct{ pos, path, user string }
	groups := map[key][]*conflict{}
	first := map[key]int{}
	var out Diagnostics
	for _, it := range items {
		if strings.HasSuffix(it.d.Message, "errors in empty disjunction:") {
			continue
		}
		if it.conflict != nil && hasSameNonConflict(items, it) {
			// The default of `*"0.1.0" | =~re`: the other alternative's
			// error says what is wanted.
			continue
		}
		if it.conflict == nil {
			// A list that failed the [] default of `*[] | [...X]` only
			// because it has elements: its elements' errors say why.
			if !strings.HasPrefix(it.d.Message, "incompatible list lengths") || !hasDeeper(items, it.d.Path) {
				out = append(out, it.d)
			}
			continue
		}
		k := key{fmt.Sprint(it.d.Pos), it.d.Path, it.conflict.user}
		if _, ok := first[k]; !ok {
			first[k] = len(out)
			out = append(out, it.d)
		}
		groups[k] = append(groups[k], it.conflict)
	}
	drop := map[int]bool{}
	for k, i := range first {
		cs := groups[k]
		if hasDeeper(items, k.path) {
			cs = slices.DeleteFunc(cs, func(c *conflict) bool { return c.mismatched })
		}
		if len(cs) == 0 {
			drop[i] = true
			continue
		}
		out[i].Message = conflictMessage(cs)
	}
	var kept Diagnostics
	for i, d := range out {
		if !drop[i] {
			kept = append(kept, d)
		}
	}
	kept.Sort()
	return kept
}

// hasSameNonConflict reports whether another error than a conflict was
// found at the place and path of it.
func hasSameNonConflict(items []item, it item) bool {
	for _, o := range items {
		if o.conflict == nil && o.d.Path == it.d.Path && o.d.Pos == it.d.Pos && !strings.HasSuffix(o.d.Message, "errors in empty disjunction:") {
			return true
		}
	}
	return false
}

// boundWords name the schema's bounds: what a value must be.
var boundWords = map[string]string{
	`!=""`:                   "a non-empty string",
	`=~"^[0-9]+(ms|s|m|h)$"`: `a duration such as "30s" or "5m"`,
	`=~"^[0-9a-f]{7,40}$"`:   "a commit hash (7 to 40 hex digits)",
	`=~"^v?[0-9]+\\.[0-9]+\\.[0-9]+(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?$"`: `a semantic version such as "1.2.0"`,
}

// boundMessage says that v is outside the bound CUE names.
func boundMessage(v, bound string) string {
	if w, ok := boundWords[bound]; ok {
		return fmt.Sprintf("want %s, got %s", w, v)
	}
	if re, ok := strings.CutPrefix(bound, "=~"); ok {
		if u, err := strconv.Unquote(re); err == nil {
			re = u
		}
		return fmt.Sprintf("want a string matching %s, got %s", re, v)
	}
	return fmt.Sprintf("want a value %s, got %s", bound, v)
}

// hasDeeper reports whether an error was found inside the value at path.
func hasDeeper(items []item, path string) bool {
	for _, it := range items {
		if strings.HasPrefix(it.d.Path, path+".") || strings.HasPrefix(it.d.Path, path+"[") {
			return true
		}
	}
	return false
}

// conflictMessage says in one line what the user's value should have
// been, given every alternative it failed to match.
func conflictMessage(cs []*conflict) string {
	var values, types []string
	for _, c := range cs {
		if !c.mismatched {
			values = append(values, c.other)
			continue
		}
		if t := typeWords(c.other, c.otherKind); !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	types = mostSpecific(types)
	slices.Sort(values)
	values = slices.Compact(values)
	user := cs[0].user
	switch {
	case len(types) == 0 && len(values) == 1:
		return fmt.Sprintf("want %s, got %s", values[0], user)
	case len(types) == 0:
		return fmt.Sprintf("%s is not one of %s", user, strings.Join(values, ", "))
	case len(values) == 0:
		return fmt.Sprintf("want %s, got %s", strings.Join(types, " or "), valueWords(user, cs[0].userKind))
	}
	return fmt.Sprintf("%s is not one of %s, or %s", user, strings.Join(values, ", "), strings.Join(types, " or "))
}

// mostSpecific drops "a list" when a more specific kind of list is
// wanted too (a list field whose default is []).
func mostSpecific(types []string) []string {
	if len(types) < 2 {
		return types
	}
	return slices.DeleteFunc(types, func(t string) bool {
		return t == "a list" && slices.ContainsFunc(types, func(o string) bool { return strings.HasPrefix(o, "a list of") })
	})
}

var listOfRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[\.\.\.(.+)\]$`) })

// typeWords describes a schema type in words: "a list of names",
// "a struct (allow, deny)", "a string".
func typeWords(expr, kind string) string {
	switch kind {
	case "list":
		switch m := listOfRE().FindStringSubmatch(expr); {
		case m == nil:
			return "a list"
		case m[1] == "#Ref":
			return "a list of names"
		case m[1] == "string":
			return "a list of strings"
		}
		return "a list"
	case "struct":
		if labels := topLabels(expr); len(labels) > 0 {
			return "a struct (" + strings.Join(labels, ", ") + ")"
		}
		return "a struct"
	case "int":
		return "an integer"
	case "float", "number":
		return "a number"
	case "bool":
		return "true or false"
	case "null":
		return "null"
	}
	return "a " + kind
}

// valueWords describes the user's value: itself when it is a scalar.
func valueWords(v, kind string) string {
	switch kind {
	case "struct":
		return "a struct"
	case "list":
		return "a list"
	}
	return v
}

// topLabels are the labels of the outermost struct in a printed CUE
// value ("{allow?:[...string],deny?:[...string]}" -> allow, deny).
func topLabels(expr string) []string {
	if !strings.HasPrefix(expr, "{") {
		return nil
	}
	var labels []string
	depth, start := 0, 1
	for i, r := range expr {
		switch r {
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			depth--
		case ':':
			if depth == 1 && start >= 0 {
				labels = append(labels, strings.TrimSuffix(strings.TrimSpace(expr[start:i]), "?"))
				start = -1
			}
		case ',':
			if depth == 1 {
				start = i + 1
			}
		}
	}
	return labels
}

// literalAt returns the token written at pos: the scalar itself, or "{"
// or "[" for a struct or list; "" when it cannot be read.
func literalAt(pos token.Pos) string {
	if !pos.IsValid() {
		return ""
	}
	src, err := ReadRegular(pos.Filename(), 0)
	if err != nil || pos.Offset() >= len(src) {
		return ""
	}
	var s scanner.Scanner
	f := token.NewFile(pos.Filename(), -1, len(src)-pos.Offset())
	s.Init(f, src[pos.Offset():], nil, 0)
	_, tok, lit := s.Scan()
	switch tok {
	case token.LBRACE:
		return "{"
	case token.LBRACK:
		return "["
	}
	return lit
}

// entryKinds name the entries of the top-level maps, for messages.
var entryKinds = map[string]string{
	"agents": "agent", "templates": "template", "skills": "skill", "prompts": "prompt",
	"commands": "command", "mcpServers": "MCP server", "backends": "backend", "hooks": "hook",
	"hub": "hub source", "archetypes": "archetype",
}

// dup is a value given different values at several places in the user's
// files: an agent declared twice, in one file or two.
type dup struct {
	sel  []string
	path string
	ps   []token.Pos
}

// duplicate recognizes a conflict between two values the user wrote.
func duplicate(e cueerrors.Error) *dup {
	format, _ := e.Msg()
	ps := userPositions(cueerrors.Positions(e))
	if !strings.HasPrefix(format, "conflicting values %s and %s") || len(ps) < 2 {
		return nil
	}
	return &dup{sel: e.Path(), path: pathString(e.Path()), ps: ps}
}

// add merges the places of another conflict of the same value.
func (d *dup) add(ps []token.Pos) {
	d.ps = userPositions(append(d.ps, ps...))
}

// items reports the value at each place, naming the others.
func (d *dup) items() []item {
	subject, field := "field "+d.path, ""
	if len(d.sel) >= 2 && entryKinds[d.sel[0]] != "" {
		subject = fmt.Sprintf("%s %q", entryKinds[d.sel[0]], unquoteLabel(d.sel[1]))
		field = pathString(d.sel[2:])
	}
	times := "twice"
	if len(d.ps) > 2 {
		times = strconv.Itoa(len(d.ps)) + " times"
	}
	var out []item
	for i, p := range d.ps {
		var others []string
		for j, o := range d.ps {
			if j != i {
				others = append(others, fmt.Sprintf("%s at %s:%d:%d", literalAt(o), o.Filename(), o.Line(), o.Column()))
			}
		}
		here := literalAt(p) + " here"
		if field != "" {
			here = field + " " + here
		}
		msg := fmt.Sprintf("%s is declared %s: %s, %s", subject, times, here, strings.Join(others, ", "))
		out = append(out, item{d: Diagnostic{Pos: p, Path: d.path, Message: msg}})
	}
	return out
}

// unquoteLabel is a path label as the user named it (`"my.agent"` ->
// my.agent).
func unquoteLabel(l string) string {
	if u, err := strconv.Unquote(l); err == nil {
		return u
	}
	return l
}

// unknownFieldMessage says that the last label of sel is not a field of
// the schema there, with "did you mean" for a close field name, or the
// fields there are.
func unknownFieldMessage(sel []string) string {
	if len(sel) == 0 {
		return "field not allowed"
	}
	name := unquoteLabel(sel[len(sel)-1])
	msg := fmt.Sprintf("unknown field %q", name)
	names := schemaFieldsAt(sel[:len(sel)-1])
	if s := suggest(name, names); s != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", s)
	}
	if len(names) > 0 {
		return msg + "; the fields here are " + strings.Join(names, ", ")
	}
	return msg
}

// schemaFieldsAt lists the fields the embedded schema declares at the
// config path sel (map entries and list elements by their pattern).
func schemaFieldsAt(sel []string) []string {
	v := cuecontext.New().CompileBytes(Source, cue.Filename(schemaFile))
	if v.Err() != nil {
		return nil
	}
	for _, l := range sel {
		if _, err := strconv.Atoi(l); err == nil {
			v = v.LookupPath(cue.MakePath(cue.AnyIndex))
			continue
		}
		next, _, ok := field(v, unquoteLabel(l))
		if !ok {
			next = v.LookupPath(cue.MakePath(cue.AnyString))
		}
		v = next
		if !v.Exists() {
			return nil
		}
	}
	return fieldNames(v)
}

var unclosedRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^expected '([}\])])', found 'EOF'$`)
})

// closers pair each opening token with its closing one.
var closers = map[token.Token]string{token.LBRACE: "}", token.LBRACK: "]", token.LPAREN: ")"}

// opening is a bracket that is open at some point of a file.
type opening struct {
	pos token.Pos
	tok token.Token
}

// openBrackets scans file up to offset limit (to its end when limit < 0)
// and returns the brackets open there, innermost last, and the token at
// limit.
func openBrackets(file string, limit int) ([]opening, token.Token, bool) {
	src, err := ReadRegular(file, 0)
	if err != nil {
		return nil, token.ILLEGAL, false
	}
	f := token.NewFile(file, -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, nil, 0)
	var stack []opening
	for {
		p, tok, _ := s.Scan()
		if tok == token.EOF || (limit >= 0 && p.Offset() >= limit) {
			return stack, tok, true
		}
		switch tok {
		case token.LBRACE, token.LBRACK, token.LPAREN:
			stack = append(stack, opening{p, tok})
		case token.RBRACE, token.RBRACK, token.RPAREN:
			if n := len(stack); n > 0 && closers[stack[n-1].tok] == tok.String() {
				stack = stack[:n-1]
			}
		}
	}
}

// unclosed moves an "expected '}', found 'EOF'" error from the end of the
// file to the bracket that is never closed.
func unclosed(d Diagnostic) Diagnostic {
	stack, _, ok := openBrackets(d.Pos.Filename(), -1)
	if !ok || len(stack) == 0 {
		return d
	}
	o := stack[len(stack)-1]
	return Diagnostic{Pos: o.pos, Message: fmt.Sprintf("this %q is never closed: the file ends before its %q", o.tok.String(), closers[o.tok])}
}

// wrongCloser explains a "missing ','" error CUE reports at a closing
// bracket that does not match the one open there (`["a"}`), or returns d.
func wrongCloser(d Diagnostic) Diagnostic {
	stack, tok, ok := openBrackets(d.Pos.Filename(), d.Pos.Offset())
	if !ok || len(stack) == 0 || (tok != token.RBRACE && tok != token.RBRACK && tok != token.RPAREN) {
		return d
	}
	o := stack[len(stack)-1]
	if closers[o.tok] == tok.String() {
		return d
	}
	return Diagnostic{Pos: o.pos, Message: fmt.Sprintf("this %q is never closed: a %q at %d:%d comes before its %q", o.tok.String(), tok.String(), d.Pos.Line(), d.Pos.Column(), closers[o.tok])}
}
