package pipeline

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrNoMatch marks an --only pattern that names no stage or instance.
var ErrNoMatch = errors.New("no stage matches")

// Only returns the part of p that patterns select, with everything it
// needs upstream: the instances an address, a stage block (TYPE.NAME) or a
// glob (* any run of characters, ? one; matched against addresses and
// blocks, e.g. train.cora or `train.*["seed=0*"]`) names, and the
// producers of their inputs, transitively, in p's order (like a make or
// Snakemake target). Publish blocks are kept only when everything they
// publish is selected, so a scoped run never overwrites published results
// with a part of them. A pattern that selects nothing is an error wrapping
// ErrNoMatch.
func Only(p *Pipeline, patterns []string) (*Pipeline, error) {
	if len(patterns) == 0 {
		return p, nil
	}
	keep := map[string]bool{}
	var unknown []string
	for _, pat := range patterns {
		match := onlyMatcher(pat)
		found := false
		for _, inst := range p.Instances {
			if match(inst.Address) || match(inst.Block) {
				keep[inst.Address], found = true, true
			}
		}
		if !found {
			unknown = append(unknown, pat)
		}
	}
	if len(unknown) > 0 {
		msgs := make([]string, len(unknown))
		for i, pat := range unknown {
			hint := fmt.Sprintf(" (its stages: %s)", strings.Join(p.Blocks(), ", "))
			if !strings.ContainsAny(pat, "*?") {
				hint = p.Suggest(pat)
			}
			msgs[i] = fmt.Sprintf("--only %s: no stage or instance of %s matches%s", pat, p.File, hint)
		}
		return nil, &noMatchError{strings.Join(msgs, "\n")}
	}
	// Producers come before consumers in p.Instances: one pass backwards
	// adds every producer of a kept instance.
	for i := len(p.Instances) - 1; i >= 0; i-- {
		inst := p.Instances[i]
		if !keep[inst.Address] {
			continue
		}
		for _, refs := range inst.Inputs {
			for _, r := range refs {
				keep[r.Producer] = true
			}
		}
	}
	out := *p
	out.Instances, out.ByAddress, out.Publish = nil, map[string]*Instance{}, nil
	for _, inst := range p.Instances {
		if keep[inst.Address] {
			out.Instances = append(out.Instances, inst)
			out.ByAddress[inst.Address] = inst
		}
	}
	for _, pub := range p.Publish {
		all := true
		for _, it := range pub.Items {
			all = all && keep[it.Producer]
		}
		if all {
			out.Publish = append(out.Publish, pub)
		}
	}
	return &out, nil
}

// noMatchError is the error of --only patterns that select nothing.
type noMatchError struct{ msg string }

func (e *noMatchError) Error() string        { return e.msg }
func (e *noMatchError) Is(target error) bool { return target == ErrNoMatch }

// onlyMatcher matches an address or block against pat: exactly, or as a
// glob when pat holds * or ? (brackets and quotes stand for themselves).
func onlyMatcher(pat string) func(string) bool {
	if !strings.ContainsAny(pat, "*?") {
		return func(s string) bool { return s == pat }
	}
	q := regexp.QuoteMeta(pat)
	q = strings.ReplaceAll(q, `\*`, `.*`)
	q = strings.ReplaceAll(q, `\?`, `.`)
	re := regexp.MustCompile("^" + q + "$")
	return re.MatchString
}
