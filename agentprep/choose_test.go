package agentprep

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/proxy"
	"github.com/actctl/actctl/schema"
)

const chooseCue = `package actant

templates: {
	tl: {backend: "claude-code", archetype: "tool"}
	rp: {backend: "claude-code", archetype: "repo"}
	sv: {backend: "claude-code", archetype: "service"}
	eph: {backend: "claude-code", archetype: "repo", workspacePolicy: "ephemeral"}
	once: {backend: "claude-code", archetype: "repo", launchMode: "one-shot"}
}
agents: {
	helper: template: "tl"
	builder: template: "rp"
	server: template: "sv"
	scratch: template: "eph"
	single: template: "once"
}
`

// chooseWorkspace loads chooseCue in a new workspace; other is a project
// outside it.
func chooseWorkspace(t *testing.T) (cfg *schema.Config, root, home, other string) {
	t.Helper()
	root, home, other = t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(chooseCue), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := schema.Load(schema.LoadOptions{Dir: root, Cwd: root, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, root, home, other
}

// files lists the files under dirs.
func files(t *testing.T, dirs ...string) []string {
	t.Helper()
	var got []string
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				got = append(got, p)
			}
			return nil
		})
	}
	return got
}

// TestChoose is the decision of which copy of an agent a client gets
// (docs/run.md): declared, per-project copy, ephemeral copy, template;
// the offered modes; the refusals. Choose writes nothing.
func TestChoose(t *testing.T) {
	type want struct {
		name      string // the agent's name, or its prefix with a trailing *
		dir       string // "root", "other", "instance"
		origin    string
		ephemeral bool
		shared    bool
		template  bool
		adhoc     bool // an ad-hoc agent to record, fresh
		note      bool
		err       string
		usage     bool
	}
	tests := []struct {
		name              string
		verb, agent, tmpl string
		other, keep       bool
		live              []string
		copyOfCopy        bool // helper's per-project copy for other is recorded; the client is a third project
		want              want
	}{
		{name: "proxy declared", verb: "proxy", agent: "helper",
			want: want{name: "helper", dir: "root", origin: "agents.helper"}},
		{name: "proxy per-project copy", verb: "proxy", agent: "helper", other: true,
			want: want{name: "helper-p*", dir: "other", origin: "agents.helper", adhoc: true}},
		{name: "proxy copy asked by name", verb: "proxy", copyOfCopy: true,
			want: want{name: "helper-p*", dir: "third", origin: "agents.helper", adhoc: true}},
		{name: "proxy live instance agent", verb: "proxy", agent: "builder", live: []string{"builder"},
			want: want{name: "builder-eph-*", dir: "instance", origin: "agents.builder", ephemeral: true, note: true}},
		{name: "proxy live project agent", verb: "proxy", agent: "helper", live: []string{"helper"},
			want: want{name: "helper-eph-*", dir: "root", origin: "agents.helper", ephemeral: true, shared: true, note: true}},
		{name: "proxy live per-project copy", verb: "proxy", agent: "helper", other: true, live: []string{"helper-p"},
			want: want{name: "helper-p*", dir: "other", origin: "agents.helper", ephemeral: true, shared: true, note: true}},
		{name: "proxy ephemeral policy", verb: "proxy", agent: "scratch",
			want: want{name: "scratch-eph-*", dir: "instance", origin: "agents.scratch", ephemeral: true, note: true}},
		{name: "proxy one-shot", verb: "proxy", agent: "single",
			want: want{name: "single-eph-*", dir: "instance", origin: "agents.single", ephemeral: true, note: true}},
		{name: "proxy -t", verb: "proxy", agent: "fresh", tmpl: "tl", other: true,
			want: want{name: "fresh", dir: "other", origin: "templates.tl", adhoc: true}},
		{name: "proxy unknown agent", verb: "proxy", agent: "helpr",
			want: want{err: `unknown agent "helpr" (did you mean "helper"?)`}},
		{name: "proxy unknown template", verb: "proxy", agent: "x", tmpl: "tll",
			want: want{err: `proxy -t: unknown template "tll" (did you mean "tl"?)`}},
		{name: "proxy bad name", verb: "proxy", agent: "Bad Name", tmpl: "tl",
			want: want{err: "proxy: "}},
		{name: "run declared", verb: "run", agent: "builder",
			want: want{name: "builder", dir: "instance", origin: "agents.builder"}},
		{name: "run not offered", verb: "run", agent: "server",
			want: want{err: `agent "server" does not offer run`}},
		{name: "chat not offered", verb: "chat", agent: "server",
			want: want{err: `agent "server" does not offer chat`}},
		{name: "run live", verb: "run", agent: "builder", live: []string{"builder"},
			want: want{name: "builder-eph-*", dir: "instance", origin: "agents.builder", ephemeral: true, note: true}},
		{name: "run ephemeral policy", verb: "run", agent: "scratch",
			want: want{name: "scratch-eph-*", dir: "instance", origin: "agents.scratch", ephemeral: true, note: true}},
		{name: "chat one-shot", verb: "chat", agent: "single",
			want: want{name: "single-eph-*", dir: "instance", origin: "agents.single", ephemeral: true, note: true}},
		{name: "run per-project copy", verb: "run", agent: "helper", other: true,
			want: want{name: "helper-p*", dir: "other", origin: "agents.helper", adhoc: true}},
		{name: "run -t", verb: "run", tmpl: "rp",
			want: want{name: "rp-run-*", dir: "instance", origin: "templates.rp", ephemeral: true, template: true, adhoc: true}},
		{name: "chat -t --keep", verb: "chat", agent: "kept", tmpl: "tl", other: true, keep: true,
			want: want{name: "kept", dir: "other", origin: "templates.tl", template: true, adhoc: true}},
		{name: "run -t declared name", verb: "run", agent: "builder", tmpl: "rp",
			want: want{err: `run -t: agent "builder" is declared; drop -t to run it, or name another`, usage: true}},
		{name: "run -t unknown template", verb: "run", tmpl: "r",
			want: want{err: `run -t: unknown template "r"`}},
		{name: "run -t not offered", verb: "run", tmpl: "sv",
			want: want{err: `template "sv" does not offer run`}},
		{name: "run unknown agent", verb: "run", agent: "nobody",
			want: want{err: `unknown agent "nobody"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, root, home, other := chooseWorkspace(t)
			client := root
			if tc.other {
				client = other
			}
			name := tc.agent
			if tc.copyOfCopy {
				name = proxy.ProjectCopyName("helper", other)
				cfg.Agents[name] = schema.Agent{Template: "tl", Adhoc: true, WorkDir: other, WorkDirConflict: schema.ConflictAppend}
				client = t.TempDir()
			}
			before := files(t, root, home, other, client)
			req := Request{Verb: Verb(tc.verb), Name: name, Template: tc.tmpl, ClientDir: client, Keep: tc.keep,
				Live: func(r *schema.Resolved) (bool, error) {
					for _, l := range tc.live {
						if r.Name == l || strings.HasPrefix(r.Name, l) && l == "helper-p" {
							return true, nil
						}
					}
					return false, nil
				}}
			c, err := Choose(cfg, req)
			if got := files(t, root, home, other, client); len(got) != len(before) {
				t.Errorf("Choose wrote %v", got)
			}
			w := tc.want
			if w.err != "" {
				var ue *UsageError
				if err == nil || !strings.Contains(err.Error(), w.err) || errors.As(err, &ue) != w.usage {
					t.Fatalf("Choose: %v (usage %v), want %q (usage %v)", err, errors.As(err, &ue), w.err, w.usage)
				}
				return
			}
			if err != nil {
				t.Fatalf("Choose: %v", err)
			}
			checkChoice(t, cfg, c, w.name, w.dir, map[string]string{"root": root, "other": other, "third": client})
			if c.Origin != w.origin || c.Ephemeral != w.ephemeral || c.Shared != w.shared || c.FromTemplate != w.template ||
				(c.Adhoc != nil) != w.adhoc || (c.Note != "") != w.note {
				t.Errorf("choice %+v, want %+v", c, w)
			}
			if strings.HasPrefix(w.name, "helper-p") && !w.ephemeral && c.Agent.Name != proxy.ProjectCopyName("helper", client) {
				t.Errorf("agent %s, want helper's copy for %s", c.Agent.Name, client)
			}
			if c.Adhoc != nil && (c.Adhoc.Name != c.Agent.Name || !c.Adhoc.Fresh) {
				t.Errorf("ad hoc %+v, want the fresh %s", c.Adhoc, c.Agent.Name)
			}
		})
	}
}

// checkChoice checks the chosen agent's name (a trailing * for a prefix),
// its directory, and that an apply of cfg would write it unless it shares
// a live agent's files.
func checkChoice(t *testing.T, cfg *schema.Config, c *Choice, name, dir string, dirs map[string]string) {
	t.Helper()
	got := c.Agent.Name
	if p, ok := strings.CutSuffix(name, "*"); ok && !strings.HasPrefix(got, p) || !ok && got != name {
		t.Errorf("agent %s, want %s", got, name)
	}
	if d, ok := dirs[dir]; ok && c.Agent.Dir != d || !ok && !strings.Contains(c.Agent.Dir, "instances") {
		t.Errorf("agent %s in %s, want %s", got, c.Agent.Dir, dir)
	}
	if _, ok := cfg.Agents[got]; ok == c.Shared {
		t.Errorf("agent %s in the config: %v, want %v", got, ok, !c.Shared)
	}
}
