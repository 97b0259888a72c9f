package registry

import (
	"fmt"
	"sort"
	"strings"
)

// fingerprintHeader starts a Fingerprint made of named parts, so that it
// cannot be mistaken for a plain digest (which has no newline).
const fingerprintHeader = "parts\n"

// JoinFingerprint makes a Fingerprint of named parts: one "NAME\tVALUE"
// line each, sorted by name. Plan and runs diff then name the parts that
// differ between two runs ("code train.py changed", "version added")
// instead of "input data changed". Names and values must not hold a tab
// or a newline (quote a value that might).
func JoinFingerprint(parts map[string]string) (string, error) {
	names := make([]string, 0, len(parts))
	for n, v := range parts {
		if n == "" || strings.ContainsAny(n, "\t\n") || strings.ContainsAny(v, "\t\n") {
			return "", fmt.Errorf("fingerprint part %q: names and values hold no tab or newline", n)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(fingerprintHeader)
	for _, n := range names {
		b.WriteString(n)
		b.WriteByte('\t')
		b.WriteString(parts[n])
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// SplitFingerprint returns the parts of a Fingerprint made by
// JoinFingerprint; ok is false for any other fingerprint.
func SplitFingerprint(fp string) (parts map[string]string, ok bool) {
	rest, ok := strings.CutPrefix(fp, fingerprintHeader)
	if !ok {
		return nil, false
	}
	parts = map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(rest, "\n"), "\n") {
		if line == "" {
			continue
		}
		n, v, found := strings.Cut(line, "\t")
		if !found {
			return nil, false
		}
		parts[n] = v
	}
	return parts, true
}

// FingerprintChanges names the parts that differ between two fingerprints
// made by JoinFingerprint, old before cur: "NAME changed", "NAME added",
// "NAME removed", in name order. ok is false when either is not made of
// parts (then only "they differ" can be said).
func FingerprintChanges(old, cur string) (changes []string, ok bool) {
	a, okA := SplitFingerprint(old)
	b, okB := SplitFingerprint(cur)
	if !okA || !okB {
		return nil, false
	}
	names := map[string]bool{}
	for n := range a {
		names[n] = true
	}
	for n := range b {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		va, inA := a[n]
		vb, inB := b[n]
		switch {
		case !inA:
			changes = append(changes, n+" added")
		case !inB:
			changes = append(changes, n+" removed")
		case va != vb:
			changes = append(changes, n+" changed")
		}
	}
	return changes, true
}
