package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
)

// ComputeKey returns sha256 over a canonical encoding of r's components
// (everything but Key and Address) and stores it in r.Key. The encoding
// lists the fields in a fixed order, parameters and input slots sorted by
// name, each value length-prefixed, so no two different records collide by
// concatenation.
func ComputeKey(r *KeyRecord) string {
	var b strings.Builder
	field := func(tag, v string) { // TAG:LEN:VALUE\n
		b.WriteString(tag)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(':')
		b.WriteString(v)
		b.WriteByte('\n')
	}
	field("type", r.StageType)
	field("version", r.Version)
	for _, name := range sortedKeys(r.Params) {
		field("param", name)
		field("value", r.Params[name])
	}
	for _, slot := range sortedKeys(r.Inputs) {
		field("input", slot)
		refs := r.Inputs[slot]
		field("count", strconv.Itoa(len(refs)))
		for _, ref := range refs {
			field("ref", ref)
		}
	}
	field("fingerprint", r.Fingerprint)
	sum := sha256.Sum256([]byte(b.String()))
	r.Key = hex.EncodeToString(sum[:])
	return r.Key
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
