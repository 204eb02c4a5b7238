package main

import (
	"strings"
	"unicode/utf8"

	"github.com/actctl/actctl/internal/termsafe"
)

// maxCell bounds the text of one table cell, in runes.
const maxCell = 160

// cellText is s for one cell of a table (status): its first line, at
// most maxCell runes, escaped; "…" marks what was left out, which
// describe and -o json show whole. A multi-line error (an agent's
// stderr tail) never becomes one long cell of escaped newlines.
func cellText(s string) string {
	first, rest, more := strings.Cut(strings.TrimSpace(s), "\n")
	first = strings.TrimSpace(first)
	cut := more && strings.TrimSpace(rest) != ""
	if utf8.RuneCountInString(first) > maxCell {
		first, cut = string([]rune(first)[:maxCell]), true
	}
	first = termsafe.Line(first)
	if cut {
		first += " …"
	}
	return first
}

// cellList is items in one cell, each as cellText, joined by "; ".
func cellList(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = cellText(s)
	}
	return strings.Join(out, "; ")
}
