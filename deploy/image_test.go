package deploy

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestImageNeeds lists what the image must hold for testdata/team's
// agents on Kubernetes, from the config: actctl, git and sh for the
// clone, the backend's ACP adapter with its install command, the MCP
// servers' commands with theirs where given (a URL server needs none), a
// run hook's command.
func TestImageNeeds(t *testing.T) {
	cfg := loadTeam(t)
	cfg.Hooks = map[string]schema.Hook{"notify": {Run: &schema.HookRun{Command: "notify-send"}}, "log": {Run: &schema.HookRun{Command: "/bin/sh"}}}
	var got []string
	for _, n := range ImageNeeds(cfg) {
		got = append(got, fmt.Sprintf("%s|%s|%s|%v", n.Command, n.For, n.Install, n.Base))
	}
	want := []string{
		"/bin/sh|hooks.log||true",
		"actctl|the pods' command||false",
		"claude-agent-acp|backend claude-code|npm install -g @anthropic-ai/claude-code @agentclientprotocol/claude-agent-acp|false",
		"git|the clone||true",
		"github-mcp-server|mcpServers.github||false",
		"notify-send|hooks.notify||false",
		"sh|the clone||true",
		"tracker-mcp|mcpServers.tracker|npm install -g @acme/tracker-mcp|false",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("needs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestImageRecipe: the rendered Dockerfile holds every need of
// ImageNeeds: installed (each backend's and MCP server's install command once, as a RUN
// that sh parses), in its base image, or listed for the operator to add;
// actctl is built in the official Go image from deploy.kubernetes.install
// (a module version, a release checked by its sha256, or the
// repository's directory) and copied in; the image runs as the pods'
// user.
func TestImageRecipe(t *testing.T) {
	cfg := loadTeam(t)
	k := cfg.Deploy.Kubernetes
	for _, tc := range []struct {
		in   schema.ActctlInstall
		want string
	}{
		{schema.ActctlInstall{Version: "v0.9.0"}, "RUN CGO_ENABLED=0 GOBIN=/out go install -trimpath github.com/actctl/actctl/cmd/actctl@v0.9.0\n"},
		{schema.ActctlInstall{Path: "cmd/actctl/"}, "WORKDIR /src\nCOPY . .\nRUN CGO_ENABLED=0 go build -trimpath -o /out/actctl ./cmd/actctl\n"},
		{schema.ActctlInstall{URL: "https://example.com/actctl.tar.gz", SHA256: strings.Repeat("ab", 32)}, "ADD --checksum=sha256:" + strings.Repeat("ab", 32) + " https://example.com/actctl.tar.gz /tmp/actctl.download\n"},
	} {
		k.Install = tc.in
		b, err := dockerfile(cfg, k)
		if err != nil {
			t.Fatal(err)
		}
		df := string(b)
		if !strings.Contains(df, "FROM "+GoImage+" AS actctl\n"+tc.want) {
			t.Errorf("%+v: the actctl stage is not\n%s\n%s", tc.in, tc.want, df)
		}
		for _, n := range ImageNeeds(cfg) {
			argv, _ := schema.InstallArgv(n.Install)
			switch {
			case n.Command == "actctl":
				if !strings.Contains(df, "COPY --from=actctl /out/actctl /usr/local/bin/actctl\n") {
					t.Errorf("actctl is not copied in:\n%s", df)
				}
			case n.Install != "":
				if strings.Count(df, "RUN "+shellJoin(argv)+"\n") != 1 {
					t.Errorf("%s (%s) is not installed once:\n%s", n.Command, n.For, df)
				}
			case n.Base:
				if n.Command == "git" && !strings.Contains(df, " git ") {
					t.Errorf("git is not installed:\n%s", df)
				}
			default:
				if !strings.Contains(df, "#   "+n.Command+" ("+n.For+")\n") {
					t.Errorf("%s (%s) is neither installed nor listed:\n%s", n.Command, n.For, df)
				}
			}
		}
		if !strings.HasSuffix(df, "USER 1000:1000\n") {
			t.Errorf("the image does not end as the pods' user:\n%s", df)
		}
		checkRunLines(t, df)
	}
}

// checkRunLines parses each RUN of the Dockerfile df with sh -n, as the
// shell form of RUN runs it.
func checkRunLines(t *testing.T, df string) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		return
	}
	for _, run := range regexp.MustCompile(`(?ms)^RUN (.*?[^\\])\n`).FindAllStringSubmatch(df, -1) {
		if out, err := exec.Command(sh, "-n", "-c", run[1]).CombinedOutput(); err != nil {
			t.Errorf("sh -n refuses RUN %s: %v\n%s", run[1], err, out)
		}
	}
}

// TestGoImageFollowsGoMod: the recipe builds actctl in the Go release
// go.mod asks for (Debian's Go cannot read a newer go line).
func TestGoImageFollowsGoMod(t *testing.T) {
	b, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(b)
	if m == nil || GoImage != "golang:"+string(m[1])+"-bookworm" {
		t.Errorf("GoImage %s, go.mod's go line %q", GoImage, m)
	}
}
