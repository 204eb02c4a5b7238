package tomlkeys

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// jvalue is a JSON value decoded with object member order kept, so that the
// TOML actctl writes lists keys in the order they were given.
type jvalue struct {
	kind byte // 's' string, 'n' number, 'b' bool, 'z' null, 'a' array, 'o' object
	s    string
	n    json.Number
	b    bool
	arr  []jvalue
	keys []string
	vals []jvalue
}

// decodeJSON decodes one JSON value, rejecting trailing data and duplicated
// object keys (TOML forbids them, and which one wins would be a guess).
func decodeJSON(raw []byte) (jvalue, error) {
	if !json.Valid(raw) {
		return jvalue{}, errors.New("invalid JSON value")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := readValue(dec)
	if err != nil {
		return jvalue{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return jvalue{}, errors.New("invalid JSON value: trailing data")
	}
	return v, nil
}

func readValue(dec *json.Decoder) (jvalue, error) {
	tok, err := dec.Token()
	if err != nil {
		return jvalue{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			v := jvalue{kind: 'a', arr: []jvalue{}}
			for dec.More() {
				e, err := readValue(dec)
				if err != nil {
					return jvalue{}, err
				}
				v.arr = append(v.arr, e)
			}
			_, err := dec.Token()
			return v, err
		case '{':
			v := jvalue{kind: 'o'}
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return jvalue{}, err
				}
				k, _ := kt.(string)
				if seen[k] {
					return jvalue{}, fmt.Errorf("duplicate key %q in JSON value", k)
				}
				seen[k] = true
				e, err := readValue(dec)
				if err != nil {
					return jvalue{}, err
				}
				v.keys = append(v.keys, k)
				v.vals = append(v.vals, e)
			}
			_, err := dec.Token()
			return v, err
		}
	case string:
		return jvalue{kind: 's', s: t}, nil
	case json.Number:
		return jvalue{kind: 'n', n: t}, nil
	case bool:
		return jvalue{kind: 'b', b: t}, nil
	case nil:
		return jvalue{kind: 'z'}, nil
	}
	return jvalue{}, fmt.Errorf("unexpected JSON token %v", tok)
}

// bareKey matches a key TOML allows bare. Compiled on first use, not at
// start-up (every actctl command links this package).
var bareKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

// tomlKey writes one key part: bare when TOML allows it, else a basic
// string.
func tomlKey(k string) string {
	if bareKey().MatchString(k) {
		return k
	}
	return tomlString(k)
}

// tomlKeyPath writes a dotted key.
func tomlKeyPath(p []string) string {
	parts := make([]string, len(p))
	for i, k := range p {
		parts[i] = tomlKey(k)
	}
	return strings.Join(parts, ".")
}

// tomlString writes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlNumber writes a JSON number as TOML. JSON number syntax is a subset
// of TOML's, except integers beyond int64, which become floats (that is
// also how Canonical reads them).
func tomlNumber(n json.Number) (string, error) {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return s, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", fmt.Errorf("number %s out of range", s)
	}
	if strings.ContainsAny(s, ".eE") {
		return s, nil
	}
	return strconv.FormatFloat(f, 'e', -1, 64), nil
}

// inline writes a value on one line: arrays as [a, b], objects as inline
// tables { k = v }.
func inline(v jvalue) (string, error) {
	switch v.kind {
	case 's':
		return tomlString(v.s), nil
	case 'n':
		return tomlNumber(v.n)
	case 'b':
		return strconv.FormatBool(v.b), nil
	case 'z':
		return "", errors.New("null has no TOML representation")
	case 'a':
		parts := make([]string, len(v.arr))
		for i, e := range v.arr {
			s, err := inline(e)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case 'o':
		if len(v.keys) == 0 {
			return "{}", nil
		}
		parts := make([]string, len(v.keys))
		for i, k := range v.keys {
			s, err := inline(v.vals[i])
			if err != nil {
				return "", fmt.Errorf("%s: %w", k, err)
			}
			parts[i] = tomlKey(k) + " = " + s
		}
		return "{ " + strings.Join(parts, ", ") + " }", nil
	}
	return "", fmt.Errorf("unknown value kind %q", v.kind)
}

// sectionText writes an object as a [path] table: one "key = value" line
// per member, nested objects as inline tables. Every line ends with nl.
func sectionText(path []string, v jvalue, nl string) (string, error) {
	var b strings.Builder
	b.WriteString("[" + tomlKeyPath(path) + "]" + nl)
	for i, k := range v.keys {
		s, err := inline(v.vals[i])
		if err != nil {
			return "", fmt.Errorf("%s: %w", k, err)
		}
		b.WriteString(tomlKey(k) + " = " + s + nl)
	}
	return b.String(), nil
}
