// Package registry holds the stage types a pipeline can use: their names,
// versions, typed parameter schemas with defaults and documentation, input
// slots, output artifacts and the function that runs them.
//
// Stage implementations (package stages) register here; the runner looks
// types up by name. The registry imports nothing of the runner or the cache.
package registry

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
)

// ParamType is the type of a stage parameter.
type ParamType string

// The parameter types. Values reach a stage as: string, int, float64, bool,
// []string, []int, []float64.
const (
	String  ParamType = "string"
	Int     ParamType = "int"
	Float   ParamType = "float"
	Bool    ParamType = "bool"
	Strings ParamType = "list(string)"
	Ints    ParamType = "list(int)"
	Floats  ParamType = "list(float)"
	// Path is a string naming a file or directory; the runner resolves it
	// relative to the pipeline file's directory before the stage sees it.
	Path ParamType = "path"
	// Blocks is a parameter a pipeline declares with nested blocks in the
	// stage body instead of an attribute: each `BLOCK "LABEL" { … }`
	// (Param.Block names BLOCK) is one element, a map holding the label
	// under "name" and each attribute (Param.BlockAttrs) as a string. Its
	// Go value is []map[string]string, in file order.
	Blocks ParamType = "blocks"
)

// BlockAttr is one attribute of the nested blocks of a Blocks parameter.
type BlockAttr struct {
	Name     string
	Required bool
	Enum     []string // allowed values, if restricted
	Doc      string
}

// Param describes one parameter of a stage type.
type Param struct {
	Name     string
	Type     ParamType
	Default  any      // nil when Required; otherwise a value of the Go type of Type
	Required bool     // no default: the pipeline must set it
	Enum     []string // allowed values of a String parameter, if restricted
	// Range bounds an Int or Float parameter, or every element of a list
	// of them; nil allows any value. The runner checks it when it loads a
	// pipeline, so a bad value fails validate and plan, not a run.
	Range *Range
	Doc   string
	// KeyOmitDefault leaves the parameter out of the cache key while it
	// holds its default value. For a parameter added to a stage type whose
	// keys are already in use: every existing instance keeps its key (and
	// its cached outputs), and only an instance that sets another value
	// gets a new one, whose record names the parameter ("param X added"
	// in plan's reasons). Not allowed on a Required parameter.
	KeyOmitDefault bool
	// Block names the nested block type that declares a Blocks parameter
	// (e.g. "output"), and BlockAttrs the string attributes such a block
	// takes. The values are the same for every instance of a stage block:
	// they may use variables and locals, not each or stages.
	Block      string
	BlockAttrs []BlockAttr
}

// Input describes an input slot: a parameter whose value is a reference to
// another stage's output (stage.TYPE.NAME or stage.TYPE.NAME.OUTPUT).
type Input struct {
	Name     string
	Kind     artifact.Kind // accepted kind; artifact.KindAny accepts all
	Many     bool          // accepts a list/map of references (e.g. all seeds of a for_each)
	Optional bool
	// Named slots take an object instead of references: each attribute
	// NAME = stage reference is an input of its own, the slot "SLOT.NAME"
	// of kind Kind (one artifact each), under which the stage finds it in
	// Job.Inputs and the cache key records it (e.g. the command stage's
	// inputs = { features = stage.precompute.cora } is "inputs.features").
	Named bool
	Doc   string
}

// Output describes one artifact a stage produces.
type Output struct {
	Name string
	Kind artifact.Kind
	Doc  string
}

// InputSize describes one input artifact to an EstimateMem function: its
// kind and the size of its stored payload in bytes (the built-in bundles
// store arrays uncompressed, so about their decoded size).
type InputSize struct {
	Kind  artifact.Kind
	Bytes int64
	// Shapes are the shapes of the artifact's arrays by member name, as
	// far as its stored format tells them without reading the data (a
	// sparse matrix: rows, cols); nil when unknown.
	Shapes map[string][]int
}

// Progress receives a running stage's own progress (for example epochs).
type Progress interface {
	// Report says that done of total units are finished; msg is a short
	// status such as "epoch 40 val 0.81". total may be 0 when unknown.
	Report(done, total int, msg string)
}

// Job is what a running stage receives.
type Job struct {
	// Address is the instance address, e.g. `train.cora["seed-3"]`.
	Address string
	// Key is the instance's cache key (hex sha256).
	Key string
	// Params holds every declared parameter, defaults filled in, Path values resolved.
	Params Values
	// Inputs maps each input slot to its artifacts (one for a plain slot,
	// several for a Many slot, none for an unset optional slot), in the order
	// of InputLabels.
	Inputs map[string][]artifact.Artifact
	// InputLabels gives, per slot, the address of each input artifact's
	// producer (e.g. `train.cora["seed-3"]`), parallel to Inputs.
	InputLabels map[string][]string
	// Seed is derived from the stage's "seed" parameter (0 if none) and the
	// stage type (SeedFor); RNG is a PCG generator seeded with it, and Stream
	// gives further named streams. Stages draw all randomness from them, so
	// their draws follow common random numbers (see SeedFor).
	Seed uint64
	RNG  *rand.Rand
	// Progress receives the stage's progress; never nil.
	Progress Progress
	// Logf writes a diagnostic line (shown with -v, kept in the run record).
	Logf func(format string, args ...any)
	// Workers is the number of threads the stage may use for its own
	// parallel loops (the runner divides cores between running stages); ≥ 1.
	Workers int
	// TimeLimit and MemLimitMB are the instance's resources { time, mem }
	// (mem falling back to the run's memory budget), 0 when unset. The
	// built-in stages leave them to the executor; a stage that runs an
	// outside program (command) kills it when it exceeds them.
	TimeLimit  time.Duration
	MemLimitMB int64
}

// InputInfo is one artifact connected to an input slot, as CheckConnections
// sees it: the producing instance and its parameters (defaults filled in).
type InputInfo struct {
	Address string // the producer's address, e.g. sample.cora["0"]
	Type    string // the producer's stage type
	Output  string // the producer's output
	Params  Values
}

// RunFunc executes a stage. It returns one artifact per declared output.
// It must honour ctx cancellation and must be deterministic given the Job.
type RunFunc func(ctx context.Context, job *Job) (map[string]artifact.Artifact, error)

// Type is a registered stage type.
type Type struct {
	Name    string // e.g. "dataset", "precompute", "train"
	Version string // bump when the stage's code changes its output
	Doc     string // one paragraph, shown by `hylaflow stages`
	Params  []Param
	Inputs  []Input
	Outputs []Output
	Run     RunFunc
	// Fingerprint, if set, returns a string that identifies the outside
	// data the stage reads (e.g. the sizes and digests of dataset files); it
	// becomes part of the cache key, so a changed file invalidates the stage.
	Fingerprint func(params Values) (string, error)
	// Origin, if set, says where the outside data that Fingerprint
	// identifies is read from (e.g. the data root a dataset's files were
	// found in); a run's provenance records it beside the fingerprint.
	Origin func(params Values) string
	// Check, if set, checks one instance's parameters (types, enums and
	// ranges already checked, defaults filled in, paths resolved) beyond
	// what the schema says, e.g. that a name is in a catalogue. The runner
	// calls it when it loads a pipeline and reports each Problem at the
	// parameter's value in the file. It must not depend on the machine
	// (files present, environment): that is Preflight's job.
	Check func(params Values) []Problem
	// CheckInputs, if set, checks one instance's parameters against the
	// names of its input slots (a Named slot's inputs as "SLOT.NAME"),
	// e.g. that placeholders in a command's argv name declared inputs.
	// The runner calls it after Check, when the instance has no errors.
	CheckInputs func(params Values, inputs []string) []Problem
	// CheckConnections, if set, checks an instance's parameters against those of
	// the instances its inputs come from (dimensions that must match, a
	// level both sides must share, the inputs a model needs), from the
	// pipeline alone: validate and plan call it when they load the
	// pipeline, before anything runs, and report each Problem at the
	// attribute it names (Problem.Param: a parameter or an input slot of
	// the instance; one that is not written in the block: the block).
	// inputs has an entry per connected slot, in order.
	CheckConnections func(params Values, inputs map[string][]InputInfo) []Problem
	// Preflight, if set, checks what running the instance needs from the
	// machine, e.g. that its data files exist, and returns warnings that
	// say how to get what is missing. plan and run call it before anything
	// runs; validate does not (a pipeline is valid whatever the machine).
	Preflight func(params Values) []Problem
	// EstimateMem, if set, returns how many bytes of memory an instance
	// needs while it runs — its decoded inputs, its working arrays and its
	// outputs, at their peak — from its parameters and the sizes of its
	// inputs (per slot, in InputLabels order). It should not be below the
	// real peak and not far above it (within about twice). The local
	// scheduler admits stages within its memory budget (run --mem) by the
	// larger of this and the instance's resources { mem }; plan shows it.
	// It never enters a cache key. It must be cheap and must not fail: a
	// stage without inputs may look at its files' sizes, and returns 0
	// when it cannot tell. Unset: the inputs' sizes are the estimate.
	EstimateMem func(params Values, inputs map[string][]InputSize) int64
	// DeclaredOutputs, if set, makes the outputs of an instance those its
	// parameters declare (the command stage's output blocks) instead of
	// Outputs, which then only documents them. It reads only Blocks
	// parameters (the same for every instance of a stage block) and must
	// return at least one output; see ForInstance.
	DeclaredOutputs func(params Values) ([]Output, error)
	// Command, if set, says that an instance runs a program that the
	// pipeline names rather than code compiled into hylaflow (the command
	// stage). The runner plans and runs such instances only with the
	// user's consent (runner.PlanOptions.AllowCommands), and plan lists
	// what they run.
	Command func(params Values) Command
	// Hidden types (the generic stages tests and runner benchmarks use)
	// work in pipelines but are not listed to users: Names leaves them
	// out, so `hylaflow stages` and the "Registered types" hints do too.
	Hidden bool
}

// Command is what an instance of a type with a Command hook runs.
type Command struct {
	// Argv is the program and its arguments, run when the stage runs.
	Argv []string
	// PlanArgv, if not empty, is a program the type's Fingerprint runs
	// when the instance is planned (the command stage's version_argv).
	PlanArgv []string
}

// ForInstance returns the type as an instance with params sees it: t
// itself, or for a type with DeclaredOutputs a copy whose Outputs are the
// declared ones (DeclaredOutputs set to nil). The runner gives such a copy
// to every instance, so the key, the executors and the output checks use
// the instance's outputs.
func (t *Type) ForInstance(params Values) (*Type, error) {
	if t.DeclaredOutputs == nil {
		return t, nil
	}
	outs, err := t.DeclaredOutputs(params)
	if err != nil {
		return nil, err
	}
	if len(outs) == 0 {
		return nil, fmt.Errorf("stage type %q: an instance declares no outputs", t.Name)
	}
	seen := map[string]bool{}
	for _, o := range outs {
		if o.Name == "" || seen[o.Name] {
			return nil, fmt.Errorf("stage type %q: output name %q is empty or declared twice", t.Name, o.Name)
		}
		seen[o.Name] = true
	}
	c := *t
	c.Outputs, c.DeclaredOutputs = outs, nil
	return &c, nil
}

// Param returns the parameter of that name.
func (t *Type) Param(name string) (*Param, bool) {
	for i := range t.Params {
		if t.Params[i].Name == name {
			return &t.Params[i], true
		}
	}
	return nil, false
}

// Input returns the input slot of that name; "SLOT.NAME" is an input of
// the Named slot SLOT.
func (t *Type) Input(name string) (*Input, bool) {
	for i := range t.Inputs {
		if t.Inputs[i].Name == name {
			return &t.Inputs[i], true
		}
	}
	if slot, sub, ok := strings.Cut(name, "."); ok && sub != "" {
		for i := range t.Inputs {
			if t.Inputs[i].Name == slot && t.Inputs[i].Named {
				return &t.Inputs[i], true
			}
		}
	}
	return nil, false
}

// Output returns the output of that name.
func (t *Type) Output(name string) (*Output, bool) {
	for i := range t.Outputs {
		if t.Outputs[i].Name == name {
			return &t.Outputs[i], true
		}
	}
	return nil, false
}

// Registry is a set of stage types by name. It is safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	types map[string]*Type
	funcs map[string]Function
}

// New returns an empty registry.
func New() *Registry { return &Registry{types: map[string]*Type{}} }

// Register adds t. It returns an error for a duplicate name or an invalid schema.
func (r *Registry) Register(t *Type) error {
	if err := t.check(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.types[t.Name]; dup {
		return fmt.Errorf("registry: stage type %q registered twice", t.Name)
	}
	r.types[t.Name] = t
	return nil
}

// MustRegister is Register for package initialisation; it panics on a programming error.
func (r *Registry) MustRegister(t *Type) {
	if err := r.Register(t); err != nil {
		panic(err)
	}
}

// Lookup returns the type of that name.
func (r *Registry) Lookup(name string) (*Type, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.types[name]
	return t, ok
}

// Names returns the registered names of the types that are not Hidden, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.types))
	for n, t := range r.types {
		if !t.Hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func (t *Type) check() error {
	if t.Name == "" || t.Version == "" || t.Run == nil {
		return fmt.Errorf("registry: stage type %q needs a name, a version and a Run function", t.Name)
	}
	if len(t.Outputs) == 0 && t.DeclaredOutputs == nil {
		return fmt.Errorf("registry: stage type %q declares no outputs", t.Name)
	}
	seen := map[string]bool{}
	for _, p := range t.Params {
		if seen[p.Name] {
			return fmt.Errorf("registry: stage type %q: duplicate parameter %q", t.Name, p.Name)
		}
		seen[p.Name] = true
		if (p.Type == Blocks) != (p.Block != "") {
			return fmt.Errorf("registry: stage type %q: parameter %q: a blocks parameter, and only one, names its block type", t.Name, p.Name)
		}
		if p.Required && p.KeyOmitDefault {
			return fmt.Errorf("registry: stage type %q: parameter %q is required, so it has no default to leave out of the key", t.Name, p.Name)
		}
		if !p.Required {
			if err := checkValue(p.Type, p.Default); err != nil {
				return fmt.Errorf("registry: stage type %q: default of %q: %w", t.Name, p.Name, err)
			}
		}
		if p.Range != nil {
			if err := p.Range.check(); err != nil {
				return fmt.Errorf("registry: stage type %q: parameter %q: %w", t.Name, p.Name, err)
			}
			switch p.Type {
			case Int, Float, Ints, Floats:
			default:
				return fmt.Errorf("registry: stage type %q: parameter %q: a range needs a numeric type, not %s", t.Name, p.Name, p.Type)
			}
			if !p.Required {
				for _, x := range numbers(p.Default) {
					if !p.Range.Contains(x) {
						return fmt.Errorf("registry: stage type %q: default %v of %q is outside its range %s", t.Name, x, p.Name, p.Range)
					}
				}
			}
		}
	}
	for _, in := range t.Inputs {
		if seen[in.Name] {
			return fmt.Errorf("registry: stage type %q: input %q collides with a parameter", t.Name, in.Name)
		}
		seen[in.Name] = true
	}
	return nil
}

// numbers returns the numeric values of an int, float or list parameter value.
func numbers(v any) []float64 {
	switch x := v.(type) {
	case int:
		return []float64{float64(x)}
	case float64:
		return []float64{x}
	case []int:
		out := make([]float64, len(x))
		for i, n := range x {
			out[i] = float64(n)
		}
		return out
	case []float64:
		return x
	}
	return nil
}

// CheckValue reports whether v is a valid Go value for a parameter of type pt.
func CheckValue(pt ParamType, v any) error { return checkValue(pt, v) }
