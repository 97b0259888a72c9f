// Package safename turns arbitrary strings (stage addresses such as
// evaluate.reddit["a b"]) into file and directory names that are safe on
// every common file system and distinct for distinct inputs.
package safename

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// maxLen bounds a readable name (file systems allow 255 bytes; a hash
// suffix and an extension must still fit).
const maxLen = 200

// Readable returns the readable form of s: every run of characters other
// than ASCII letters, digits, '.', '_', '=', ',' and '-' becomes one '-',
// leading and trailing '-' and '.' are trimmed (no hidden files, no "."
// or ".."), and it is cut to 200 bytes; "" becomes "_". Different inputs
// may share a readable form ("a b", "a/b" and "a?b" are all "a-b"): use
// Names for a set of inputs.
func Readable(s string) string {
	var b strings.Builder
	dash := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._=,-", c) >= 0 {
			b.WriteByte(c)
			dash = false
			continue
		}
		if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	r := strings.Trim(b.String(), "-.")
	if len(r) > maxLen {
		r = strings.TrimRight(r[:maxLen], "-.")
	}
	if r == "" {
		r = "_"
	}
	return r
}

// Names maps each of inputs to a safe name, distinct for distinct inputs
// even on case-insensitive file systems. An input whose readable form no
// other input shares (ignoring case) keeps it, so names stay stable and
// short; inputs that collide each get their readable form followed by '~'
// and the first 10 hex digits of the sha256 of the input. The result does
// not depend on the order of inputs; duplicates map to the same name.
func Names(inputs []string) (map[string]string, error) {
	groups := map[string][]string{}
	for _, in := range inputs {
		k := strings.ToLower(Readable(in))
		if !contains(groups[k], in) {
			groups[k] = append(groups[k], in)
		}
	}
	out := make(map[string]string, len(inputs))
	for _, g := range groups {
		for _, in := range g {
			name := Readable(in)
			if len(g) > 1 {
				sum := sha256.Sum256([]byte(in))
				name += "~" + hex.EncodeToString(sum[:5])
			}
			out[in] = name
		}
	}
	// A readable name that happens to equal another input's hashed one:
	// astronomically unlikely, but never silently merge two inputs.
	seen := make(map[string]string, len(out))
	keys := make([]string, 0, len(out))
	for in := range out {
		keys = append(keys, in)
	}
	sort.Strings(keys)
	for _, in := range keys {
		k := strings.ToLower(out[in])
		if prev, ok := seen[k]; ok {
			return nil, fmt.Errorf("safename: %q and %q both map to %q", prev, in, out[in])
		}
		seen[k] = in
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
