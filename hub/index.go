package hub

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"cuelang.org/go/cue/token"

	"github.com/actctl/actctl/internal/atomicfile"
)

// The tree index is a parsed copy of what ReadTree returned for a cached
// tree, kept beside the tree's marker:
//
//	trees/<commit>[-<path>].index
//
// so that the everyday satisfied sync (lock matches the config, tree cached)
// loads one file instead of opening and parsing every file of the tree. It
// is written atomically, under the cache lock, after the marker and only
// once ReadTree accepted the tree. It is a cache of ReadTree, never a source
// of truth: it is used only when it is bound to exactly this tree (its
// directory, commit, path and the marker's digest, which the caller has
// checked against actant.lock), to this index format, to the Go types it
// encodes and to this actctl build, and when its checksum holds. Anything
// else (missing, truncated, corrupt, stale, from another actctl) is
// ignored: the tree is read again and the index rewritten.

// indexVersion is the index format and reader version. Bump it whenever
// ReadTree can return something different for the same tree (a new field
// read, a changed mapping), so that indexes written before are rebuilt.
// Changes to the encoded Go types are detected on their own (stamp).
const indexVersion = 3

const indexMagic = "actctl hub tree index\n"

// indexPath is the index file of a tree directory.
func indexPath(treeDir string) string { return treeDir + ".index" }

// indexStats counts index loads and tree reads; tests use it to prove
// that the satisfied path does not read the tree.
var indexStats struct {
	sync.Mutex
	loaded, read int
}

func countIndex(loaded bool) {
	indexStats.Lock()
	if loaded {
		indexStats.loaded++
	} else {
		indexStats.read++
	}
	indexStats.Unlock()
}

// readComponents returns the components of the cached tree treeDir whose
// marker is m: from its index when that is valid, else by reading the tree
// (and then writing the index, when the cache lock under dir is free).
func readComponents(dir, treeDir string, m marker) (*Components, error) {
	if c, err := loadIndex(treeDir, m); err == nil {
		countIndex(true)
		return c, nil
	}
	countIndex(false)
	c, err := ReadTree(os.DirFS(treeDir), treeDir)
	if err != nil {
		return nil, err
	}
	// Best effort: a failure to write the index costs speed, not
	// correctness.
	_ = saveIndex(dir, treeDir, m, c)
	return c, nil
}

// indexHeader binds an index to one tree and one actctl.
type indexHeader struct {
	Version uint64
	Stamp   string // stamp(): the encoded types' shape and the build
	Base    string // the tree directory ReadTree was given
	Commit  string
	Path    string
	Digest  string
}

func headerFor(treeDir string, m marker) indexHeader {
	return indexHeader{Version: indexVersion, Stamp: stamp(), Base: treeDir, Commit: m.Commit, Path: m.Path, Digest: m.Digest}
}

// saveIndex writes the index of c, read from treeDir with marker m. It
// takes the cache lock without waiting (another process fetching into
// this cache must not stall an otherwise satisfied sync; the index is then
// written by a later run), and writes only while the marker still says m.
func saveIndex(dir, treeDir string, m marker, c *Components) error {
	data, err := encodeIndex(headerFor(treeDir, m), c)
	if err != nil {
		return err
	}
	unlock, ok := tryLockDir(dir)
	if !ok {
		return errors.New("cache locked")
	}
	defer unlock()
	if cur, ok := readMarker(treeDir); !ok || cur != m {
		return errors.New("marker changed")
	}
	return atomicfile.Write(indexPath(treeDir), data, 0o644)
}

// loadIndex returns the components recorded in treeDir's index, or an
// error saying why the index cannot be used.
func loadIndex(treeDir string, m marker) (*Components, error) {
	b, err := os.ReadFile(indexPath(treeDir))
	if err != nil {
		return nil, err
	}
	return decodeIndex(b, headerFor(treeDir, m))
}

// encodeIndex lays out: magic, sha256 of the rest, header, position
// files, components.
func encodeIndex(h indexHeader, c *Components) ([]byte, error) {
	enc := &encoder{files: map[*token.File]int{}}
	if err := enc.value(reflect.ValueOf(c).Elem()); err != nil {
		return nil, err
	}
	payload := enc.buf
	enc.buf = nil
	if err := enc.value(reflect.ValueOf(h)); err != nil {
		return nil, err
	}
	enc.uint(uint64(len(enc.fileList)))
	for _, f := range enc.fileList {
		enc.string(f.Name())
		enc.uint(uint64(f.Size()))
		// Only the lines up to the last position used are needed to
		// recover every line and column.
		lines := f.Lines()
		n := sort.SearchInts(lines, enc.maxOff[enc.files[f]]+1)
		enc.uint(uint64(n))
		for _, l := range lines[:n] {
			enc.uint(uint64(l))
		}
	}
	body := append(enc.buf, payload...)
	sum := sha256.Sum256(body)
	out := make([]byte, 0, len(indexMagic)+len(sum)+len(body))
	out = append(out, indexMagic...)
	out = append(out, sum[:]...)
	return append(out, body...), nil
}

// decodeIndex checks b against want and decodes it.
func decodeIndex(b []byte, want indexHeader) (*Components, error) {
	rest, ok := bytes.CutPrefix(b, []byte(indexMagic))
	if !ok || len(rest) < sha256.Size {
		return nil, errors.New("not a tree index")
	}
	body := rest[sha256.Size:]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], rest[:sha256.Size]) {
		return nil, errors.New("checksum mismatch")
	}
	d := &decoder{buf: body, str: string(body)}
	var h indexHeader
	if err := d.value(reflect.ValueOf(&h).Elem()); err != nil {
		return nil, err
	}
	if h != want {
		return nil, fmt.Errorf("index is for %+v, want %+v", h, want)
	}
	n := d.uint()
	if d.err == nil && n > uint64(len(d.buf)) {
		d.fail()
	}
	for i := uint64(0); i < n && d.err == nil; i++ {
		f := token.NewFile(d.string(), -1, int(d.uint()))
		lines := make([]int, min(d.uint(), uint64(len(d.buf))))
		for j := range lines {
			lines[j] = int(d.uint())
		}
		if d.err == nil && !(len(lines) == 1 && lines[0] == 0) && !f.SetLines(lines) { // NewFile's table is {0}
			d.fail()
		}
		d.files = append(d.files, f)
	}
	c := &Components{}
	if err := d.value(reflect.ValueOf(c).Elem()); err != nil {
		return nil, err
	}
	if len(d.buf) != 0 {
		return nil, errors.New("trailing data in tree index")
	}
	return c, nil
}

var posType = reflect.TypeFor[token.Pos]()

// encoder writes values of the types ReadTree returns: exported struct
// fields in order, nil kept apart from empty for slices, maps and
// pointers, map entries in key order, token.Pos as a file and an offset.
// A type it cannot encode exactly (an unexported field, an interface) is
// an error, so that no index is written rather than a lossy one.
type encoder struct {
	buf      []byte
	files    map[*token.File]int
	fileList []*token.File
	maxOff   []int
}

func (e *encoder) uint(x uint64)   { e.buf = binary.AppendUvarint(e.buf, x) }
func (e *encoder) string(s string) { e.uint(uint64(len(s))); e.buf = append(e.buf, s...) }
func (e *encoder) length(v reflect.Value) {
	if v.IsNil() {
		e.uint(0)
	} else {
		e.uint(uint64(v.Len()) + 1)
	}
}

// value writes v: a position, or by its kind.
func (e *encoder) value(v reflect.Value) error {
	t := v.Type()
	if t == posType {
		return e.pos(v.Interface().(token.Pos))
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			e.uint(0)
			return nil
		}
		e.uint(1)
		return e.value(v.Elem())
	case reflect.Slice:
		return e.slice(v)
	case reflect.Map:
		return e.mapping(v)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if !t.Field(i).IsExported() {
				return fmt.Errorf("tree index: %s.%s is unexported", t, t.Field(i).Name)
			}
			if err := e.value(v.Field(i)); err != nil {
				return err
			}
		}
		return nil
	}
	return e.scalar(v)
}

// scalar writes a boolean, number or string.
func (e *encoder) scalar(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			e.uint(1)
		} else {
			e.uint(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = binary.AppendVarint(e.buf, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		e.uint(v.Uint())
	case reflect.Float32, reflect.Float64:
		e.uint(math.Float64bits(v.Float()))
	case reflect.String:
		e.string(v.String())
	default:
		return fmt.Errorf("tree index: cannot encode %s", v.Type())
	}
	return nil
}

// slice writes a slice's nil-or-length header and its elements (a byte
// slice as its bytes).
func (e *encoder) slice(v reflect.Value) error {
	e.length(v)
	if v.Type().Elem().Kind() == reflect.Uint8 {
		e.buf = append(e.buf, v.Bytes()...)
		return nil
	}
	for i := 0; i < v.Len(); i++ {
		if err := e.value(v.Index(i)); err != nil {
			return err
		}
	}
	return nil
}

// mapping writes a map's nil-or-length header and its entries, string keys
// in order.
func (e *encoder) mapping(v reflect.Value) error {
	e.length(v)
	keys := v.MapKeys()
	if v.Type().Key().Kind() == reflect.String {
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	}
	for _, k := range keys {
		if err := e.value(k); err != nil {
			return err
		}
		if err := e.value(v.MapIndex(k)); err != nil {
			return err
		}
	}
	return nil
}

// pos writes a position as its file's number (0: none), offset and the
// relative-position bits, all that token.Pos exposes.
func (e *encoder) pos(p token.Pos) error {
	var flags uint64
	if p.HasComma() {
		flags |= 1
	}
	if p.Scanned() {
		flags |= 2
	}
	e.uint(uint64(p.RelPos()))
	e.uint(flags)
	f := p.File()
	if f == nil {
		e.uint(0)
		return nil
	}
	i, ok := e.files[f]
	if !ok {
		i = len(e.fileList)
		e.files[f] = i
		e.fileList = append(e.fileList, f)
		e.maxOff = append(e.maxOff, 0)
	}
	off := p.Offset()
	e.maxOff[i] = max(e.maxOff[i], off)
	e.uint(uint64(i) + 1)
	e.uint(uint64(off))
	return nil
}

// decoder reads what encoder wrote; any inconsistency is an error (the
// checksum makes one unlikely, the bounds checks make it harmless).
type decoder struct {
	buf []byte
	// str is buf as one string: decoded strings are substrings of it, one
	// allocation instead of one per string.
	str   string
	files []*token.File
	err   error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errors.New("corrupt tree index")
	}
	d.buf = nil
}

func (d *decoder) uint() uint64 {
	x, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.buf = d.buf[n:]
	return x
}

func (d *decoder) string() string {
	n := d.uint()
	if n > uint64(len(d.buf)) {
		d.fail()
		return ""
	}
	at := len(d.str) - len(d.buf)
	d.buf = d.buf[n:]
	return d.str[at : at+int(n)]
}

// length reads a nil-or-length header; nil is reported as -1. A length
// larger than the bytes left is corrupt (every element takes a byte).
func (d *decoder) length() int {
	n := d.uint()
	if n == 0 {
		return -1
	}
	if n-1 > uint64(len(d.buf)) {
		d.fail()
		return -1
	}
	return int(n - 1)
}

func (d *decoder) value(v reflect.Value) error {
	d.decode(v)
	return d.err
}

// decode reads into v what encoder.value wrote.
func (d *decoder) decode(v reflect.Value) {
	if d.err != nil {
		return
	}
	t := v.Type()
	if t == posType {
		v.Set(reflect.ValueOf(d.pos()))
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if d.uint() == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(t.Elem())
		d.decode(p.Elem())
		v.Set(p)
	case reflect.Slice, reflect.Map:
		n := d.length()
		switch {
		case n < 0:
			v.SetZero() // nil stays nil
		case t.Kind() == reflect.Slice:
			d.slice(v, n)
		default:
			d.mapping(v, n)
		}
	case reflect.Struct:
		for i := 0; i < t.NumField() && d.err == nil; i++ {
			d.decode(v.Field(i))
		}
	default:
		d.scalar(v)
	}
}

// scalar reads a boolean, number or string.
func (d *decoder) scalar(v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(d.uint() != 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x, n := binary.Varint(d.buf)
		if n <= 0 {
			d.fail()
			return
		}
		d.buf = d.buf[n:]
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(d.uint())
	case reflect.Float32, reflect.Float64:
		v.SetFloat(math.Float64frombits(d.uint()))
	case reflect.String:
		v.SetString(d.string())
	default:
		d.err = fmt.Errorf("tree index: cannot decode %s", v.Type())
	}
}

// slice reads the n elements of a slice.
func (d *decoder) slice(v reflect.Value, n int) {
	t := v.Type()
	if t.Elem().Kind() == reflect.Uint8 {
		b := make([]byte, n)
		copy(b, d.buf[:n])
		d.buf = d.buf[n:]
		v.SetBytes(b)
		return
	}
	s := reflect.MakeSlice(t, n, n)
	for i := 0; i < n && d.err == nil; i++ {
		d.decode(s.Index(i))
	}
	v.Set(s)
}

// mapping reads the n entries of a map.
func (d *decoder) mapping(v reflect.Value, n int) {
	t := v.Type()
	m := reflect.MakeMapWithSize(t, n)
	k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
	for i := 0; i < n && d.err == nil; i++ {
		k.SetZero()
		e.SetZero()
		d.decode(k)
		d.decode(e)
		m.SetMapIndex(k, e)
	}
	v.Set(m)
}

func (d *decoder) pos() token.Pos {
	rel, flags, fi := token.RelPos(d.uint()), d.uint(), d.uint()
	var p token.Pos
	if fi != 0 {
		if fi > uint64(len(d.files)) {
			d.fail()
			return token.NoPos
		}
		p = d.files[fi-1].Pos(int(d.uint()), rel)
	} else {
		p = p.WithRel(rel)
	}
	return p.WithComma(flags&1 != 0).WithScanned(flags&2 != 0)
}

// stamp identifies what an index depends on besides indexVersion: the
// shape of the encoded Go types (a field added to schema.Skill changes the
// layout) and the actctl build (a newer actctl may read trees differently).
var stamp = sync.OnceValue(func() string {
	h := sha256.New()
	typeShape(h, reflect.TypeFor[Components](), map[reflect.Type]bool{})
	typeShape(h, reflect.TypeFor[indexHeader](), map[reflect.Type]bool{})
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintf(h, "%s %s %s %s\n", bi.GoVersion, bi.Main.Path, bi.Main.Version, bi.Main.Sum)
		for _, s := range bi.Settings {
			if strings.HasPrefix(s.Key, "vcs.") {
				fmt.Fprintf(h, "%s=%s\n", s.Key, s.Value)
			}
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
})

// typeShape writes a description of t (recursively) to w.
func typeShape(w interface{ Write([]byte) (int, error) }, t reflect.Type, seen map[reflect.Type]bool) {
	fmt.Fprintf(w, "(%s.%s %s", t.PkgPath(), t.Name(), t.Kind())
	if seen[t] || t == posType {
		fmt.Fprint(w, ")")
		return
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		typeShape(w, t.Elem(), seen)
	case reflect.Map:
		typeShape(w, t.Key(), seen)
		typeShape(w, t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			fmt.Fprintf(w, " %s:", t.Field(i).Name)
			typeShape(w, t.Field(i).Type, seen)
		}
	}
	fmt.Fprint(w, ")")
}
