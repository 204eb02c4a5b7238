package deploy

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/actctl/actctl/schema"
)

// The image recipe: deploy.kubernetes.image is the operator's to build
// and pin; apply renders a Dockerfile beside the manifests that builds
// one holding what the workspace's agents on Kubernetes run
// (docs/deploy.md, "The image"). What the config names but no install
// command provides is listed in the recipe, for the operator to add.

// GoImage is the official Go image the recipe builds actctl in: the Go
// release go.mod's go line asks for (TestGoImageFollowsGoMod).
const GoImage = "golang:1.26-bookworm"

// runtimeImage is the recipe's base: Debian with Node.js, which most
// backends' CLIs and ACP adapters are installed with (npm).
const runtimeImage = "node:22-bookworm-slim"

// basePackages are the Debian packages the recipe installs: git for the
// clone and the agents, ssh for an SSH origin, curl and certificates for
// the backends' installers.
var basePackages = []string{"ca-certificates", "curl", "git", "openssh-client"}

// Need is one command the image must hold for the agents on Kubernetes.
type Need struct {
	// Command is the program, as the config names it.
	Command string
	// For says which part of the config runs it ("backend claude-code",
	// "mcpServers.github", "hooks.notify").
	For string
	// Install is the install command that provides it (a backend's or
	// an MCP server's), "" when the base image holds it or nothing in
	// the config does.
	Install string
	// Base: the runtime image holds it.
	Base bool
}

// ImageNeeds lists what the image must hold for the agents that
// deploy: kubernetes runs: actctl, git and sh (the clone), each
// backend's ACP command (with its install), the commands of the MCP
// servers they use, and the run hooks' commands, sorted by command and
// part. Nil without a Kubernetes target.
func ImageNeeds(cfg *schema.Config) []Need {
	if cfg.Deploy == nil || cfg.Deploy.Kubernetes == nil {
		return nil
	}
	seen := map[[2]string]Need{}
	add := func(n Need) {
		n.Base = schema.BaseCommand(n.Command)
		seen[[2]string{n.Command, n.For}] = n
	}
	add(Need{Command: "actctl", For: "the pods' command"})
	add(Need{Command: "git", For: "the clone"})
	add(Need{Command: "sh", For: "the clone"})
	rs, _ := agentsOn(cfg, schema.TargetKubernetes)
	for _, r := range rs {
		if acp := r.Backend.ACP; acp != nil && acp.Command != "" {
			add(Need{Command: acp.Command, For: "backend " + r.BackendName, Install: r.Backend.Install})
		}
		for _, name := range r.Template.MCPServers {
			if s, ok := cfg.MCPServers[name]; ok && s.Command != "" {
				add(Need{Command: s.Command, For: "mcpServers." + name, Install: s.Install})
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Hooks)) {
		if h := cfg.Hooks[name]; h.Run != nil && h.Run.Command != "" {
			add(Need{Command: h.Run.Command, For: "hooks." + name})
		}
	}
	needs := slices.Collect(maps.Values(seen))
	slices.SortFunc(needs, func(a, b Need) int {
		if c := strings.Compare(a.Command, b.Command); c != 0 {
			return c
		}
		return strings.Compare(a.For, b.For)
	})
	return needs
}

// dockerfile is the image recipe for cfg: actctl built in GoImage from
// k.Install, then the runtime image with basePackages, each backend's
// install command once, actctl, and the commands it does not install
// listed for the operator; it runs as the pods' user.
func dockerfile(cfg *schema.Config, k *schema.DeployKubernetes) ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", Header)
	b.WriteString("# The image deploy.kubernetes.image names: actctl, git and what the agents on Kubernetes run.\n")
	fmt.Fprintf(&b, "# Build it with the repository's root as the context: docker build -f <workspace>/%s -t IMAGE <repository>\n", path.Join(path.Clean(k.Dir), "Dockerfile"))
	b.WriteString("# then push it and pin it by digest (IMAGE@sha256:...) in deploy.kubernetes.image.\n\n")
	fmt.Fprintf(&b, "FROM %s AS actctl\n", GoImage)
	b.WriteString(actctlStage(k.Install))
	fmt.Fprintf(&b, "\nFROM %s\n", runtimeImage)
	fmt.Fprintf(&b, "RUN apt-get update \\\n && apt-get install -y --no-install-recommends %s \\\n && rm -rf /var/lib/apt/lists/*\n", strings.Join(basePackages, " "))
	needs := ImageNeeds(cfg)
	var installs, missing []string
	for _, n := range needs {
		switch {
		case n.Install != "":
			argv, err := schema.InstallArgv(n.Install)
			if err != nil {
				return nil, fmt.Errorf("%s: install %q: %w", n.For, n.Install, err)
			}
			if line := "RUN " + shellJoin(argv) + "\n"; !slices.Contains(installs, line) {
				installs = append(installs, line)
			}
		case !n.Base && n.Command != "actctl":
			missing = append(missing, fmt.Sprintf("#   %s (%s)\n", n.Command, n.For))
		}
	}
	for _, line := range installs {
		b.WriteString(line)
	}
	b.WriteString("COPY --from=actctl /out/actctl /usr/local/bin/actctl\n")
	if len(missing) > 0 {
		b.WriteString("# The workspace also runs these, which no install command in the config provides: add them above.\n")
		for _, m := range missing {
			b.WriteString(m)
		}
	}
	fmt.Fprintf(&b, "USER %d:%d\n", uid, uid)
	return []byte(b.String()), nil
}

// actctlStage builds actctl into /out/actctl from in: `go install` of
// the module version, the release at the URL checked against its
// sha256, or `go build` of the repository's directory (the build context
// is the repository's root).
func actctlStage(in schema.ActctlInstall) string {
	switch {
	case in.URL != "":
		return fmt.Sprintf("ADD --checksum=sha256:%s %s /tmp/actctl.download\n", in.SHA256, in.URL) +
			"RUN mkdir -p /out && case " + shellJoin([]string{in.URL}) + " in \\\n" +
			"      *.tar.gz|*.tgz) tar -xzf /tmp/actctl.download -C /out actctl ;; \\\n" +
			"      *) install -m 0755 /tmp/actctl.download /out/actctl ;; \\\n    esac\n"
	case in.Path != "":
		return "WORKDIR /src\nCOPY . .\nRUN CGO_ENABLED=0 go build -trimpath -o /out/actctl ./" + path.Clean(in.Path) + "\n"
	}
	return "RUN CGO_ENABLED=0 GOBIN=/out go install -trimpath " + Module + "@" + in.Version + "\n"
}
