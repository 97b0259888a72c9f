package runner

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/registry"
)

// Local is the in-process executor: it claims the key, loads the inputs
// (from memory when a producer ran in this process, else from the cache),
// runs the stage's RunFunc and stores its outputs.
type Local struct {
	Store Store
	// Memo, if set, shares decoded artifacts between the stages of one run,
	// so an output computed in this process is not decoded again.
	Memo *Memo
}

// SharedMemo implements InProcess: Local runs stages in this process and
// shares decoded outputs through its Memo.
func (l *Local) SharedMemo() *Memo { return l.Memo }

// NewLocal returns a local executor on store with a fresh memo.
func NewLocal(store Store) *Local { return &Local{Store: store, Memo: NewMemo()} }

// Execute implements Executor.
func (l *Local) Execute(ctx context.Context, task *Task, hooks Hooks) (*Result, error) {
	key := task.Key()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var release func()
	var err error
	if tc, ok := l.Store.(ClaimTrier); ok && noClaimWait(ctx) {
		var taken bool
		release, taken, err = tc.TryClaim(key)
		if err == nil && !taken {
			return nil, &BusyError{Address: task.Address(), Key: key}
		}
	} else {
		release, err = l.Store.Claim(ctx, key)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("claim %s (%s): %w", key, task.Address(), err)
	}
	defer release()
	if !task.Force {
		refs, ok, err := l.Store.Lookup(key)
		if err != nil {
			return nil, fmt.Errorf("look up %s (%s): %w", key, task.Address(), err)
		}
		if ok {
			return &Result{Outputs: OrderRefs(task.Type, refs), Cached: true}, nil
		}
	}
	job, err := l.job(task, hooks)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	outs, runErr := runStage(ctx, task.Type, job)
	dur := time.Since(start)
	if ctx.Err() != nil {
		// Never store what a canceled stage returned: it may be partial.
		return nil, ctx.Err()
	}
	if runErr != nil {
		return nil, &StageError{Address: task.Address(), Err: runErr}
	}
	if err := CheckOutputs(task.Type, outs); err != nil {
		return nil, &StageError{Address: task.Address(), Err: err}
	}
	refs, err := l.Store.Store(task.Record, outs)
	if err != nil {
		return nil, fmt.Errorf("store the outputs of %s (%s): %w", task.Address(), key, err)
	}
	return &Result{Outputs: OrderRefs(task.Type, refs), Metrics: Metrics(outs), Artifacts: outs, Duration: dur}, nil
}

// ClaimTrier is a Store that can try a claim without waiting (see
// cache.Cache.TryClaim). *cache.Cache implements it.
type ClaimTrier interface {
	TryClaim(key string) (release func(), ok bool, err error)
}

// BusyError is returned by an executor asked not to wait for claims (the
// scheduler's context, see withoutClaimWait) when another process, or
// another run in this one, is computing the key. The scheduler runs other
// ready stages meanwhile and tries the stage again later; by then the key
// is usually stored and the stage is served from the cache.
type BusyError struct {
	Address, Key string
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s: key %s is being computed by another process", e.Address, e.Key)
}

type noClaimWaitKey struct{}

// withoutClaimWait marks ctx so that executors which can (Local on a
// ClaimTrier) return a BusyError instead of waiting for a claim.
func withoutClaimWait(ctx context.Context) context.Context {
	return context.WithValue(ctx, noClaimWaitKey{}, true)
}

func noClaimWait(ctx context.Context) bool {
	v, _ := ctx.Value(noClaimWaitKey{}).(bool)
	return v
}

// runStage calls the stage's RunFunc, turning a panic into an error so one
// broken stage cannot take the process (and the other running stages) down.
func runStage(ctx context.Context, t *registry.Type, job *registry.Job) (outs map[string]artifact.Artifact, err error) {
	defer func() {
		if r := recover(); r != nil {
			outs, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	return t.Run(ctx, job)
}

// job builds the registry.Job of task, loading its inputs.
func (l *Local) job(task *Task, hooks Hooks) (*registry.Job, error) {
	job := &registry.Job{
		Address:     task.Address(),
		Key:         task.Key(),
		Params:      task.Params,
		Inputs:      map[string][]artifact.Artifact{},
		InputLabels: map[string][]string{},
		Workers:     max(1, task.Workers),
		Progress:    progressFunc(hooks.Progress),
		Logf:        hooks.Logf,
		TimeLimit:   task.Resources.Time,
		MemLimitMB:  task.Resources.MemMB,
	}
	if job.MemLimitMB <= 0 {
		job.MemLimitMB = task.MemBudgetMB
	}
	if job.Logf == nil {
		job.Logf = func(string, ...any) {}
	}
	job.Seed = registry.SeedFor(registry.SeedParam(task.Params), task.Type.Name)
	job.RNG = registry.NewRNG(job.Seed)
	for slot, ins := range task.Inputs {
		arts := make([]artifact.Artifact, len(ins))
		labels := make([]string, len(ins))
		for i, in := range ins {
			a, err := l.load(in.Ref)
			if err != nil {
				return nil, &InputError{Producer: in.Label, Ref: in.Ref, Err: err}
			}
			arts[i], labels[i] = a, in.Label
		}
		job.Inputs[slot], job.InputLabels[slot] = arts, labels
	}
	return job, nil
}

func (l *Local) load(ref cache.OutputRef) (artifact.Artifact, error) {
	if l.Memo != nil {
		return l.Memo.Load(ref, l.Store)
	}
	return l.Store.Load(ref)
}

type progressFunc func(done, total int, msg string)

func (f progressFunc) Report(done, total int, msg string) {
	if f != nil {
		f(done, total, msg)
	}
}

// CheckOutputs checks that outs holds exactly the declared outputs of t, each
// of its declared kind.
func CheckOutputs(t *registry.Type, outs map[string]artifact.Artifact) error {
	for _, o := range t.Outputs {
		a, ok := outs[o.Name]
		if !ok || a == nil {
			return fmt.Errorf("stage type %q returned no output %q", t.Name, o.Name)
		}
		if !o.Kind.Accepts(a.Kind()) {
			return fmt.Errorf("stage type %q: output %q is a %s artifact, declared %s", t.Name, o.Name, a.Kind(), o.Kind)
		}
	}
	for name := range outs {
		if _, ok := t.Output(name); !ok {
			return fmt.Errorf("stage type %q returned undeclared output %q", t.Name, name)
		}
	}
	return nil
}

// Metrics collects the metrics (artifact.Artifact.Metrics) of every output
// that carries results. With one such output the names are its entries;
// with several they are prefixed "OUTPUT.".
func Metrics(outs map[string]artifact.Artifact) map[string]float64 {
	var names []string
	per := map[string]map[string]float64{}
	for name, a := range outs {
		if a == nil {
			continue
		}
		if m := a.Metrics(); m != nil {
			names = append(names, name)
			per[name] = m
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	m := map[string]float64{}
	for _, name := range names {
		for k, f := range per[name] {
			if len(names) > 1 {
				k = name + "." + k
			}
			m[k] = f
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// OrderRefs sorts refs by the type's output order, the order every
// executor returns a Result's outputs in.
func OrderRefs(t *registry.Type, refs []cache.OutputRef) []cache.OutputRef {
	pos := map[string]int{}
	for i, o := range t.Outputs {
		pos[o.Name] = i
	}
	out := append([]cache.OutputRef(nil), refs...)
	sort.SliceStable(out, func(i, j int) bool { return pos[out[i].Name] < pos[out[j].Name] })
	return out
}

// Memo holds decoded artifacts of a run in memory, keyed by KEY/OUTPUT, so
// that consumers in the same process share them. Entries can be given a
// use count; the last use drops them.
type Memo struct {
	mu      sync.Mutex
	entries map[cache.OutputID]*memoEntry
}

type memoEntry struct {
	once sync.Once
	art  artifact.Artifact
	err  error
	uses int   // remaining uses; ≤ 0 means unlimited
	size int64 // stored size of the artifact (about its decoded size)
	held bool  // decoded and held (guarded by Memo.mu, unlike art)
}

// NewMemo returns an empty memo.
func NewMemo() *Memo { return &Memo{entries: map[cache.OutputID]*memoEntry{}} }

func memoKey(key, output string) cache.OutputID { return cache.OutputID{Key: key, Output: output} }

// Put records a freshly computed artifact of size bytes (stored) with the
// number of loads it will serve (≤ 0: keep until Drop).
func (m *Memo) Put(key, output string, a artifact.Artifact, size int64, uses int) {
	e := &memoEntry{art: a, uses: uses, size: size, held: true}
	e.once.Do(func() {})
	m.mu.Lock()
	m.entries[memoKey(key, output)] = e
	m.mu.Unlock()
}

// Expect announces that ref will be loaded uses times, so that a loaded
// artifact is decoded once and kept until its last use.
func (m *Memo) Expect(key, output string, uses int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := memoKey(key, output)
	if e, ok := m.entries[k]; ok {
		if e.uses > 0 {
			e.uses += uses
		}
		return
	}
	m.entries[k] = &memoEntry{uses: uses}
}

// Drop forgets an artifact.
func (m *Memo) Drop(key, output string) {
	m.mu.Lock()
	delete(m.entries, memoKey(key, output))
	m.mu.Unlock()
}

// Held returns the stored size in bytes of the artifacts the memo holds
// decoded (about the memory they take).
func (m *Memo) Held() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for _, e := range m.entries {
		if e.held {
			n += e.size
		}
	}
	return n
}

// Shrink drops held artifacts, largest first, until at most limit bytes
// are held, and returns how many bytes it dropped. A dropped artifact's
// later consumers load it from the store again (a stage running with it
// keeps its own reference), so the memo trades decoding time for memory
// when a run's memory budget is short.
func (m *Memo) Shrink(limit int64) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	type held struct {
		k    cache.OutputID
		size int64
	}
	var n int64
	for _, e := range m.entries {
		if e.held {
			n += e.size
		}
	}
	if n <= limit {
		return 0 // the usual case: nothing to drop, nothing to gather or sort
	}
	var all []held
	for k, e := range m.entries {
		if e.held {
			all = append(all, held{k, e.size})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].size != all[j].size {
			return all[i].size > all[j].size
		}
		return all[i].k.Key+all[i].k.Output < all[j].k.Key+all[j].k.Output
	})
	var dropped int64
	for _, h := range all {
		if n-dropped <= limit {
			break
		}
		delete(m.entries, h.k)
		dropped += h.size
	}
	return dropped
}

// Len returns the number of entries held.
func (m *Memo) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}

// Load returns the artifact of ref, decoding it from store at most once
// while it is held; each call counts as one use.
func (m *Memo) Load(ref cache.OutputRef, store Store) (artifact.Artifact, error) {
	k := ref.ID()
	m.mu.Lock()
	e, ok := m.entries[k]
	if !ok {
		m.mu.Unlock()
		return store.Load(ref)
	}
	m.mu.Unlock()
	e.once.Do(func() { e.art, e.err = store.Load(ref) })
	m.mu.Lock()
	e.size, e.held = ref.Size, e.err == nil
	if e.uses > 0 {
		e.uses--
		if e.uses == 0 && m.entries[k] == e {
			delete(m.entries, k)
		}
	}
	m.mu.Unlock()
	if e.err != nil {
		m.mu.Lock()
		if m.entries[k] == e {
			delete(m.entries, k)
		}
		m.mu.Unlock()
		return nil, e.err
	}
	return e.art, nil
}

// errCanceled reports whether err is a cancellation.
func errCanceled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
