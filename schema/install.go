package schema

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// InstallArgv splits a backend's install command into its argv by the
// shell's quoting rules, or says why it is not one command a shell would
// run as written (docs/backends.md): words separated by blanks, '...'
// taken as is, "..." with \" \\ \$ \` escapes, \c outside quotes the
// character c. Refused: an operator outside quotes (| & ; < > ( )), an
// expansion ($ or ` outside single quotes, a glob or a leading ~ outside
// quotes), a comment, a control character, an unclosed quote, and "${{"
// anywhere (a GitHub workflow would expand it). A pipeline or a list is
// one command through a shell: sh -c 'curl -fsSL URL | bash'.
func InstallArgv(s string) ([]string, error) {
	if strings.Contains(s, "${{") {
		return nil, fmt.Errorf("it holds \"${{\", which a GitHub workflow would expand")
	}
	if r := controlChar(s); r >= 0 {
		return nil, fmt.Errorf("it holds the control character %U", r)
	}
	w := &wordSplitter{}
	for _, r := range s {
		if err := w.next(r); err != nil {
			return nil, err
		}
	}
	if w.quote != 0 || w.escaped {
		return nil, fmt.Errorf("a quote or a backslash is not closed")
	}
	w.end()
	if len(w.words) == 0 {
		return nil, fmt.Errorf("it is empty")
	}
	return w.words, nil
}

// wordSplitter is InstallArgv's state: the words so far, the one being
// read (inWord: even an empty quoted one), the quote it is in.
type wordSplitter struct {
	words   []string
	cur     strings.Builder
	inWord  bool
	quote   rune // 0, '\'' or '"'
	escaped bool
}

func (w *wordSplitter) end() {
	if w.inWord {
		w.words = append(w.words, w.cur.String())
	}
	w.cur.Reset()
	w.inWord = false
}

func (w *wordSplitter) add(r rune) { w.cur.WriteRune(r); w.inWord = true }

// next reads one character.
func (w *wordSplitter) next(r rune) error {
	switch {
	case w.escaped:
		w.escaped = false
		if w.quote == '"' && !strings.ContainsRune("\"\\$`", r) {
			w.add('\\')
		}
		w.add(r)
	case w.quote == '\'':
		if r == '\'' {
			w.quote = 0
		} else {
			w.add(r)
		}
	case r == '\\':
		w.escaped, w.inWord = true, true
	case w.quote == '"':
		if r == '$' || r == '`' {
			return fmt.Errorf("it expands %q inside double quotes: put the word in single quotes", r)
		}
		if r == '"' {
			w.quote = 0
		} else {
			w.add(r)
		}
	case r == '\'' || r == '"':
		w.quote, w.inWord = r, true
	case unicode.IsSpace(r):
		w.end()
	default:
		return w.plain(r)
	}
	return nil
}

// plain reads a character outside quotes that is no quote, blank or
// backslash.
func (w *wordSplitter) plain(r rune) error {
	switch {
	case strings.ContainsRune("|&;<>()", r):
		return fmt.Errorf("it holds %q outside quotes, which a shell reads as an operator: give one command (sh -c '...' for a pipeline or a list)", r)
	case r == '$' || r == '`':
		return fmt.Errorf("it holds %q outside quotes, which a shell expands: put the word in single quotes", r)
	case strings.ContainsRune("*?[", r), r == '~' && !w.inWord, r == '#' && !w.inWord:
		return fmt.Errorf("it holds %q outside quotes, which a shell expands or reads as a comment: put the word in quotes", r)
	}
	w.add(r)
	return nil
}

// checkInstall refuses, at its field, an install of backend name that is
// not one command (InstallArgv).
func (c *Config) checkInstall(name string) Diagnostics {
	return c.installNotOne(Path("backends", name, "install"), "backend "+strconv.Quote(name), c.Backends[name].Install, "; or say how to install it in installNote")
}

// checkMCPInstall refuses, at its field, an install of MCP server name
// that is not one command, or given to a remote server (nothing runs
// on the machine to install).
func (c *Config) checkMCPInstall(name string) Diagnostics {
	s := c.MCPServers[name]
	if s.Install != "" && s.URL != "" {
		return Diagnostics{c.Diag(Path("mcpServers", name, "install"), "MCP server %q is remote (url): it has nothing to install; install is a local server's (command)", name)}
	}
	return c.installNotOne(Path("mcpServers", name, "install"), "MCP server "+strconv.Quote(name), s.Install, "")
}

// installNotOne is the refusal at path of install, the install command
// of what, when it is not one command; hint ends the message.
func (c *Config) installNotOne(path, what, install, hint string) Diagnostics {
	if install == "" {
		return nil
	}
	if _, err := InstallArgv(install); err != nil {
		return Diagnostics{c.Diag(path, "%s: install %q is not one command: %v%s", what, install, err, hint)}
	}
	return nil
}
