package userkey

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// TrailerLen is the length of a seal as a trailer: a hex HMAC-SHA256.
const TrailerLen = 2 * sha256.Size

// Seal appends b's seal under key to b (the caches' trailer).
func Seal(key, b []byte) []byte {
	return hex.AppendEncode(b, MAC(key, b))
}

// Unseal returns b without its trailing seal; ok when the seal is b's
// under key.
func Unseal(key, b []byte) (body []byte, ok bool) {
	if len(b) < TrailerLen {
		return nil, false
	}
	body = b[:len(b)-TrailerLen]
	var want [TrailerLen]byte
	hex.Encode(want[:], MAC(key, body))
	return body, hmac.Equal(want[:], b[len(body):])
}

// MAC is the HMAC-SHA256 of the concatenation of parts under key.
func MAC(key []byte, parts ...[]byte) []byte {
	h := hmac.New(sha256.New, key)
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

// A record (state.json, adhoc.json) stays a JSON object: its seal is its
// last member, "seal": the hex MAC under the key of what (the record's
// kind, and whatever binds it to one place), a newline and the object
// without that member. The kind keeps one record from passing for
// another.
const sealMember = `"seal":"`

// SealJSON returns the JSON object obj (it ends with "}", maybe followed
// by a newline) with its seal for what added as its last member.
func SealJSON(key []byte, what string, obj []byte) []byte {
	body, nl := bytes.CutSuffix(obj, []byte("\n"))
	if len(body) < 2 || body[len(body)-1] != '}' {
		return obj // not an object: left unsealed, so never trusted
	}
	mac := MAC(key, []byte(what), []byte("\n"), body)
	out := make([]byte, 0, len(obj)+len(sealMember)+TrailerLen+4)
	out = append(out, body[:len(body)-1]...)
	if len(bytes.TrimSpace(body[1:len(body)-1])) > 0 {
		out = append(out, ',')
	}
	out = append(out, sealMember...)
	out = hex.AppendEncode(out, mac)
	out = append(out, `"}`...)
	if nl {
		out = append(out, '\n')
	}
	return out
}

// SplitJSON returns obj without its seal member and the seal (hex); no
// seal: obj as it is and nil. It checks nothing.
func SplitJSON(obj []byte) (body, seal []byte) {
	b, nl := bytes.CutSuffix(obj, []byte("\n"))
	n := len(sealMember) + TrailerLen + 2
	if len(b) < n+1 || !bytes.HasPrefix(b[len(b)-n:], []byte(sealMember)) || !bytes.HasSuffix(b, []byte(`"}`)) {
		return obj, nil
	}
	seal = b[len(b)-TrailerLen-2 : len(b)-2]
	rest := bytes.TrimRight(b[:len(b)-n], " \t\r\n")
	rest, _ = bytes.CutSuffix(rest, []byte(","))
	body = append(append(make([]byte, 0, len(rest)+2), rest...), '}')
	if nl {
		body = append(body, '\n')
	}
	return body, seal
}

// UnsealJSON returns obj without its seal member; sealed when it had one,
// ok when that seal is obj's for what under key.
func UnsealJSON(key []byte, what string, obj []byte) (body []byte, sealed, ok bool) {
	body, seal := SplitJSON(obj)
	if seal == nil {
		return obj, false, false
	}
	if key == nil {
		return body, true, false
	}
	b, _ := bytes.CutSuffix(body, []byte("\n"))
	var want [TrailerLen]byte
	hex.Encode(want[:], MAC(key, []byte(what), []byte("\n"), b))
	return body, true, hmac.Equal(want[:], seal)
}
