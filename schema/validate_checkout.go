package schema

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

// validateCheckout checks agent name's checkout (docs/runtime.md,
// "Checkout"), each problem at its field: an employee's only, a URL git
// can fetch from, a ref that can name a branch, tag or commit, a dir
// inside the agent's workspace.
func (c *Config) validateCheckout(name string) Diagnostics {
	a := c.Agents[name]
	co := a.Checkout
	if co == nil {
		return nil
	}
	at := func(field string) string { return Path("agents", name, "checkout") + "." + field }
	var ds Diagnostics
	if t, ok := c.Templates[a.Template]; ok && t.Archetype != ArchEmployee {
		ds = append(ds, c.Diag(Path("agents", name, "checkout"), "checkout is for employee agents (their tasks run in it); %s has archetype %q", name, t.Archetype))
	}
	if msg := checkoutURL(co.URL); msg != "" {
		ds = append(ds, c.Diag(at("url"), "%s", msg))
	}
	if msg := checkoutRef(co.Ref); msg != "" {
		ds = append(ds, c.Diag(at("ref"), "%s", msg))
	}
	if msg := checkoutDir(co.Dir); msg != "" {
		ds = append(ds, c.Diag(at("dir"), "%s", msg))
	}
	return ds
}

// checkoutURL says what is wrong with a checkout URL, or "".
func checkoutURL(u string) string {
	if strings.TrimSpace(u) != u || strings.ContainsFunc(u, isControl) || strings.HasPrefix(u, "-") {
		return fmt.Sprintf("invalid checkout url %q: no spaces, control characters or leading '-'", u)
	}
	ep, err := transport.NewEndpoint(u)
	if err != nil {
		return fmt.Sprintf("invalid checkout url %q: %v", u, err)
	}
	switch ep.Protocol {
	case "https", "http", "ssh", "git", "file":
		return ""
	}
	return fmt.Sprintf("invalid checkout url %q: protocol %q; give https://, ssh://, git@host:path, file:// or a local path", u, ep.Protocol)
}

// checkoutRef says what is wrong with a checkout ref, or "": it must be
// able to name a branch, a tag or a commit (git check-ref-format's rules).
func checkoutRef(r string) string {
	bad := r == "" || strings.HasPrefix(r, "-") || strings.HasPrefix(r, "/") || strings.HasSuffix(r, "/") ||
		strings.HasSuffix(r, ".") || strings.HasSuffix(r, ".lock") || strings.Contains(r, "..") ||
		strings.Contains(r, "//") || strings.Contains(r, "@{") || strings.ContainsAny(r, " ~^:?*[\\") || strings.ContainsFunc(r, isControl)
	if bad {
		return fmt.Sprintf("invalid checkout ref %q: give a branch, a tag or a commit (no spaces, '..', '~', '^', ':', '?', '*', '[', '\\\\' or leading '-')", r)
	}
	return ""
}

// checkoutDir says what is wrong with a checkout dir, or "".
func checkoutDir(d string) string {
	if d == "" {
		return ""
	}
	clean := filepath.Clean(filepath.FromSlash(d))
	if filepath.IsAbs(d) || clean == "." || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return fmt.Sprintf("invalid checkout dir %q: give a directory inside the agent's workspace, such as \"checkout\" or \"src/app\"", d)
	}
	if first := strings.Split(filepath.ToSlash(clean), "/")[0]; first == "logs" || first == ".actant" || first == ".git" {
		return fmt.Sprintf("invalid checkout dir %q: %s is actctl's (the agent's logs and records)", d, first)
	}
	return ""
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }
