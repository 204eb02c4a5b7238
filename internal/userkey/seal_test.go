package userkey

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestSealJSON: a sealed record stays JSON, its seal the last member;
// unsealed it gives back the object exactly, and the seal holds only for
// the same key, kind and bytes. A record with no seal, a damaged one or
// one sealed for another kind is not ok.
func TestSealJSON(t *testing.T) {
	key, other := bytes.Repeat([]byte{1}, Size), bytes.Repeat([]byte{2}, Size)
	for _, obj := range []string{`{}`, "{}\n", `{"a":1}`, "{\n  \"a\": [1, 2]\n}\n"} {
		sealed := SealJSON(key, "state", []byte(obj))
		var v map[string]any
		if err := json.Unmarshal(sealed, &v); err != nil || len(v["seal"].(string)) != TrailerLen {
			t.Fatalf("%q sealed is %q: %v", obj, sealed, err)
		}
		body, isSealed, ok := UnsealJSON(key, "state", sealed)
		if string(body) != obj || !isSealed || !ok {
			t.Errorf("%q: unsealed %q sealed=%v ok=%v", obj, body, isSealed, ok)
		}
		for name, c := range map[string]struct {
			key  []byte
			what string
			b    []byte
		}{
			"other key":  {other, "state", sealed},
			"other kind": {key, "adhoc", sealed},
			"no key":     {nil, "state", sealed},
			"edited":     {key, "state", bytes.Replace(sealed, []byte("{"), []byte(`{"b":2,`), 1)},
		} {
			if _, _, ok := UnsealJSON(c.key, c.what, c.b); ok {
				t.Errorf("%q, %s: trusted", obj, name)
			}
		}
		if body, isSealed, ok := UnsealJSON(key, "state", []byte(obj)); string(body) != obj || isSealed || ok {
			t.Errorf("%q unsealed: %q %v %v", obj, body, isSealed, ok)
		}
	}
	if b := Seal(key, []byte("x")); len(b) != 1+TrailerLen {
		t.Fatalf("trailer: %q", b)
	} else if body, ok := Unseal(key, b); string(body) != "x" || !ok {
		t.Errorf("unseal: %q %v", body, ok)
	} else if _, ok := Unseal(other, b); ok {
		t.Error("another key's trailer trusted")
	}
}
