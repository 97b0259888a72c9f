package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/registry"
)

// PlanOptions change what a plan decides to run.
type PlanOptions struct {
	// Force lists instance addresses (train.cora["3"]) or stage blocks
	// (train.cora, meaning every instance of it) to run even when cached.
	Force []string
	// NoCache runs every stage, ignoring stored outputs (they are still
	// written, so later runs can use them).
	NoCache bool
}

// Step is the plan for one stage instance.
type Step struct {
	Instance *Instance
	// Record holds the instance's cache key and its components.
	Record *cache.KeyRecord
	// Cached is true when the key's outputs are stored and the stage will
	// not run; Outputs then lists them.
	Cached  bool
	Outputs []cache.OutputRef
	// Reason says why a stage that is not Cached runs: "never run",
	// "param lr changed 0.01 → 0.05", "forced", …
	Reason string
	// Damaged is true when the key is stored but a payload failed its
	// check (a leaf's digest): the stage runs as if forced, so its
	// executor does not serve the damaged outputs again, and the store
	// replaces the file.
	Damaged bool
}

// Key returns the step's cache key.
func (s *Step) Key() string { return s.Record.Key }

// Plan is a pipeline with a cache key and a run/cached decision per instance,
// in the pipeline's topological order.
type Plan struct {
	Pipeline  *Pipeline
	Steps     []*Step
	ByAddress map[string]*Step
}

// Counts returns how many steps run and how many are cached.
func (p *Plan) Counts() (run, cached int) {
	for _, s := range p.Steps {
		if s.Cached {
			cached++
		} else {
			run++
		}
	}
	return run, cached
}

// ErrUnknownName marks an error about a name the caller gave that the
// pipeline does not have (a --force stage or instance).
var ErrUnknownName = errors.New("unknown name")

// MakePlan computes every instance's cache key (from its type, version,
// parameters, fingerprint and its producers' keys) and looks it up in
// store, which it never writes. A nil store plans everything to run.
func MakePlan(p *Pipeline, store PlanStore, opts PlanOptions) (*Plan, error) {
	plan, err := planKeys(p, opts)
	if err != nil {
		return nil, err
	}
	if err := planLookup(plan, store, opts); err != nil {
		return nil, err
	}
	return plan, nil
}

// planKeys is the first half of MakePlan: every step with its key record,
// and the forced ones with their reason. It needs no store (a key depends
// on the producers' keys, never on what is stored), so Run can register
// the keys with the cache before it looks any of them up.
func planKeys(p *Pipeline, opts PlanOptions) (*Plan, error) {
	force := map[string]bool{}
	for _, f := range opts.Force {
		force[f] = true
	}
	matched := map[string]bool{}
	plan := &Plan{Pipeline: p, ByAddress: map[string]*Step{}}
	for _, inst := range p.Instances {
		rec, err := planRecord(inst, plan.ByAddress)
		if err != nil {
			return nil, err
		}
		step := &Step{Instance: inst, Record: rec}
		if force[inst.Address] {
			step.Reason, matched[inst.Address] = "forced", true
		}
		if force[inst.Block] {
			step.Reason, matched[inst.Block] = "forced", true
		}
		plan.Steps = append(plan.Steps, step)
		plan.ByAddress[inst.Address] = step
	}
	var unknown []string
	for _, f := range opts.Force {
		if !matched[f] {
			unknown = append(unknown, f)
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("--force %s: no such stage or instance in %s: %w", strings.Join(unknown, ", "), p.File, ErrUnknownName)
	}
	return plan, nil
}

// planLookup is the second half of MakePlan: it decides, for every step
// that is not forced, whether it is cached, and why it runs if not.
func planLookup(plan *Plan, store PlanStore, opts PlanOptions) error {
	// The leaves (instances nothing consumes: tables, figures, reports)
	// are what the user reads, so their stored payloads are re-hashed
	// before they are served from the cache; a damaged one runs again.
	checker, _ := store.(PayloadChecker)
	consumed := map[string]bool{}
	for _, step := range plan.Steps {
		for _, refs := range step.Instance.Inputs {
			for _, r := range refs {
				consumed[r.Producer] = true
			}
		}
	}
	for _, step := range plan.Steps {
		inst, rec := step.Instance, step.Record
		switch {
		case step.Reason == "forced":
		case opts.NoCache:
			step.Reason = "--no-cache"
		case store == nil:
			step.Reason = "no cache"
		default:
			refs, ok, err := store.Lookup(rec.Key)
			if err != nil {
				return fmt.Errorf("plan %s: %w", inst.Address, err)
			}
			if ok && checker != nil && !consumed[inst.Address] {
				if err := checker.CheckPayloads(refs, true); err != nil {
					step.Reason, step.Damaged = fmt.Sprintf("stored output damaged (%v)", err), true
					break
				}
			}
			if ok {
				step.Cached, step.Outputs = true, refs
				break
			}
			last, found, err := store.LastRecord(inst.Address)
			if err != nil {
				return fmt.Errorf("plan %s: %w", inst.Address, err)
			}
			step.Reason = planReason(rec, last, found, plan.ByAddress)
		}
	}
	return nil
}

// planRecord builds the key record of inst; its producers are in done.
func planRecord(inst *Instance, done map[string]*Step) (*cache.KeyRecord, error) {
	t := inst.Type
	params, err := EncodeParams(t, inst.Params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inst.Address, err)
	}
	rec := &cache.KeyRecord{
		Address:   inst.Address,
		StageType: t.Name,
		Version:   t.Version,
		Params:    params,
		Inputs:    map[string][]string{},
	}
	for slot, refs := range inst.Inputs {
		list := make([]string, 0, len(refs))
		for _, r := range refs {
			prod, ok := done[r.Producer]
			if !ok {
				return nil, fmt.Errorf("%s: input %q: producer %s is not planned before it (pipeline not in topological order)", inst.Address, slot, r.Producer)
			}
			list = append(list, prod.Record.Key+"/"+r.Output)
		}
		rec.Inputs[slot] = list
	}
	if t.Fingerprint != nil {
		fp, err := t.Fingerprint(inst.Params)
		if err != nil {
			return nil, fmt.Errorf("%s: fingerprint of the data it reads: %w", inst.Address, err)
		}
		rec.Fingerprint = fp
	}
	cache.ComputeKey(rec)
	return rec, nil
}

// planReason explains why rec is not cached, comparing it with last, the
// record of the most recent run of the same address.
func planReason(rec, last *cache.KeyRecord, found bool, done map[string]*Step) string {
	if !found {
		return "never run"
	}
	if last.Key == rec.Key {
		return "outputs missing"
	}
	why := KeyChanges(last, rec, planProducer(done))
	if len(why) == 0 {
		return "key changed"
	}
	return strings.Join(why, "; ")
}

// planProducer names the planned producer of an input reference, and
// whether it reruns in this plan or was changed earlier.
func planProducer(done map[string]*Step) func(ref string) string {
	var byKey map[string]*Step
	return func(ref string) string {
		if byKey == nil {
			byKey = map[string]*Step{}
			for _, s := range done {
				byKey[s.Record.Key] = s
			}
		}
		key, _, _ := strings.Cut(ref, "/")
		s, ok := byKey[key]
		switch {
		case !ok:
			return ""
		case s.Cached:
			return s.Instance.Address + " changed"
		default:
			return s.Instance.Address + " reruns"
		}
	}
}

func unionKeys[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range []map[string]V{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// EncodeParams returns the canonical JSON of every declared parameter of t
// (values missing from v are an error): strings and paths as JSON strings,
// numbers in Go's shortest round-trip form, lists as JSON arrays ([] for
// empty). This is what cache keys are computed from.
func EncodeParams(t *registry.Type, v registry.Values) (map[string]string, error) {
	out := make(map[string]string, len(t.Params))
	for _, p := range t.Params {
		x, ok := v[p.Name]
		if !ok {
			return nil, fmt.Errorf("parameter %q of stage type %q has no value", p.Name, t.Name)
		}
		if err := registry.CheckValue(p.Type, x); err != nil {
			return nil, fmt.Errorf("parameter %q of stage type %q: %w", p.Name, t.Name, err)
		}
		switch s := x.(type) {
		case float64:
			if math.IsNaN(s) || math.IsInf(s, 0) {
				return nil, fmt.Errorf("parameter %q of stage type %q: %v is not a finite number", p.Name, t.Name, s)
			}
		case []float64:
			for i, f := range s {
				if math.IsNaN(f) || math.IsInf(f, 0) {
					return nil, fmt.Errorf("parameter %q of stage type %q: element %d (%v) is not a finite number", p.Name, t.Name, i, f)
				}
			}
			if s == nil {
				x = []float64{}
			}
		case []int:
			if s == nil {
				x = []int{}
			}
		case []string:
			if s == nil {
				x = []string{}
			}
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(x); err != nil {
			return nil, fmt.Errorf("parameter %q of stage type %q: %w", p.Name, t.Name, err)
		}
		out[p.Name] = strings.TrimSuffix(buf.String(), "\n")
	}
	for name := range v {
		if _, ok := t.Param(name); !ok {
			return nil, fmt.Errorf("stage type %q has no parameter %q", t.Name, name)
		}
	}
	return out, nil
}

// DecodeParams is the inverse of EncodeParams: it decodes each parameter's
// canonical JSON by t's schema.
func DecodeParams(t *registry.Type, enc map[string]string) (registry.Values, error) {
	v := make(registry.Values, len(t.Params))
	for _, p := range t.Params {
		raw, ok := enc[p.Name]
		if !ok {
			return nil, fmt.Errorf("parameter %q of stage type %q is missing from the key record", p.Name, t.Name)
		}
		var err error
		switch p.Type {
		case registry.String, registry.Path:
			v[p.Name], err = decodeParam[string](raw)
		case registry.Int:
			v[p.Name], err = decodeParam[int](raw)
		case registry.Float:
			v[p.Name], err = decodeParam[float64](raw)
		case registry.Bool:
			v[p.Name], err = decodeParam[bool](raw)
		case registry.Strings:
			v[p.Name], err = decodeParam[[]string](raw)
		case registry.Ints:
			v[p.Name], err = decodeParam[[]int](raw)
		case registry.Floats:
			v[p.Name], err = decodeParam[[]float64](raw)
		default:
			err = fmt.Errorf("unknown parameter type %q", p.Type)
		}
		if err != nil {
			return nil, fmt.Errorf("parameter %q (%s) of stage type %q: value %s: %w", p.Name, p.Type, t.Name, raw, err)
		}
	}
	for name := range enc {
		if _, ok := t.Param(name); !ok {
			return nil, fmt.Errorf("the key record has parameter %q, which stage type %q does not declare", name, t.Name)
		}
	}
	return v, nil
}

func decodeParam[T any](raw string) (T, error) {
	var x T
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&x); err != nil {
		return x, err
	}
	if dec.More() {
		return x, fmt.Errorf("trailing data after the value")
	}
	return x, nil
}
