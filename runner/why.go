package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/registry"
)

// KeyChanges says what differs between two key records of a stage
// instance, old before cur, in the words plan uses for why a stage reruns:
// "stage version 1 → 2", "param lr changed 0.01 → 0.05", "param k added
// (2)", "input samples changed (sample.hyla["0"] changed)", "input data
// changed" (the fingerprint of outside data). It is empty when the
// components are the same.
//
// producer names the producer of one of cur's input references
// ("KEY/OUTPUT"), e.g. `sample.hyla["0"] reruns`; "" when it is not known,
// and the reference itself is shown.
func KeyChanges(old, cur *cache.KeyRecord, producer func(ref string) string) []string {
	var why []string
	if old.StageType != cur.StageType {
		why = append(why, fmt.Sprintf("stage type %s → %s", old.StageType, cur.StageType))
	}
	if old.Version != cur.Version {
		why = append(why, fmt.Sprintf("stage version %s → %s", old.Version, cur.Version))
	}
	for _, name := range unionKeys(old.Params, cur.Params) {
		was, hadOld := old.Params[name]
		now, hasCur := cur.Params[name]
		switch {
		case !hadOld:
			why = append(why, fmt.Sprintf("param %s added (%s)", name, now))
		case !hasCur:
			why = append(why, fmt.Sprintf("param %s removed (was %s)", name, was))
		case was != now:
			why = append(why, fmt.Sprintf("param %s changed %s → %s", name, was, now))
		}
	}
	for _, slot := range unionKeys(old.Inputs, cur.Inputs) {
		if slices.Equal(old.Inputs[slot], cur.Inputs[slot]) {
			continue
		}
		why = append(why, "input "+slot+" changed"+inputChangeDetail(old.Inputs[slot], cur.Inputs[slot], producer))
	}
	if old.Fingerprint != cur.Fingerprint {
		if parts, ok := registry.FingerprintChanges(old.Fingerprint, cur.Fingerprint); ok && len(parts) > 0 {
			why = append(why, parts...) // "code train.py changed"
		} else {
			why = append(why, "input data changed")
		}
	}
	return why
}

// inputChangeDetail names the producers of the references of an input
// slot that differ between old and cur (at most three, then how many more).
func inputChangeDetail(old, cur []string, producer func(ref string) string) string {
	if len(old) != len(cur) {
		return fmt.Sprintf(" (%d → %d artifacts)", len(old), len(cur))
	}
	var names []string
	for i, ref := range cur {
		if ref == old[i] {
			continue
		}
		name := ""
		if producer != nil {
			name = producer(ref)
		}
		if name == "" {
			name = ref
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return ""
	}
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("and %d more", len(names)-3))
	}
	return " (" + strings.Join(names, ", ") + ")"
}
