package frontmatter

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Scalar renders s as a YAML scalar that every YAML 1.1/1.2 parser
// (and Cursor's laxer frontmatter reader) reads back as exactly s.
//
// Plain style is used only for text that is unambiguously a string:
// starting with a letter, no ": " or " #", no quotes, brackets or braces,
// no control characters, not a YAML 1.1 boolean/null word. Everything else
// is double-quoted with escapes, so descriptions like `Use when: "x"`,
// `#tag`, `yes` or `- item` stay strings and never break the frontmatter.
func Scalar(s string) string {
	if PlainSafe(s) {
		return s
	}
	return Quote(s)
}

// PlainSafe reports whether s can be written as a plain YAML scalar.
func PlainSafe(s string) bool {
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

// Quote writes s as a YAML double-quoted scalar. Invalid UTF-8 is replaced
// with U+FFFD first: YAML streams must be valid Unicode.
func Quote(s string) string {
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
