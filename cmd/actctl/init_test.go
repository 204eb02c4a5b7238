package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInitThenValidate(t *testing.T) {
	dir := t.TempDir()
	r := actctl(t, dir, "", "init")
	if r.Code != 0 {
		t.Fatalf("init: exit %d: %s", r.Code, r.Stderr)
	}
	before, err := os.ReadFile(filepath.Join(dir, "actant.cue"))
	if err != nil {
		t.Fatal(err)
	}
	if r := actctl(t, dir, "", "validate"); r.Code != 0 {
		t.Fatalf("validate after init: exit %d: %s", r.Code, r.Stderr)
	}
	r = actctl(t, dir, "", "init")
	if r.Code != 1 || !strings.Contains(r.Stderr, "already exists") {
		t.Fatalf("second init: exit %d: %s", r.Code, r.Stderr)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "actant.cue"))
	if string(after) != string(before) {
		t.Fatal("second init changed actant.cue")
	}
}
