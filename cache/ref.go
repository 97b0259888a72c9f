package cache

import (
	"fmt"
	"strings"
)

// OutputID names one output of a cache key, written KEY/OUTPUT: the form
// in which a key record lists its inputs (KeyRecord.Inputs) and in which
// the CLI and the payload checks name a stored artifact.
type OutputID struct {
	Key    string // the producing key (hex sha256)
	Output string // the output's name
}

// String returns KEY/OUTPUT.
func (id OutputID) String() string { return id.Key + "/" + id.Output }

// ParseOutputID reads KEY/OUTPUT (the first slash separates them; a key
// never holds one). Both parts must be non-empty.
func ParseOutputID(s string) (OutputID, error) {
	key, out, ok := strings.Cut(s, "/")
	if !ok || key == "" || out == "" {
		return OutputID{}, fmt.Errorf("%q: want PRODUCERKEY/OUTPUT", s)
	}
	return OutputID{Key: key, Output: out}, nil
}

// ParseOutputRef reads KEY[/OUTPUT] as the commands take it: KEY may be
// a key prefix (resolve it with Cache.ResolveKey), and Output is empty
// when the output is left out. Everything after the first slash is the
// output's name.
func ParseOutputRef(s string) OutputID {
	key, out, _ := strings.Cut(s, "/")
	return OutputID{Key: key, Output: out}
}

// ID returns the KEY/OUTPUT name of r.
func (r OutputRef) ID() OutputID { return OutputID{Key: r.Key, Output: r.Name} }

// InputKeys returns the producer keys of r's inputs, slots in name order
// and each slot's inputs in order (a producer consumed twice is listed
// twice). An input that is not KEY/OUTPUT is listed whole.
func (r *KeyRecord) InputKeys() []string {
	var keys []string
	for _, slot := range sortedKeys(r.Inputs) {
		for _, s := range r.Inputs[slot] {
			keys = append(keys, ParseOutputRef(s).Key)
		}
	}
	return keys
}
