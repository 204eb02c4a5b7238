package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/benchconfig"
	"github.com/actctl/actctl/schema"
)

// TestExportJob checks that the eval floor does the work it stands for:
// the job's config, with actctl's schema, exported whole (the schema's
// defaults filled in: every skill, and each agent's template).
func TestExportJob(t *testing.T) {
	dir := t.TempDir()
	sch := filepath.Join(t.TempDir(), "schema.cue")
	if err := os.WriteFile(sch, schema.Source, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "actant.cue"), []byte(benchconfig.JobConfig(0)), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := export(&out, sch, dir); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Skills   map[string]json.RawMessage `json:"skills"`
		Agents   map[string]struct{ Template string }
		Backends map[string]json.RawMessage `json:"backends"`
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Skills) != benchconfig.JobSkills || len(v.Agents) != len(benchconfig.JobBackends) || len(v.Backends) == 0 {
		t.Errorf("%d skills, %d agents, %d backends (the schema's)", len(v.Skills), len(v.Agents), len(v.Backends))
	}
}

// TestExportRefusesBadConfig checks that a config the schema refuses is
// an error, not an export: the floor evaluates against the schema.
func TestExportRefusesBadConfig(t *testing.T) {
	dir := t.TempDir()
	sch := filepath.Join(t.TempDir(), "schema.cue")
	if err := os.WriteFile(sch, schema.Source, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "actant.cue"), []byte("package actant\nagents: a: template: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := export(&out, sch, dir)
	if err == nil || !strings.Contains(err.Error(), "template") || out.Len() != 0 {
		t.Errorf("err %v, output %q", err, out.String())
	}
}
