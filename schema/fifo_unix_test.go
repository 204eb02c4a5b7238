//go:build unix

package schema

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// TestSpecialFilesNeverOpened: a named pipe where the loader reads (a
// *.cue file of the root or of cue.mod/, a skill file, SKILL.md, a file of
// a skill directory) is refused with its name instead of blocking forever
// in open(2); a pipe that is no *.cue file is ignored. A regression hangs
// this test until go test's own timeout.
func TestSpecialFilesNeverOpened(t *testing.T) {
	const ok = "package actant\ntemplates: t: backend: \"claude-code\"\nagents: a: template: \"t\"\n"
	tests := []struct {
		name  string
		files map[string]string
		fifo  string
		want  []string // substrings of the error; none: loads fine
	}{
		{"cue file in root", map[string]string{"actant.cue": ok}, "extra.cue", []string{"extra.cue: not a regular file (a named pipe)", "only regular *.cue files"}},
		{"cue file in cue.mod", map[string]string{"actant.cue": ok, "cue.mod/module.cue": "module: \"example.com/m\"\nlanguage: version: \"v0.9.0\"\n"}, "cue.mod/pkg/example.com/x/x.cue", []string{"x.cue: not a regular file (a named pipe)"}},
		{"other file in root", map[string]string{"actant.cue": ok}, "pipe", nil},
		{"skill file", map[string]string{"actant.cue": ok + "skills: s: file: \"s.md\"\n"}, "s.md", []string{"actant.cue:4:18: skills.s.file: read ", "s.md: not a regular file (a named pipe)"}},
		{"SKILL.md", map[string]string{"actant.cue": ok + "skills: s: dir: \"sk\"\n"}, "sk/SKILL.md", []string{"skills.s.dir", "SKILL.md: not a regular file (a named pipe)"}},
		{"skill sibling", map[string]string{"actant.cue": ok + "skills: s: dir: \"sk\"\n", "sk/SKILL.md": "body"}, "sk/notes.txt", []string{"skills.s.dir", "notes.txt: not a regular file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeWorkspace(t, tt.files)
			mkfifo(t, filepath.Join(dir, tt.fifo))
			_, err := LoadDir(dir, filepath.Join(t.TempDir(), "home"))
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("load: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("loaded a workspace with a named pipe where a file is read")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestReadRegularRefusesPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p")
	mkfifo(t, p)
	if _, err := ReadRegular(p, 0); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("ReadRegular(fifo) = %v", err)
	}
	f := filepath.Join(t.TempDir(), "f")
	os.WriteFile(f, []byte("12345"), 0o644)
	if b, err := ReadRegular(f, 5); err != nil || string(b) != "12345" {
		t.Fatalf("ReadRegular(file) = %q, %v", b, err)
	}
	if _, err := ReadRegular(f, 4); err == nil || !strings.Contains(err.Error(), "over the 4 byte limit") {
		t.Fatalf("ReadRegular over the limit = %v", err)
	}
}
