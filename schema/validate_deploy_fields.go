package schema

import (
	"fmt"
	"net"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/mod/semver"
)

// Every deploy field whose value reaches a rendered script, unit, argv
// or command line is checked here for its shape, so that the config's
// author cannot make it run something else (docs/deploy.md, "What the
// fields may hold"): a newline in a directory adding a line to the unit,
// `${{ ... }}` in what lands in a workflow's `run:` (GitHub expands it
// before the shell sees it), a ref or URL read as a git option.

// deployField is one field that reaches an executable context, and the
// rule its value must follow.
type deployField struct {
	path  string
	value string
	check func(string) string
}

// validateDeployFields checks each field of deployFields at its position.
func (c *Config) validateDeployFields() Diagnostics {
	var ds Diagnostics
	for _, f := range c.deployFields() {
		if why := f.check(f.value); why != "" {
			ds = append(ds, c.Diag(f.path, "%q: %s", f.value, why))
		}
	}
	return ds
}

// deployFields enumerates the fields the renderers put in a script, a
// unit, an argv or a workflow (agent names, secret keys, namespaces and
// resource names are held to their patterns by the schema itself, a
// backend's install command by checkInstall).
func (c *Config) deployFields() []deployField {
	var fs []deployField
	add := func(check func(string) string, value string, labels ...string) {
		fs = append(fs, deployField{Path(labels...), value, check})
	}
	if k := deployKubernetes(c.Deploy); k != nil {
		add(CheckDeployPath, k.Dir, "deploy", "kubernetes", "dir")
		add(CheckDeployToken, k.Image, "deploy", "kubernetes", "image")
		add(CheckDeployToken, k.Storage.Class, "deploy", "kubernetes", "storage", "class")
		add(checkQuantity, k.Storage.Size, "deploy", "kubernetes", "storage", "size")
		fs = append(fs, installFields(k.Install, "kubernetes")...)
		if np := k.NetworkPolicy; np != nil {
			for i, cidr := range np.CIDRs {
				fs = append(fs, deployField{Path("deploy", "kubernetes", "networkPolicy", "cidrs") + fmt.Sprintf("[%d]", i), cidr, checkCIDR})
			}
		}
		if k.Repo != nil {
			add(CheckDeployToken, k.Repo.URL, "deploy", "kubernetes", "repo", "url")
			add(CheckRefName, k.Repo.Ref, "deploy", "kubernetes", "repo", "ref")
		}
	}
	if g := deployGitHub(c.Deploy); g != nil {
		add(CheckDeployPath, g.Dir, "deploy", "github", "dir")
		add(CheckDeployToken, g.RunsOn, "deploy", "github", "runsOn")
		add(CheckModuleVersion, g.Actctl, "deploy", "github", "actctl")
		if g.Install != nil {
			fs = append(fs, installFields(*g.Install, "github")...)
		}
	}
	if s := c.Deploy.Systemd; s != nil {
		add(CheckDeployPath, s.Dir, "deploy", "systemd", "dir")
	}
	return fs
}

// installFields are the fields of target's install that reach a
// script or a Dockerfile.
func installFields(in ActctlInstall, target string) []deployField {
	var fs []deployField
	at := func(f string) string { return Path("deploy", target, "install", f) }
	if in.Version != "" {
		fs = append(fs, deployField{at("version"), in.Version, CheckModuleVersion})
	}
	if in.URL != "" {
		fs = append(fs, deployField{at("url"), in.URL, CheckDeployToken})
	}
	if in.Path != "" {
		fs = append(fs, deployField{at("path"), in.Path, checkRepoPath})
	}
	return fs
}

// checkRepoPath refuses a directory that is not inside the repository
// (absolute, or climbing out), or that CheckDeployPath refuses.
func checkRepoPath(p string) string {
	if why := CheckDeployPath(p); why != "" {
		return why
	}
	clean := path.Clean(p)
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") || strings.HasPrefix(p, "-") {
		return "not a directory inside the repository (give it relative to the repository's root)"
	}
	if strings.ContainsAny(p, " \t'\"$`\\") {
		return "holds a space, a quote, a $ or a backslash"
	}
	return ""
}

// controlChar reports the first control character of s (a line or
// paragraph separator counts), or -1.
func controlChar(s string) rune {
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return r
		}
	}
	return -1
}

// CheckDeployPath explains why p may not be a path a renderer writes into
// a file or a comment: it holds a control character. "" when it may.
func CheckDeployPath(p string) string {
	if r := controlChar(p); r >= 0 {
		return fmt.Sprintf("holds the control character %U, which would change the file it is written into", r)
	}
	return ""
}

// CheckDeployToken explains why s may not be one word of a command line
// or a workflow (an image, a URL, a runner label): a control character,
// white space, a leading "-" (read as an option) or a GitHub expression.
func CheckDeployToken(s string) string {
	switch {
	case s == "":
		return ""
	case controlChar(s) >= 0:
		return CheckDeployPath(s)
	case strings.IndexFunc(s, unicode.IsSpace) >= 0:
		return "holds white space: give one word"
	case strings.HasPrefix(s, "-"):
		return "starts with \"-\", which a command reads as an option"
	}
	return CheckNoExpression(s)
}

// CheckNoExpression explains why s may not land in a GitHub workflow's
// `run:` script: it holds "${{", which GitHub expands before the shell
// runs (an expression injection by whoever may trigger the workflow).
func CheckNoExpression(s string) string {
	if strings.Contains(s, "${{") {
		return "holds \"${{\": GitHub would expand it as an expression in the workflow's script"
	}
	return ""
}

// CheckModuleVersion explains why v may not be the version `go install`
// takes: "latest" or a semantic version (v1.2.3, v1.2.3-rc.1).
func CheckModuleVersion(v string) string {
	if v == "latest" || semver.IsValid(v) {
		return ""
	}
	return "not a version: give \"latest\" or a semantic version such as \"v0.9.0\""
}

// CheckRefName explains why ref may not be a branch or tag name, by git
// check-ref-format's rules, with no leading "-" (git would read it as an
// option). "" when it may.
func CheckRefName(ref string) string {
	bad := func(why string) string { return "not a git ref name: " + why }
	switch {
	case ref == "" || ref == "@":
		return bad("give a branch or tag name")
	case strings.HasPrefix(ref, "-"):
		return bad("it starts with \"-\", which git reads as an option")
	case controlChar(ref) >= 0 || strings.ContainsAny(ref, " ~^:?*[\\"):
		return bad("it holds a control character, a space or one of ~ ^ : ? * [ \\")
	case strings.Contains(ref, "..") || strings.Contains(ref, "@{") || strings.Contains(ref, "//"):
		return bad("it holds \"..\", \"@{\" or \"//\"")
	case strings.HasPrefix(ref, "/") || strings.HasSuffix(ref, "/") || strings.HasSuffix(ref, "."):
		return bad("it starts or ends with \"/\", or ends with \".\"")
	}
	for _, part := range strings.Split(ref, "/") {
		if strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return bad("a component starts with \".\" or ends with \".lock\"")
		}
	}
	return CheckNoExpression(ref)
}

// quantity is the shape of a Kubernetes resource quantity ("5Gi",
// "500m", "1.5"); compiled on first use.
var quantity = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9]+(\.[0-9]+)?([KMGTPE]i|[kMGTPE]|m)?$`)
})

// checkCIDR refuses what a NetworkPolicy's ipBlock does not take: an
// address block in CIDR notation, its host bits zero.
func checkCIDR(c string) string {
	ip, n, err := net.ParseCIDR(c)
	if err != nil {
		return "not an address block in CIDR notation (\"10.0.0.0/8\", \"::/0\")"
	}
	if !ip.Equal(n.IP) {
		return fmt.Sprintf("has host bits set: the block is %s", n)
	}
	return ""
}

// checkQuantity explains why q is not a Kubernetes quantity.
func checkQuantity(q string) string {
	if quantity().MatchString(q) {
		return ""
	}
	return "not a Kubernetes quantity: give a number with a unit such as \"5Gi\" or \"500m\""
}

// quantityScale is what a quantity's suffix multiplies by.
var quantityScale = map[string]float64{"": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
	"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60}

// quantityValue is quantity q as a number (the schema holds q to the
// shape checkQuantity takes).
func quantityValue(q string) float64 {
	i := strings.IndexFunc(q, func(r rune) bool { return r != '.' && (r < '0' || r > '9') })
	if i < 0 {
		i = len(q)
	}
	n, _ := strconv.ParseFloat(q[:i], 64)
	return n * quantityScale[q[i:]]
}

// checkResources refuses, at path, a request above its limit: the API
// server refuses such a pod.
func (c *Config) checkResources(path string, r Resources) Diagnostics {
	var ds Diagnostics
	for _, p := range []struct{ name, req, lim string }{{"cpu", r.Requests.CPU, r.Limits.CPU}, {"memory", r.Requests.Memory, r.Limits.Memory}} {
		if p.req != "" && p.lim != "" && quantityValue(p.req) > quantityValue(p.lim) {
			ds = append(ds, c.Diag(path, "the %s request %s is above its limit %s: Kubernetes refuses the pod", p.name, p.req, p.lim))
		}
	}
	return ds
}
