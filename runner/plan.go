package runner

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/pipeline"
)

// PlanOptions change what a plan decides to run.
type PlanOptions struct {
	// Force lists instance addresses (train.cora["3"]) or stage blocks
	// (train.cora, meaning every instance of it) to run even when cached.
	Force []string
	// NoCache runs every stage, ignoring stored outputs (they are still
	// written, so later runs can use them).
	NoCache bool
	// AllowCommands is the user's consent to run the programs of command
	// stages (--allow-commands): without it Run and Execute refuse a
	// pipeline that has any, and planning one whose key needs a program's
	// output (version_argv) is refused too (CommandsRefused).
	AllowCommands bool
}

// Step is the plan for one stage instance.
type Step struct {
	Instance *pipeline.Instance
	// Record holds the instance's cache key and its components.
	Record *cache.KeyRecord
	// Cached is true when the key's outputs are stored and the stage will
	// not run; Outputs then lists them.
	Cached  bool
	Outputs []cache.OutputRef
	// Reason says why a stage that is not Cached runs: "never run",
	// "param lr changed 0.01 → 0.05", "forced", …, compared with the last
	// run of the same pipeline when the store keeps runs; for a Cached
	// step it is "" or "cached from another pipeline".
	Reason string
	// Damaged is true when the key is stored but a payload failed its
	// check (a leaf's digest): the stage runs as if forced, so its
	// executor does not serve the damaged outputs again, and the store
	// replaces the file.
	Damaged bool
	// MemMB is the memory in MiB the local scheduler counts for the
	// stage (MemEstimate); MemKnown is false while an input is not stored
	// yet, and the estimate is then made when the input is produced.
	MemMB    int64
	MemKnown bool
}

// Key returns the step's cache key.
func (s *Step) Key() string { return s.Record.Key }

// Plan is a pipeline with a cache key and a run/cached decision per instance,
// in the pipeline's topological order.
type Plan struct {
	Pipeline  *pipeline.Pipeline
	Steps     []*Step
	ByAddress map[string]*Step

	// opts are the options the plan was made with; removals is the
	// store's RemovalCounter count read before the lookups (-1: unknown),
	// with which Run tells whether they still hold.
	opts     PlanOptions
	removals int64
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

// unknownNameError is an error that is ErrUnknownName, with its own text.
type unknownNameError struct{ msg string }

func (e *unknownNameError) Error() string        { return e.msg }
func (e *unknownNameError) Is(target error) bool { return target == ErrUnknownName }

// MakePlan computes every instance's cache key (from its type, version,
// parameters, fingerprint and its producers' keys) and looks it up in
// store, which it never writes. A nil store plans everything to run.
func MakePlan(p *pipeline.Pipeline, store PlanStore, opts PlanOptions) (*Plan, error) {
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
func planKeys(p *pipeline.Pipeline, opts PlanOptions) (*Plan, error) {
	if err := checkCommands(p, opts, true); err != nil {
		return nil, err
	}
	force := map[string]bool{}
	for _, f := range opts.Force {
		force[f] = true
	}
	matched := map[string]bool{}
	plan := &Plan{Pipeline: p, ByAddress: map[string]*Step{}, opts: opts, removals: -1}
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
			unknown = append(unknown, fmt.Sprintf("--force %s: no such stage or instance in %s%s", f, p.File, p.Suggest(f)))
		}
	}
	if len(unknown) > 0 {
		return nil, &unknownNameError{strings.Join(unknown, "\n")}
	}
	return plan, nil
}

// planLookup is the second half of MakePlan: it decides, for every step
// that is not forced, whether it is cached, and why it runs if not.
func planLookup(plan *Plan, store PlanStore, opts PlanOptions) error {
	plan.removals = -1
	if rc, ok := store.(RemovalCounter); ok {
		n, err := rc.Removals()
		if err != nil {
			return fmt.Errorf("plan: %w", err)
		}
		plan.removals = n
	}
	for _, step := range plan.Steps {
		step.Cached, step.Outputs, step.Damaged = false, nil, false
		if step.Reason != "forced" {
			step.Reason = ""
		}
	}
	// The leaves (instances nothing consumes: tables, figures, reports)
	// are what the user reads, so their stored payloads are re-hashed
	// before they are served from the cache; a damaged one runs again.
	checker, _ := store.(PayloadChecker)
	hist, _ := store.(PipelineHistory)
	var history map[string]string // address → key; nil: the store keeps no runs
	if hist != nil {
		addrs := make([]string, len(plan.Steps))
		for i, s := range plan.Steps {
			addrs[i] = s.Instance.Address
		}
		var err error
		if history, err = hist.LastKeysOf(plan.Pipeline.Name, addrs); err != nil {
			return fmt.Errorf("plan: %w", err)
		}
	}
	if pre, ok := store.(LookupPreloader); ok && !opts.NoCache {
		keys := make([]string, 0, len(plan.Steps))
		for _, step := range plan.Steps {
			if step.Reason != "forced" {
				keys = append(keys, step.Key())
			}
		}
		defer pre.PreloadLookups(keys)()
	}
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
				if last, ran := history[inst.Address]; history != nil && (!ran || last != rec.Key) {
					step.Reason = cache.ReasonCachedElsewhere
				}
				break
			}
			if history != nil {
				var last *cache.KeyRecord
				key, found := history[inst.Address]
				switch {
				case found && key == rec.Key:
					last = rec
				case found:
					if last, found, err = hist.Record(key); err != nil {
						return fmt.Errorf("plan %s: %w", inst.Address, err)
					}
				}
				step.Reason = planReason(rec, last, found, plan.ByAddress)
				break
			}
			last, found, err := store.LastRecord(inst.Address)
			if err != nil {
				return fmt.Errorf("plan %s: %w", inst.Address, err)
			}
			step.Reason = planReason(rec, last, found, plan.ByAddress)
		}
	}
	planMem(plan, store)
	return nil
}

// planRecord builds the key record of inst; its producers are in done.
func planRecord(inst *pipeline.Instance, done map[string]*Step) (*cache.KeyRecord, error) {
	inputs := make(map[string][]cache.OutputID, len(inst.Inputs))
	for slot, refs := range inst.Inputs {
		ids := make([]cache.OutputID, 0, len(refs))
		for _, r := range refs {
			prod, ok := done[r.Producer]
			if !ok {
				return nil, fmt.Errorf("%s: input %q: producer %s is not planned before it (pipeline not in topological order)", inst.Address, slot, r.Producer)
			}
			ids = append(ids, cache.OutputID{Key: prod.Key(), Output: r.Output})
		}
		inputs[slot] = ids
	}
	return keyRecord(inst.Type, inst.Address, inst.Params, inputs)
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
		id, _ := cache.ParseOutputID(ref) // a malformed ref has no producer
		s, ok := byKey[id.Key]
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

// ReadOnlyStore is the store plan (the command) plans against: S's lookups,
// last records and, for the memory estimates, shapes (ShapeStore), a nil S
// reading as an empty cache. It hides S's PayloadChecker: plan reads no
// payload, so the leaves it shows as cached are not re-hashed as a run's.
type ReadOnlyStore struct{ S PlanStore }

// LastKeysOf implements PipelineHistory when S does (no history
// otherwise: plan then compares with S's LastRecord of each address).
func (r ReadOnlyStore) LastKeysOf(pipeline string, addresses []string) (map[string]string, error) {
	if h, ok := r.S.(PipelineHistory); ok {
		return h.LastKeysOf(pipeline, addresses)
	}
	return nil, nil
}

// Record implements PipelineHistory.
func (r ReadOnlyStore) Record(key string) (*cache.KeyRecord, bool, error) {
	if h, ok := r.S.(PipelineHistory); ok {
		return h.Record(key)
	}
	return nil, false, nil
}

// Lookup implements PlanStore.
func (r ReadOnlyStore) Lookup(key string) ([]cache.OutputRef, bool, error) {
	if r.S == nil {
		return nil, false, nil
	}
	return r.S.Lookup(key)
}

// LastRecord implements PlanStore.
func (r ReadOnlyStore) LastRecord(address string) (*cache.KeyRecord, bool, error) {
	if r.S == nil {
		return nil, false, nil
	}
	return r.S.LastRecord(address)
}

// Shapes implements ShapeStore.
func (r ReadOnlyStore) Shapes(ref cache.OutputRef) map[string][]int {
	if s, ok := r.S.(ShapeStore); ok {
		return s.Shapes(ref)
	}
	return nil
}
