package reconcile

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/actctl/actctl/internal/par"
	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// Action is what happens to one file (or, for skip/drift/conflict/warning,
// what was found about one entry).
type Action string

const (
	ActCreate   Action = "create"
	ActUpdate   Action = "update"
	ActDelete   Action = "delete"
	ActRestore  Action = "restore" // a backed-up user file is put back
	ActSkip     Action = "skip"
	ActDrift    Action = "drift"
	ActConflict Action = "conflict"
	ActWarning  Action = "warning"
)

// PlanOptions steer Plan.
type PlanOptions struct {
	// Force overwrites hand-edited (drifted) entries after backing them up.
	Force bool
	// NoPrune keeps agents that are in the state but no longer declared.
	NoPrune bool
	// Only limits the plan to these agents; others are left exactly as
	// they are (their files, blocks, keys and state).
	Only []string
	// Stamp names this run's backup directory (.actant/backup/<Stamp>/);
	// Apply uses the UTC time. Plan is pure, so the caller supplies it.
	Stamp string
	// LockDigest is recorded in the state (the hub lock digest).
	LockDigest string
	// AtHead reports whether git holds the file abs with exactly data,
	// tracked at HEAD (see headChecker): only then may a removal that
	// rests on a committed record from elsewhere alone (a claim, see
	// EntryState.Claim) go ahead. Nil: git holds nothing.
	AtHead func(abs string, data []byte) bool
	// Where gives the position (file:line:col, relative to the root) of a
	// config path, for the drift note of a block whose text is one prompt
	// (materialize.Entry.Source). Nil: the note names the path alone.
	Where func(path string) string
}

// Op is one file-system change.
type Op struct {
	// Path is absolute (the real path, after an in-workspace symlink).
	Path   string   `json:"-"`
	Rel    string   `json:"path"`
	Action Action   `json:"action"`
	Agents []string `json:"agents,omitempty"`
	Reason string   `json:"reason,omitempty"`
	// Dir: the op creates a directory (ModeDir), not a file.
	Dir bool `json:"dir,omitempty"`
	// Data is the new content (create, update, restore).
	Data []byte `json:"-"`
	// Old is the current content, Exists whether there is one.
	Old    []byte      `json:"-"`
	Exists bool        `json:"-"`
	Perm   fs.FileMode `json:"-"`
	// SetPerm: the file gets exactly Perm, also when it exists (an owned
	// file's executable bit); OldPerm is its mode now.
	SetPerm bool        `json:"-"`
	OldPerm fs.FileMode `json:"-"`
	// MkDirs are the missing directories to create first, outermost first.
	MkDirs []string `json:"-"`
	// BackupTo, when set, receives Old before the change (absolute).
	BackupTo string `json:"backup,omitempty"`
	// RemoveBackup is the backup file a restore consumes (absolute).
	RemoveBackup string `json:"-"`
}

// Note is something found about one entry that does not change a file.
type Note struct {
	Rel    string `json:"path"`
	Action Action `json:"action"`
	Agent  string `json:"agent,omitempty"`
	Policy string `json:"policy,omitempty"`
	Reason string `json:"reason"`
	// Source: a drifted block's text is this config path (Entry.Source).
	Source string `json:"-"`
}

// Plan is everything Execute will do, decided before the first write.
type Plan struct {
	Root  string
	Ops   []*Op
	Notes []Note
	// RmDirs are directories actctl created that are removed, when empty,
	// after the deletions.
	RmDirs []string
	// State is the state to record after the ops; StateData its bytes,
	// encoded only when needed (see Bytes): when State records exactly
	// what the state given to MakePlan did, a no-op apply neither encodes
	// nor writes it.
	State     *State
	StateData []byte
	// stateSame: State equals the recorded state MakePlan was given.
	stateSame bool
	// recovered, when the last apply was killed, is the state MakePlan
	// was given: the recorded state merged with the killed run's journal
	// (recoverState). Execute records it as the state before it writes
	// its own journal: the killed run's journal is the only record of
	// the files that run wrote, and this run's journal replaces it.
	recovered *State
	// orphans are backups the killed run made of files it did not
	// replace: copies of files still in place, removed with the
	// recovered state recorded (see recoverState).
	orphans []string
	// Pruned are the agents removed from the workspace.
	Pruned []string
	// Raced are the ops Execute did not carry out because their file no
	// longer held what the plan read (edited while apply ran).
	Raced []*Op
	// prev is the recorded state the plan was made from (with the
	// committed record merged): a file whose compare-and-swap fails keeps
	// these records (see executor).
	prev *State
	// ownedPrev is the committed record as read; ownedNew the bytes of
	// the one this plan leaves (nil: none). See setOwned.
	ownedPrev *ownedRecord
	ownedNew  []byte
	// localAgents are left out of actant.owned (see ownedOf).
	localAgents map[string]bool
	// key seals the state and journal this plan writes (RecordKey; nil:
	// they are written unsealed, and not trusted when read).
	key []byte
}

// StateBytes returns the encoded State (StateData), sealed with the
// plan's key, encoding it once.
func (p *Plan) StateBytes() []byte {
	if p.StateData == nil {
		p.StateData = sealState(p.key, p.State.Encode())
	}
	return p.StateData
}

// Conflicts returns the conflict notes; a plan with any is not executed.
func (p *Plan) Conflicts() []Note {
	var out []Note
	for _, n := range p.Notes {
		if n.Action == ActConflict {
			out = append(out, n)
		}
	}
	return out
}

// desiredItem is one agent's wish for one file.
type desiredItem struct {
	agent, dir, policy string
	e                  *materialize.Entry
	sums               *entrySums
}

// recordedItem is one agent's recorded entry in one file.
type recordedItem struct {
	agent, dir string
	e          EntryState
	// frozen: out of scope (AGENT... or --no-prune): carried over as is.
	frozen bool
}

// fileGroup is everything about one real file.
type fileGroup struct {
	real, abs string
	fi        *FileInfo
	desired   []desiredItem
	recorded  []recordedItem
}

// newRecord is an entry of the next state, with where it belongs.
type newRecord struct {
	agent, dir string
	e          EntryState
}

// planner holds the pure computation's inputs and accumulators.
type planner struct {
	root   string
	snap   *Snapshot
	o      PlanOptions
	plan   *Plan
	recs   []newRecord
	rmDirs []string
	// backedUp: files already scheduled for a backup in this run.
	backedUp map[string]string
	// inScope reports whether an agent is planned (Options.Only); the
	// others keep their records as they are.
	inScope func(agent string) bool
	// declared are the agents with a target.
	declared map[string]bool
	// shared and sharedSums: the union body of each shared block (by the
	// absolute path of its file) and its digest (see sharedBodies).
	shared     map[string][]byte
	sharedSums map[string]string
}

// MakePlan computes, without any I/O, what apply must do so that disk matches
// targets: per file the new bytes, drift and conflict notes, and the next
// state. st is the recorded state (after crash recovery).
func MakePlan(root string, targets []*materialize.Target, snap *Snapshot, st *State, o PlanOptions) (*Plan, error) {
	if st == nil {
		st = NewState()
	}
	p := &planner{root: root, snap: snap, o: o, plan: &Plan{Root: root}, backedUp: map[string]string{},
		inScope: func(string) bool { return true }, declared: map[string]bool{}}
	if len(o.Only) > 0 {
		p.inScope = func(a string) bool { return slices.Contains(o.Only, a) }
	}
	for _, t := range targets {
		p.declared[t.Agent] = true
	}
	configDigest, sums := digestTargets(targets)
	p.shared, p.sharedSums = sharedBodies(targets)
	agentNames := slices.Sorted(maps.Keys(st.Agents))
	groups := p.groups(targets, sums, st, agentNames)
	if err := p.files(groups); err != nil {
		return nil, err
	}
	p.plan.State = p.nextState(targets, st, agentNames, configDigest)
	p.plan.stateSame = equalStates(p.plan.State, st)
	sort.Strings(p.rmDirs)
	p.plan.RmDirs = dedupe(p.rmDirs)
	return p.plan, nil
}

// frozen reports whether the recorded agent n is left as it is: out of
// scope, or removed from the config with --no-prune.
func (p *planner) frozen(n string) bool {
	return !p.inScope(n) || (!p.declared[n] && p.o.NoPrune)
}

// groups gathers the desired entries of targets and the recorded entries
// of st (its agents in agentNames order) by the file they live in.
func (p *planner) groups(targets []*materialize.Target, sums [][]entrySums, st *State, agentNames []string) []*fileGroup {
	nEntries := 0
	for _, t := range targets {
		nEntries += len(t.Entries)
	}
	p.recs = make([]newRecord, 0, nEntries)
	// Where each desired and recorded entry lives and what the snapshot
	// found there, looked up in parallel (the snapshot is only read).
	desLoc := make([][]entryLoc, len(targets))
	par.For(len(targets), par.IO(), func(ti int) {
		t := targets[ti]
		if p.inScope(t.Agent) {
			desLoc[ti] = locate(p.snap, newJoiner(t.Dir), len(t.Entries), func(i int) string { return t.Entries[i].Path })
		}
	})
	recLoc := make([][]entryLoc, len(agentNames))
	par.For(len(agentNames), par.IO(), func(ai int) {
		a := st.Agents[agentNames[ai]]
		recLoc[ai] = locate(p.snap, newJoiner(a.Dir), len(a.Entries), func(i int) string { return a.Entries[i].Path })
	})
	gr := newGrouper(desLoc, recLoc, nEntries)
	for ti, t := range targets {
		if !p.inScope(t.Agent) {
			continue
		}
		j := newJoiner(t.Dir)
		for i := range t.Entries {
			e := &t.Entries[i]
			g := gr.group(desLoc[ti][i], j, e.Path)
			g.desired = append(g.desired, desiredItem{agent: t.Agent, dir: t.Dir, policy: t.Conflict, e: e, sums: &sums[ti][i]})
		}
	}
	for ai, n := range agentNames {
		a := st.Agents[n]
		frozen := p.frozen(n)
		if !frozen && !p.declared[n] {
			p.plan.Pruned = append(p.plan.Pruned, n)
		}
		j := newJoiner(a.Dir)
		for i, e := range a.Entries {
			g := gr.group(recLoc[ai][i], j, e.Path)
			g.recorded = append(g.recorded, recordedItem{agent: n, dir: a.Dir, e: e, frozen: frozen})
		}
	}
	return gr.groups
}

// grouper finds the fileGroup of an entry.
type grouper struct {
	// simple: every entry's file is in the snapshot at its own path (no
	// symbolic link), the usual case: its FileInfo then stands for the
	// real path and groups are found by pointer, not by hashing the path
	// again.
	simple bool
	byFI   map[*FileInfo]*fileGroup
	byReal map[string]*fileGroup
	groups []*fileGroup
}

func newGrouper(desLoc, recLoc [][]entryLoc, nEntries int) *grouper {
	gr := &grouper{simple: true, byFI: map[*FileInfo]*fileGroup{}, byReal: map[string]*fileGroup{}}
	for _, locs := range [][][]entryLoc{desLoc, recLoc} {
		for _, ls := range locs {
			for _, l := range ls {
				gr.simple = gr.simple && l.own
			}
		}
	}
	if gr.simple {
		gr.byFI = make(map[*FileInfo]*fileGroup, nEntries)
	}
	return gr
}

// group returns the group of the entry at l (rel its path below j's
// directory), making it on first sight.
func (gr *grouper) group(l entryLoc, j joiner, rel string) *fileGroup {
	if gr.simple {
		g := gr.byFI[l.fi]
		if g == nil {
			g = &fileGroup{real: l.fi.Real, abs: l.fi.Real, fi: l.fi}
			gr.byFI[l.fi] = g
			gr.groups = append(gr.groups, g)
		}
		return g
	}
	abs := l.abs
	if abs == "" {
		abs = j.join(rel)
	}
	fi := l.fi
	var g *fileGroup
	if fi != nil {
		g = gr.byReal[fi.Real]
	} else {
		g = gr.byReal[abs]
	}
	if g == nil {
		if fi == nil {
			fi = &FileInfo{Real: abs}
		}
		g = &fileGroup{real: fi.Real, abs: abs, fi: fi}
		gr.byReal[fi.Real] = g
		gr.groups = append(gr.groups, g)
	}
	return g
}

// files plans the groups in the order of their real paths. Whether a file
// is unchanged (the no-op fast path) is a pure check, made in parallel
// first.
func (p *planner) files(groups []*fileGroup) error {
	sortGroups(groups)
	keep := make([]bool, len(groups))
	if !p.o.Force {
		par.For(len(groups), par.IO(), func(i int) { keep[i] = !hasDirEntry(groups[i]) && p.unchanged(groups[i]) })
	}
	for i, g := range groups {
		if keep[i] {
			p.keepConfirmed(g)
			continue
		}
		if err := p.file(g); err != nil {
			return err
		}
	}
	return nil
}

// nextState is the state the plan records: every kept record, grouped by
// agent.
func (p *planner) nextState(targets []*materialize.Target, st *State, agentNames []string, configDigest string) *State {
	next := NewState()
	next.Root = p.root
	next.LockDigest = p.o.LockDigest
	next.ConfigDigest = configDigest
	for _, t := range targets {
		if p.inScope(t.Agent) {
			next.Agents[t.Agent] = &AgentState{Dir: t.Dir, Entries: make([]EntryState, 0, len(t.Entries))}
		}
	}
	for _, n := range agentNames {
		if _, ok := next.Agents[n]; ok {
			continue
		}
		if p.frozen(n) {
			next.Agents[n] = &AgentState{Dir: st.Agents[n].Dir, Entries: []EntryState{}}
		}
	}
	p.transferDirs()
	for _, r := range p.recs {
		a := next.Agents[r.agent]
		if a == nil {
			continue // a pruned agent's entries are dropped
		}
		a.Entries = append(a.Entries, r.e)
	}
	if len(p.o.Only) > 0 && st.ConfigDigest != "" {
		// A partial apply did not apply the whole config.
		next.ConfigDigest = st.ConfigDigest
	}
	for _, a := range next.Agents {
		sortEntryStates(a.Entries)
	}
	return next
}

// entryLoc is where one entry lives: what the snapshot has at its path,
// own when that FileInfo is at its own path (Real is the path), and the
// path itself when it is not own ("" otherwise: it is fi.Real).
type entryLoc struct {
	abs string
	fi  *FileInfo
	own bool
}

// locate looks up n entry paths below one directory in the snapshot.
func locate(snap *Snapshot, j joiner, n int, path func(i int) string) []entryLoc {
	out := make([]entryLoc, n)
	var buf []byte
	for i := range out {
		rel := path(i)
		if j.fast && isCleanRel(rel) {
			buf = append(append(append(buf[:0], j.dir...), '/'), rel...)
			fi := snap.Files[string(buf)]
			if fi != nil && fi.Real == string(buf) {
				out[i] = entryLoc{fi: fi, own: true}
			} else {
				out[i] = entryLoc{abs: string(buf), fi: fi}
			}
			continue
		}
		abs := j.join(rel)
		fi := snap.Files[abs]
		out[i] = entryLoc{abs: abs, fi: fi, own: fi != nil && fi.Real == abs}
	}
	return out
}

// sortGroups sorts groups by real path (unique per group), the two halves
// in parallel.
func sortGroups(groups []*fileGroup) {
	cmp := func(a, b *fileGroup) int { return strings.Compare(a.real, b.real) }
	if len(groups) < 1024 {
		slices.SortFunc(groups, cmp)
		return
	}
	h := len(groups) / 2
	lo, hi := slices.Clone(groups[:h]), slices.Clone(groups[h:])
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); slices.SortFunc(lo, cmp) }()
	slices.SortFunc(hi, cmp)
	wg.Wait()
	i, j := 0, 0
	for k := range groups {
		if j >= len(hi) || (i < len(lo) && cmp(lo[i], hi[j]) <= 0) {
			groups[k] = lo[i]
			i++
		} else {
			groups[k] = hi[j]
			j++
		}
	}
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// rel is the display path of abs: relative to the workspace root when
// inside it, else absolute.
func (p *planner) rel(abs string) string {
	if r, ok := schema.RelWithin(p.root, abs); ok {
		return filepath.ToSlash(r)
	}
	return abs
}

func (p *planner) note(g *fileGroup, a Action, agent, policy, format string, args ...any) {
	p.plan.Notes = append(p.plan.Notes, Note{Rel: p.rel(g.abs), Action: a, Agent: agent, Policy: policy, Reason: fmt.Sprintf(format, args...)})
}

// backupPath returns where this run backs up the file abs (relative to the
// root, slash-separated), scheduling the backup once per file.
func (p *planner) backupPath(abs string) string {
	if b, ok := p.backedUp[abs]; ok {
		return b
	}
	r := p.rel(abs)
	if filepath.IsAbs(r) {
		// Outside the root (an instance or an absolute workDir): keep the
		// absolute path under "abs/" so backups never collide.
		r = "abs" + filepath.ToSlash(r)
	}
	stamp := p.o.Stamp
	if stamp == "" {
		stamp = "backup"
	}
	b := MetaDir + "/" + BackupDir + "/" + stamp + "/" + r
	p.backedUp[abs] = b
	return b
}

// missingDirs returns the directories between dir (inclusive) and the
// parent of abs that do not exist, outermost first.
func (p *planner) missingDirs(dir, abs string) []string {
	var out []string
	for d := filepath.Dir(abs); within(dir, d); d = filepath.Dir(d) {
		if p.snap.dirExists(d) {
			break
		}
		out = append(out, d)
		if d == dir {
			break
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func relDirs(dir string, abs []string) []string {
	var out []string
	for _, d := range abs {
		r, err := filepath.Rel(dir, d)
		if err != nil || strings.HasPrefix(r, "..") {
			continue
		}
		out = append(out, filepath.ToSlash(r))
	}
	return out
}

func absDirs(dir string, rel []string) []string {
	out := make([]string, 0, len(rel))
	for _, r := range rel {
		out = append(out, filepath.Join(dir, filepath.FromSlash(r)))
	}
	return out
}

// transferDirs hands the created directories of dropped records to kept
// records below them, so a directory shared by entries of several applies
// is still removed when its last entry goes.
func (p *planner) transferDirs() {
	if len(p.rmDirs) == 0 {
		return
	}
	type kept struct {
		abs string
		i   int
	}
	var ks []kept
	for i, r := range p.recs {
		ks = append(ks, kept{filepath.Join(r.dir, filepath.FromSlash(r.e.Path)), i})
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].abs < ks[j].abs })
	for _, d := range p.rmDirs {
		prefix := d + string(filepath.Separator)
		j := sort.Search(len(ks), func(i int) bool { return ks[i].abs >= prefix })
		if j < len(ks) && strings.HasPrefix(ks[j].abs, prefix) {
			r := &p.recs[ks[j].i]
			for _, rd := range relDirs(r.dir, []string{d}) {
				if !slices.Contains(r.e.Dirs, rd) {
					r.e.Dirs = append(append([]string(nil), r.e.Dirs...), rd)
					sort.Strings(r.e.Dirs)
				}
			}
		}
	}
}

// file plans one real file.
func (p *planner) file(g *fileGroup) error {
	// Frozen records are carried over first; the kinds below may update
	// their bookkeeping (block and key order) when they re-seat them.
	hasDir, hasFile, hasText := false, false, false
	for _, d := range g.desired {
		switch d.e.Mode {
		case materialize.ModeDir:
			hasDir = true
		case materialize.ModeFile:
			hasFile = true
		default:
			hasText = true
		}
	}
	for _, r := range g.recorded {
		switch r.e.Mode {
		case materialize.ModeDir:
			hasDir = true
		case materialize.ModeFile:
			hasFile = true
		default:
			hasText = true
		}
	}
	switch {
	case hasDir && (hasFile || hasText):
		p.note(g, ActConflict, "", "", "wanted both as a directory and as a file")
		p.keepAll(g)
		return nil
	case hasDir:
		p.dirs(g)
		return nil
	case hasFile && hasText && len(g.desired) > 0 && len(g.recorded) > 0:
		// A layout change turned a whole-file entry into blocks/keys or
		// back. Rare; handle the removal this run and the rest next run
		// would surprise users, so do both: owned file first.
	}
	return p.content(g)
}

// hasDirEntry: a ModeDir entry is wanted or recorded in g (p.file does not
// plan such a group as content).
func hasDirEntry(g *fileGroup) bool {
	for _, d := range g.desired {
		if d.e.Mode == materialize.ModeDir {
			return true
		}
	}
	for _, r := range g.recorded {
		if r.e.Mode == materialize.ModeDir {
			return true
		}
	}
	return false
}

// keepAll carries every record of g into the next state unchanged.
func (p *planner) keepAll(g *fileGroup) {
	for _, r := range g.recorded {
		p.recs = append(p.recs, newRecord{agent: r.agent, dir: r.dir, e: r.e})
	}
}

// keepConfirmed is keepAll for a file found unchanged: every record in
// scope is exactly what its agent wants, so none is a mere claim any
// more.
func (p *planner) keepConfirmed(g *fileGroup) {
	for _, r := range g.recorded {
		if !r.frozen {
			r.e.Claim = false
		}
		p.recs = append(p.recs, newRecord{agent: r.agent, dir: r.dir, e: r.e})
	}
}

// dirs plans ModeDir entries: create missing, remove on prune when empty.
func (p *planner) dirs(g *fileGroup) {
	var agents []string
	var mk []string
	for _, d := range g.desired {
		var rec *EntryState
		for i := range g.recorded {
			if g.recorded[i].agent == d.agent {
				rec = &g.recorded[i].e
			}
		}
		e := EntryState{Path: d.e.Path, Mode: materialize.ModeDir}
		if rec != nil {
			e.Dirs = rec.Dirs
		}
		if !g.fi.Exists {
			missing := append(p.missingDirs(d.dir, g.abs), g.abs)
			if mk == nil {
				mk = missing
			}
			// The recorded ones stay: a killed run may have made the
			// parents and not the directory itself.
			e.Dirs = mergeDirs(e.Dirs, relDirs(d.dir, missing))
			agents = append(agents, d.agent)
		}
		p.recs = append(p.recs, newRecord{agent: d.agent, dir: d.dir, e: e})
	}
	for _, r := range g.recorded {
		if r.frozen {
			p.recs = append(p.recs, newRecord{agent: r.agent, dir: r.dir, e: r.e})
			continue
		}
		still := false
		for _, d := range g.desired {
			still = still || d.agent == r.agent
		}
		if !still {
			p.rmDirs = append(p.rmDirs, absDirs(r.dir, r.e.Dirs)...)
		}
	}
	if len(mk) > 0 {
		p.plan.Ops = append(p.plan.Ops, &Op{Path: g.abs, Rel: p.rel(g.abs), Action: ActCreate, Agents: agents, Dir: true, MkDirs: mk})
	}
}

// fileState is the evolving content of one file while it is planned.
type fileState struct {
	content []byte
	present bool
	// backup is the user's original recorded (or newly made) for
	// workDirConflict=overwrite; created: actctl created the file.
	backup  string
	created bool
	// forcedBackup: --force replaced a hand edit; the file's current bytes
	// are backed up first (not restored on prune).
	forcedBackup bool
	agents       []string
	reasons      []string
	// pruned is what pruned agents no longer manage here (pruneReason).
	pruned []prunedItem
	// drifted: a hand edit was kept in this file.
	drifted bool
	// perm, when not 0, is the mode the file must have (see ownedMode).
	perm fs.FileMode
	// createdHere: created comes from a record of this machine, not only
	// from a claim (EntryState.Claim).
	createdHere bool
}

func (fs *fileState) touch(agent, reason string) {
	if !slices.Contains(fs.agents, agent) {
		fs.agents = append(fs.agents, agent)
	}
	if reason != "" && !slices.Contains(fs.reasons, reason) {
		fs.reasons = append(fs.reasons, reason)
	}
}

// unchanged reports whether g can be kept as it is without looking inside
// the file: it has the bytes the last apply left (FileSHA) and every
// desired entry is exactly what is recorded. Drifted files never carry a
// FileSHA, so drift is always re-examined (and reported).
func (p *planner) unchanged(g *fileGroup) bool {
	if !g.fi.Exists || len(g.recorded) == 0 || p.o.Force {
		return false
	}
	active := 0
	for _, r := range g.recorded {
		if r.e.FileSHA == "" || !g.fi.digest().is(r.e.FileSHA) {
			return false
		}
		if !r.frozen {
			active++
		}
	}
	if active != len(g.desired) {
		return false
	}
	for _, d := range g.desired {
		var rec *EntryState
		for i := range g.recorded {
			r := &g.recorded[i]
			if r.agent == d.agent && !r.frozen && r.e.Mode == d.e.Mode {
				rec = &r.e
			}
		}
		if rec == nil || rec.Path != d.e.Path {
			return false
		}
		switch d.e.Mode {
		case materialize.ModeFile:
			if !d.contentIs(rec.SHA256) || rec.Exec != d.e.Exec || isExec(g.fi.Perm) != rec.Exec {
				return false
			}
		case materialize.ModeBlock:
			if rec.Style != d.e.Style || rec.Shared != d.e.Shared {
				return false
			}
			if d.e.Shared && !p.sharedIs(&d, rec.SHA256) || !d.e.Shared && !d.blockIs(rec.SHA256) {
				return false
			}
		case materialize.ModeKeys:
			if rec.Format != d.e.Format || len(rec.Keys) != len(d.e.Keys) {
				return false
			}
			for i, k := range d.e.Keys {
				rk := rec.Keys[i]
				if !slices.Equal(rk.Path, k.Path) || rk.Want == "" || !d.keyIs(i, rk.Want) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// contentIs, blockIs and keyIs compare the desired entry's digests with
// recorded ones (hex), using the digests computed once per run.
func (d *desiredItem) contentIs(h string) bool {
	if d.sums != nil {
		return d.sums.content.is(h)
	}
	return sum(d.e.Content) == h
}

func (d *desiredItem) blockIs(h string) bool {
	if d.sums != nil {
		return d.sums.blockIs(d.e, h)
	}
	return sum(normBody(d.e.Content)) == h
}

func (d *desiredItem) keyIs(i int, h string) bool {
	if d.sums != nil && i < len(d.sums.keys) {
		return d.sums.keys[i].is(h)
	}
	return sum(d.e.Keys[i].Value) == h
}

// joiner joins slash paths to one directory: when the directory is clean
// (and the separator '/'), a clean relative path is joined by
// concatenation, which is what filepath.Join would return, without its
// Clean of every result.
type joiner struct {
	dir  string
	fast bool
}

func newJoiner(dir string) joiner {
	return joiner{dir: dir, fast: filepath.Separator == '/' && dir != "" && dir != "/" && filepath.Clean(dir) == dir}
}

func (j joiner) join(rel string) string {
	if j.fast && isCleanRel(rel) {
		return j.dir + "/" + rel
	}
	return filepath.Join(j.dir, filepath.FromSlash(rel))
}

// isCleanRel: not empty, not absolute, no empty, "." or ".." segment.
func isCleanRel(rel string) bool {
	if rel == "" || rel[0] == '/' {
		return false
	}
	start := 0
	for i := 0; i <= len(rel); i++ {
		if i == len(rel) || rel[i] == '/' {
			seg := rel[start:i]
			if seg == "" || seg == "." || seg == ".." {
				return false
			}
			start = i + 1
		}
	}
	return true
}

// content plans a file holding an owned file, blocks or keys, in three
// parts: the owned file, the blocks and keys (plan_blocks_keys.go), and finishing the
// file (its op and its records).
func (p *planner) content(g *fileGroup) error {
	if p.unchanged(g) {
		p.keepConfirmed(g)
		return nil
	}
	if bAbs, ok := p.restoredAlready(g); ok {
		return p.afterRestore(g, bAbs)
	}
	fs := &fileState{present: g.fi.Exists}
	if g.fi.Exists {
		fs.content = g.fi.Data
	}
	for _, r := range g.recorded {
		fs.created = fs.created || r.e.Created
		fs.createdHere = fs.createdHere || (r.e.Created && !r.e.Claim)
		if fs.backup == "" {
			fs.backup = r.e.Backup
		}
	}
	userFile := g.fi.Exists && len(g.recorded) == 0
	conflictBefore := len(p.plan.Conflicts())

	kept := p.ownedFile(g, fs, userFile)
	textKept, err := p.text(g, fs, userFile)
	if err != nil {
		return err
	}
	kept = append(kept, textKept...)

	if len(p.plan.Conflicts()) > conflictBefore {
		// Nothing of this file changes; its records stay as they were so
		// the state stays true if the user fixes the conflict.
		p.keepAll(g)
		return nil
	}
	p.finish(g, fs, kept, userFile)
	return nil
}

// afterRestore plans a file whose restore a killed prune finished
// (restoredAlready): the user's file again (its records are dropped),
// planned as one, and the old backup bAbs consumed once the file has its
// new content (and, with workDirConflict=overwrite, its new backup).
func (p *planner) afterRestore(g *fileGroup, bAbs string) error {
	if len(g.desired) == 0 {
		return nil
	}
	n := len(p.plan.Ops)
	if err := p.content(&fileGroup{real: g.real, abs: g.abs, fi: g.fi, desired: g.desired}); err != nil {
		return err
	}
	for _, op := range p.plan.Ops[n:] {
		if op.Path == g.real && op.RemoveBackup == "" {
			op.RemoveBackup = bAbs
			return nil
		}
	}
	p.plan.Ops = append(p.plan.Ops, &Op{Path: g.real, Rel: p.rel(g.abs), Action: ActRestore,
		Data: g.fi.Data, Old: g.fi.Data, Exists: true, Perm: 0o644, RemoveBackup: bAbs,
		Reason: "the user's original is back; its backup is removed"})
	return nil
}

// ownedFile plans the whole-file entries of g: the one agent that owns
// the file (a second is a conflict), and the removal of owned files no
// agent wants any more. It returns the records kept.
func (p *planner) ownedFile(g *fileGroup, fs *fileState, userFile bool) []newRecord {
	var kept []newRecord
	var fileDes *desiredItem
	for i := range g.desired {
		if g.desired[i].e.Mode == materialize.ModeFile {
			if fileDes != nil {
				p.note(g, ActConflict, g.desired[i].agent, "", "file is also owned by agent %q", fileDes.agent)
				continue
			}
			fileDes = &g.desired[i]
		}
	}
	for _, r := range g.recorded {
		if r.e.Mode != materialize.ModeFile {
			continue
		}
		if r.frozen {
			kept = append(kept, newRecord{agent: r.agent, dir: r.dir, e: r.e})
			continue
		}
		if fileDes != nil && fileDes.agent == r.agent {
			continue // handled with the desired entry below
		}
		p.dropOwned(g, fs, r)
	}
	if fileDes != nil {
		if rec, ok := p.ownFile(g, fs, fileDes, userFile); ok {
			kept = append(kept, rec)
		}
	}
	return kept
}

// dropOwned plans the removal of an owned file r records and no agent
// wants any more; a hand-edited one is kept as the user's (unless
// --force).
func (p *planner) dropOwned(g *fileGroup, fs *fileState, r recordedItem) {
	if !fs.present || r.e.Adopted {
		return
	}
	h := sum(fs.content)
	if r.e.owns(h) && r.e.claimed(h) && !p.vouched(g, r.agent, "the file") {
		return
	}
	if !r.e.owns(h) {
		if !p.o.Force {
			p.note(g, ActDrift, r.agent, "", "edited since the last apply; kept as the user's file, no longer managed")
			return
		}
		fs.forcedBackup = true
		fs.touch(r.agent, "forced over a hand edit")
	}
	fs.content, fs.present = nil, false
	fs.prune(r.agent, "file")
}

// ownFile plans the owned file d: written when missing, actctl's own or
// forced; kept when hand-edited; adopted when already exactly right; and
// a user's file by d's workDirConflict policy. It returns d's record,
// unless the file is left to the user.
func (p *planner) ownFile(g *fileGroup, fs *fileState, d *desiredItem, userFile bool) (newRecord, bool) {
	var rec *EntryState
	for i := range g.recorded {
		if g.recorded[i].agent == d.agent && g.recorded[i].e.Mode == materialize.ModeFile {
			rec = &g.recorded[i].e
		}
	}
	want := d.e.Content
	if want == nil {
		want = []byte{}
	}
	ne := EntryState{Path: d.e.Path, Mode: materialize.ModeFile, SHA256: sum(want)}
	write := false
	switch {
	case rec != nil && !fs.present:
		write = true
		fs.touch(d.agent, "missing")
	case rec != nil && bytes.Equal(fs.content, want):
	case rec != nil && rec.owns(sum(fs.content)):
		write = true
		fs.touch(d.agent, "")
		p.backupClaimed(g, fs, d.agent, rec.claimed(sum(fs.content)))
	case rec != nil && p.o.Force:
		write = true
		fs.forcedBackup = true
		fs.touch(d.agent, "forced over a hand edit")
	case rec != nil:
		p.note(g, ActDrift, d.agent, d.policy, "edited since the last apply; kept (use --force to overwrite it, with a backup)")
		ne = *rec
		fs.drifted = true
	case !fs.present:
		write = true
		if !g.fi.Exists {
			fs.created = true
		}
		fs.touch(d.agent, "")
	case !userFile:
		write = true
		fs.touch(d.agent, "")
	case bytes.Equal(fs.content, want):
		// Already exactly what we would write (a fresh clone of a
		// repository that commits its materialized files): adopt it,
		// nothing to write; prune will leave it where it was.
		ne.Adopted = true
	default:
		write = p.usersFile(g, fs, d)
		if !write {
			ne.Path = ""
		}
	}
	if write {
		fs.content, fs.present = want, true
	}
	if ne.Path == "" {
		return newRecord{}, false
	}
	if !fs.drifted {
		p.ownedMode(g, d, rec, &ne, fs)
	}
	if rec != nil {
		ne.Dirs = rec.Dirs
		ne.Adopted = ne.Adopted || rec.Adopted
	}
	return newRecord{agent: d.agent, dir: d.dir, e: ne}, true
}

// usersFile applies d's workDirConflict policy to a user's file in the
// way of d; it reports whether d is written over it (after a backup).
func (p *planner) usersFile(g *fileGroup, fs *fileState, d *desiredItem) bool {
	switch d.policy {
	case schema.ConflictOverwrite:
		fs.backup = p.backupPath(g.abs)
		fs.touch(d.agent, "the user's file is backed up to "+fs.backup)
		return true
	case schema.ConflictSkip:
		p.note(g, ActSkip, d.agent, d.policy, "exists and is not actctl's; left alone")
	case schema.ConflictError:
		p.note(g, ActConflict, d.agent, d.policy, "exists and is not actctl's")
	default:
		p.note(g, ActWarning, d.agent, d.policy, "exists and is not actctl's; not replaced (workDirConflict=%s)", d.policy)
	}
	return false
}

// finish turns what the parts planned for g into its op (if anything
// changes) and its records.
func (p *planner) finish(g *fileGroup, fs *fileState, kept []newRecord, userFile bool) {
	op := &Op{Path: g.real, Rel: p.rel(g.abs), Old: g.fi.Data, Exists: g.fi.Exists, Perm: 0o644, Agents: fs.agents}
	if len(kept) == 0 {
		p.unowned(g, fs, op)
	} else {
		for i := range kept {
			kept[i].e.Created = fs.created
			kept[i].e.Backup = fs.backup
		}
	}
	switch {
	case op.Action == ActRestore:
	case !fs.present && g.fi.Exists:
		op.Action = ActDelete
	case fs.present && !g.fi.Exists:
		op.Action = ActCreate
	case fs.present && !bytes.Equal(fs.content, g.fi.Data):
		op.Action = ActUpdate
	case fs.present && fs.perm != 0 && fs.perm != g.fi.Perm:
		op.Action = ActUpdate // the mode alone
	}
	if fs.perm != 0 {
		op.Perm, op.SetPerm, op.OldPerm = fs.perm, true, g.fi.Perm
	}
	if op.Action != "" {
		p.addOp(g, fs, op, kept, userFile)
	}
	p.records(g, fs, kept)
}

// unowned decides what becomes of a file nothing owns any more: the
// user's original put back from its backup, or a file actctl created
// removed once only whitespace (or {}) is left.
func (p *planner) unowned(g *fileGroup, fs *fileState, op *Op) {
	switch {
	case fs.backup != "" && (!fs.present || p.isEmpty(g, fs.content)):
		bAbs := filepath.Join(p.root, filepath.FromSlash(fs.backup))
		data, ok := p.snap.Backups[bAbs]
		if ok && data != nil {
			fs.content, fs.present = data, true
			op.Action, op.RemoveBackup = ActRestore, bAbs
			fs.reasons = append(fs.reasons, "the user's original is put back from "+fs.backup)
		} else {
			p.note(g, ActWarning, "", "", "the backup %s of the user's original is missing; nothing to restore", fs.backup)
			if fs.present && p.isEmpty(g, fs.content) && fs.created {
				fs.content, fs.present = nil, false
			}
		}
	case fs.backup != "" && fs.present:
		p.note(g, ActWarning, "", "", "the file has new content, so the user's original stays in %s", fs.backup)
	case fs.created && fs.present && p.isEmpty(g, fs.content):
		if g.fi.Exists && !fs.createdHere && !p.vouched(g, "", "the file") {
			return // created says only a claim: an empty file of the user's stays
		}
		fs.content, fs.present = nil, false
	}
}

// claimed reports whether removing the content with digest h that e
// records would rest on a committed record from elsewhere alone: e is a
// claim, or h is one of that record's digests (Alt), not this machine's.
func (e *EntryState) claimed(h string) bool { return e.Claim || e.SHA256 != h }

// vouched reports whether git holds g's file exactly as it is now,
// tracked at HEAD (PlanOptions.AtHead): only then may a removal that
// rests on a claim alone go ahead, since git can give the file back
// (docs/design.md, "Ownership and provenance"). Otherwise it notes that what of
// the file was claimed is kept as the user's.
func (p *planner) vouched(g *fileGroup, agent, what string) bool {
	if p.atHead(g) {
		return true
	}
	p.note(g, ActWarning, agent, "", "%s: only %s from elsewhere (a pull or a clone) says it is actctl's, and git does not hold the file as it is now at HEAD; kept as yours, no longer managed", what, OwnedFile)
	return false
}

func (p *planner) atHead(g *fileGroup) bool {
	return p.o.AtHead != nil && g.fi.Exists && p.o.AtHead(g.real, g.fi.Data)
}

// backupClaimed makes an update that rests on a claim alone (claimed)
// keep the file's bytes in .actant/backup first, unless git holds them
// at HEAD: a record from elsewhere may make apply update what it finds,
// and the bytes it replaces stay somewhere the user can get them back.
func (p *planner) backupClaimed(g *fileGroup, fs *fileState, agent string, claimed bool) {
	if !claimed || fs.forcedBackup || p.atHead(g) {
		return
	}
	fs.forcedBackup = true
	fs.touch(agent, "only "+OwnedFile+" from elsewhere says it is actctl's and git does not hold it: backed up first")
}

// addOp completes op (its data, backup and missing directories, which the
// kept records then own) and adds it to the plan.
func (p *planner) addOp(g *fileGroup, fs *fileState, op *Op, kept []newRecord, userFile bool) {
	op.Data = fs.content
	if fs.forcedBackup || (userFile && fs.backup != "" && g.fi.Exists) {
		op.BackupTo = p.backupPath(g.abs)
	}
	if op.Action == ActCreate || op.Action == ActRestore {
		dir := ""
		for _, d := range g.desired {
			dir = d.dir
		}
		if dir == "" && len(g.recorded) > 0 {
			dir = g.recorded[0].dir
		}
		if dir != "" {
			op.MkDirs = p.missingDirs(dir, g.abs)
		}
	}
	if len(op.MkDirs) > 0 {
		for i := range kept {
			if !kept[i].e.Created && !g.fi.Exists {
				kept[i].e.Created = true
			}
			kept[i].e.Dirs = mergeDirs(kept[i].e.Dirs, relDirs(kept[i].dir, op.MkDirs))
		}
	}
	reasons := fs.reasons
	if r := pruneReason(fs.agents, fs.pruned); r != "" {
		reasons = append(reasons[:len(reasons):len(reasons)], r)
	}
	op.Reason = strings.Join(reasons, "; ")
	p.plan.Ops = append(p.plan.Ops, op)
}

// records adds g's kept records to the next state, and gives the
// directories of dropped records back for removal.
func (p *planner) records(g *fileGroup, fs *fileState, kept []newRecord) {
	// The fast path of the next run: the file's digest, unless something
	// in it drifted (drift must be looked at, and reported, every time).
	fileSHA := ""
	if fs.present && !fs.drifted {
		fileSHA = sum(fs.content)
	}
	for i := range kept {
		kept[i].e.FileSHA = fileSHA
	}
	for _, r := range g.recorded {
		if len(r.e.Dirs) == 0 {
			continue
		}
		still := false
		for _, k := range kept {
			still = still || (k.agent == r.agent && k.e.Mode == r.e.Mode)
		}
		if !still {
			p.rmDirs = append(p.rmDirs, absDirs(r.dir, r.e.Dirs)...)
		}
	}
	p.recs = append(p.recs, kept...)
}

// restoredAlready recognises a restore a killed prune did not finish: the
// file already holds exactly the user's original from its backup (the
// restore was written, the backup not yet removed), not actctl's content.
// With nothing desired in g it plans the end of the restore (the backup
// consumed, nothing reported as drift); either way it returns the backup.
func (p *planner) restoredAlready(g *fileGroup) (string, bool) {
	if len(g.recorded) == 0 || !g.fi.Exists {
		return "", false
	}
	backup := ""
	var agents []string
	for _, r := range g.recorded {
		if r.frozen || (r.e.Mode == materialize.ModeFile && (g.fi.digest().is(r.e.SHA256) || len(r.e.Alt) > 0 && r.e.owns(sum(g.fi.Data)))) {
			return "", false
		}
		if r.e.Backup != "" {
			backup = r.e.Backup
		}
		if !slices.Contains(agents, r.agent) {
			agents = append(agents, r.agent)
		}
	}
	if backup == "" {
		return "", false
	}
	bAbs := filepath.Join(p.root, filepath.FromSlash(backup))
	data, ok := p.snap.Backups[bAbs]
	if !ok || data == nil || !bytes.Equal(data, g.fi.Data) {
		return "", false
	}
	if len(g.desired) > 0 {
		return bAbs, true
	}
	p.plan.Ops = append(p.plan.Ops, &Op{Path: g.real, Rel: p.rel(g.abs), Action: ActRestore, Agents: agents,
		Data: data, Old: g.fi.Data, Exists: true, Perm: 0o644, RemoveBackup: bAbs,
		Reason: "the user's original is back; its backup " + backup + " is removed"})
	for _, r := range g.recorded {
		p.rmDirs = append(p.rmDirs, absDirs(r.dir, r.e.Dirs)...)
	}
	return bAbs, true
}

func mergeDirs(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

// isEmpty reports whether what is left of a file is nothing the user
// wrote: whitespace, or an empty object for JSON.
func (p *planner) isEmpty(g *fileGroup, c []byte) bool {
	if blank(c) {
		return true
	}
	for _, d := range g.desired {
		if d.e.Mode == materialize.ModeKeys {
			if kc, err := codecFor(d.e.Format); err == nil {
				return kc.empty(c)
			}
		}
	}
	for _, r := range g.recorded {
		if r.e.Mode == materialize.ModeKeys {
			if kc, err := codecFor(r.e.Format); err == nil {
				return kc.empty(c)
			}
		}
	}
	return false
}
