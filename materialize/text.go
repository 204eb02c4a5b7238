package materialize

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// fillVars replaces every {{name}} (spaces inside the braces allowed) whose
// name is in vars. Unknown names are left in place — a visible placeholder
// is easier to spot than a silently empty string — and returned, in order
// of first appearance, so the caller can warn about them.
//
// Only identifier-like names ([A-Za-z_][A-Za-z0-9_.-]*) are treated as
// variables: "{{ .Field }}", "{{#each}}" and other template syntaxes that a
// skill may legitimately document are left alone without a warning.
//
// It is a hand-written scanner rather than a regexp because it runs over
// every prompt and skill of every agent (20k skills in the 1000-agent
// benchmark) and most texts contain no placeholder at all.
func fillVars(s string, vars map[string]string) (string, []string) {
	i := strings.Index(s, "{{")
	if i < 0 {
		return s, nil
	}
	var b strings.Builder
	var missing []string
	b.Grow(len(s))
	for i >= 0 {
		j := strings.Index(s[i+2:], "}}")
		if j < 0 {
			break
		}
		name := strings.TrimSpace(s[i+2 : i+2+j])
		end := i + 2 + j + 2
		if !isVarName(name) {
			// Step one brace only, so "{{{a}}}" still finds "{{a}}".
			b.WriteString(s[:i+1])
			s = s[i+1:]
			i = strings.Index(s, "{{")
			continue
		}
		b.WriteString(s[:i])
		if v, ok := vars[name]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[i:end])
			if !contains(missing, name) {
				missing = append(missing, name)
			}
		}
		s = s[end:]
		i = strings.Index(s, "{{")
	}
	b.WriteString(s)
	return b.String(), missing
}

func isVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
		case i > 0 && ((r >= '0' && r <= '9') || r == '.' || r == '-'):
		default:
			return false
		}
	}
	return true
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// yamlString renders s as a YAML scalar that every YAML 1.1/1.2 parser
// (and Cursor's laxer frontmatter reader) reads back as exactly s.
//
// Plain style is used only for text that is unambiguously a string:
// starting with a letter, no ": " or " #", no quotes, brackets or braces,
// no control characters, not a YAML 1.1 boolean/null word. Everything else
// is double-quoted with escapes, so descriptions like `Use when: "x"`,
// `#tag`, `yes` or `- item` stay strings and never break the frontmatter.
func yamlString(s string) string {
	if plainSafe(s) {
		return s
	}
	return yamlQuote(s)
}

func plainSafe(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	first, _ := utf8.DecodeRuneInString(s)
	if !unicode.IsLetter(first) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	if unicode.IsSpace(last) || last == ':' {
		return false
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") {
		return false
	}
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return false
		case r == 0x2028 || r == 0x2029 || r == 0xfeff:
			return false
		case strings.ContainsRune("\"'`\\{}[]", r):
			return false
		}
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "true", "false", "on", "off", "null", "nan", "inf":
		return false
	}
	return true
}

// yamlQuote writes a YAML double-quoted scalar. Invalid UTF-8 is replaced
// with U+FFFD first: YAML streams must be valid Unicode.
func yamlQuote(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			switch {
			case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
				b.WriteString(`\x`)
				h := strconv.FormatInt(int64(r), 16)
				if len(h) < 2 {
					b.WriteByte('0')
				}
				b.WriteString(h)
			case r == 0x2028 || r == 0x2029 || r == 0xfeff:
				b.WriteString(`\u`)
				b.WriteString(strconv.FormatInt(int64(r), 16))
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// field is one frontmatter line; an empty val is written as "key:" (YAML
// null), which is how Cursor itself writes an unset globs.
type field struct {
	key string
	val string // already a YAML scalar
}

// frontmatter renders "---\n" key: value lines "---\n" followed by body.
// The body is separated by a blank line and always ends in a newline.
func frontmatter(fields []field, extra string, body string) []byte {
	var b strings.Builder
	b.Grow(len(body) + 128)
	b.WriteString("---\n")
	for _, f := range fields {
		b.WriteString(f.key)
		b.WriteByte(':')
		if f.val != "" {
			b.WriteByte(' ')
			b.WriteString(f.val)
		}
		b.WriteByte('\n')
	}
	b.WriteString(extra)
	b.WriteString("---\n")
	if body != "" {
		b.WriteByte('\n')
		b.WriteString(body)
		if !strings.HasSuffix(body, "\n") {
			b.WriteByte('\n')
		}
	}
	return []byte(b.String())
}

// splitFrontmatter separates a leading YAML frontmatter block from a
// Markdown text. Hub skills are normally loaded as a body without it, but
// a SKILL.md copied verbatim into `content` would otherwise end up with two
// frontmatter blocks, which no tool reads. It returns the lines between
// the fences (each ending in "\n") and the rest.
func splitFrontmatter(s string) (fm, body string, ok bool) {
	rest, found := strings.CutPrefix(s, "---\n")
	if !found {
		rest, found = strings.CutPrefix(s, "---\r\n")
		if !found {
			return "", s, false
		}
	}
	if strings.HasPrefix(rest, "---\n") {
		return "", strings.TrimLeft(rest[4:], "\r\n"), true
	}
	i := strings.Index(rest, "\n---\n")
	if i < 0 {
		if strings.HasSuffix(rest, "\n---") {
			return rest[:len(rest)-3], "", true
		}
		return "", s, false
	}
	return rest[:i+1], strings.TrimLeft(rest[i+5:], "\r\n"), true
}

// dropKeys removes the top-level keys (and their indented continuation
// lines) from frontmatter text, keeping every other field verbatim, so
// that fields we do not generate (license, allowed-tools, metadata, ...)
// survive while name/description come from the config.
func dropKeys(fm string, keys ...string) string {
	var b strings.Builder
	skipping := false
	for _, line := range strings.SplitAfter(fm, "\n") {
		if line == "" {
			continue
		}
		indented := line[0] == ' ' || line[0] == '\t'
		if skipping && (indented || strings.TrimSpace(line) == "") {
			continue
		}
		skipping = false
		if !indented {
			for _, k := range keys {
				if strings.HasPrefix(line, k+":") {
					skipping = true
					break
				}
			}
			if skipping {
				continue
			}
		}
		b.WriteString(line)
	}
	out := b.String()
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out
}

// joinParagraphs joins non-empty texts with one blank line between them,
// trimming surrounding blank lines of each, and ends with a newline.
func joinParagraphs(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		p = strings.Trim(p, "\r\n")
		if strings.TrimSpace(p) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(p)
	}
	if b.Len() == 0 {
		return ""
	}
	b.WriteByte('\n')
	return b.String()
}

// firstLine returns the first non-empty line of s without Markdown heading
// marks; used as a description when a component has none, because Agent
// Skills and Claude sub-agents require a non-empty description.
func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line != "" {
			return line
		}
	}
	return ""
}
