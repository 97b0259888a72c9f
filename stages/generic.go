package stages

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// The generic stages are small, fast stage types over float vectors, for
// testing pipelines and measuring the runner itself: value, random, scale,
// sum, sleep and fail. Each emits KindValue artifacts holding one member
// "values" (a float vector); sum also emits KindMetrics.

// GenericMemberValues is the member of a KindValue artifact of the generic
// stages: a float64 vector.
const GenericMemberValues = "values"

// genericMaxLen bounds the vectors the generic stages make.
const genericMaxLen = 1 << 24

func registerGeneric(r *registry.Registry) error {
	for _, t := range []*registry.Type{
		genericValueType(), genericRandomType(), genericScaleType(),
		genericSumType(), genericSleepType(), genericFailType(),
	} {
		t.Hidden = true // for tests and runner benchmarks, not for users
		if err := r.Register(t); err != nil {
			return err
		}
	}
	return nil
}

func genericVector(v []float64) *bundle.Bundle {
	a := bundle.New(schema.KindValue)
	a.SetFloats(GenericMemberValues, v)
	return a
}

func genericOut(v []float64) map[string]artifact.Artifact {
	return map[string]artifact.Artifact{"out": genericVector(v)}
}

// genericInput returns the vector of input i of slot, naming its producer in errors.
func genericInput(job *registry.Job, slot string, i int) ([]float64, error) {
	a, err := bundle.From(job.Inputs[slot][i])
	var v []float64
	if err == nil {
		v, err = a.Floats(GenericMemberValues)
	}
	if err != nil {
		return nil, fmt.Errorf("input %q from %s: %w", slot, job.InputLabels[slot][i], err)
	}
	return v, nil
}

var genericOutput = []registry.Output{{Name: "out", Kind: schema.KindValue, Doc: `float vector (member "values")`}}

func genericValueType() *registry.Type {
	return &registry.Type{
		Name: "value", Version: "1",
		Doc:     "Emits the float vector given as its values parameter.",
		Params:  []registry.Param{{Name: "values", Type: registry.Floats, Required: true, Doc: "the vector to emit"}},
		Outputs: genericOutput,
		Run: func(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
			return genericOut(append([]float64{}, job.Params.Floats("values")...)), nil
		},
	}
}

func genericRandomType() *registry.Type {
	return &registry.Type{
		Name: "random", Version: "2", // 2: common random numbers: draws from the seed and the stage type, not the cache key
		Doc: "Emits a vector of n random numbers drawn from the stage's seeded generator " +
			"(derived from seed and the stage type, so another n draws the same stream): standard normal or uniform on [0,1).",
		Params: []registry.Param{
			{Name: "n", Type: registry.Int, Range: registry.Between(0, 16777216), Default: 10, Doc: "length of the vector (0 … 16777216)"},
			{Name: "seed", Type: registry.Int, Range: registry.AtLeast(0), Default: 0, Doc: "seed; different seeds give independent vectors"},
			{Name: "dist", Type: registry.String, Default: "normal", Enum: []string{"normal", "uniform"}, Doc: "distribution"},
		},
		Outputs: genericOutput,
		Run: func(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
			n := job.Params.Int("n")
			if n < 0 || n > genericMaxLen {
				return nil, fmt.Errorf("n = %d: want 0 … %d", n, genericMaxLen)
			}
			v := make([]float64, n)
			normal := job.Params.String("dist") == "normal"
			for i := range v {
				if normal {
					v[i] = job.RNG.NormFloat64()
				} else {
					v[i] = job.RNG.Float64()
				}
			}
			return genericOut(v), nil
		},
	}
}

func genericScaleType() *registry.Type {
	return &registry.Type{
		Name: "scale", Version: "1",
		Doc: "Emits factor·x + offset for its input vector x.",
		Params: []registry.Param{
			{Name: "factor", Type: registry.Float, Default: 1.0, Doc: "multiplier"},
			{Name: "offset", Type: registry.Float, Default: 0.0, Doc: "added after multiplying"},
		},
		Inputs:  []registry.Input{{Name: "in", Kind: schema.KindValue, Doc: "the vector x"}},
		Outputs: genericOutput,
		Run: func(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
			x, err := genericInput(job, "in", 0)
			if err != nil {
				return nil, err
			}
			f, o := job.Params.Float("factor"), job.Params.Float("offset")
			y := make([]float64, len(x))
			for i, xi := range x {
				y[i] = f*xi + o
			}
			return genericOut(y), nil
		},
	}
}

func genericSumType() *registry.Type {
	return &registry.Type{
		Name: "sum", Version: "1",
		Doc: "Adds its input vectors elementwise (in input order; all must have the same length) and " +
			"reports metrics: total (sum of the result), mean, count (number of inputs) and length.",
		Inputs: []registry.Input{{Name: "in", Kind: schema.KindValue, Many: true, Doc: "the vectors to add"}},
		Outputs: []registry.Output{
			{Name: "out", Kind: schema.KindValue, Doc: `the elementwise sum (member "values")`},
			{Name: "metrics", Kind: schema.KindMetrics, Doc: `JSON member "metrics": total, mean, count, length`},
		},
		Run: func(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
			var acc []float64
			for i := range job.Inputs["in"] {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				x, err := genericInput(job, "in", i)
				if err != nil {
					return nil, err
				}
				if i == 0 {
					acc = make([]float64, len(x))
				} else if len(x) != len(acc) {
					return nil, fmt.Errorf("input %q from %s has length %d, the first (from %s) %d",
						"in", job.InputLabels["in"][i], len(x), job.InputLabels["in"][0], len(acc))
				}
				for j, xj := range x {
					acc[j] += xj
				}
				job.Progress.Report(i+1, len(job.Inputs["in"]), "")
			}
			if acc == nil {
				acc = []float64{}
			}
			total := 0.0
			for _, v := range acc {
				total += v
			}
			mean := 0.0
			if len(acc) > 0 {
				mean = total / float64(len(acc))
			}
			m := bundle.New(schema.KindMetrics)
			if math.IsNaN(total) || math.IsInf(total, 0) {
				return nil, fmt.Errorf("the sum is not finite (%v)", total)
			}
			if err := m.SetJSON(schema.MemberMetrics, map[string]any{
				"total": total, "mean": mean, "count": len(job.Inputs["in"]), "length": len(acc),
			}); err != nil {
				return nil, err
			}
			return map[string]artifact.Artifact{"out": genericVector(acc), "metrics": m}, nil
		},
	}
}

func genericSleepType() *registry.Type {
	return &registry.Type{
		Name: "sleep", Version: "1",
		Doc: "Waits ms milliseconds (reporting progress, stopping at once when canceled), then emits its " +
			"input vector unchanged, or an empty vector without input.",
		Params:  []registry.Param{{Name: "ms", Type: registry.Int, Range: registry.Between(0, 86400000), Default: 100, Doc: "milliseconds to wait (0 … 86400000)"}},
		Inputs:  []registry.Input{{Name: "in", Kind: schema.KindValue, Optional: true, Doc: "the vector to pass on"}},
		Outputs: genericOutput,
		Run: func(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
			ms := job.Params.Int("ms")
			if ms < 0 || ms > 86400000 {
				return nil, fmt.Errorf("ms = %d: want 0 … 86400000", ms)
			}
			deadline := time.Now().Add(time.Duration(ms) * time.Millisecond)
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				left := time.Until(deadline)
				if left <= 0 {
					break
				}
				job.Progress.Report(ms-int(left.Milliseconds()), ms, "sleeping")
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-tick.C:
				case <-time.After(left):
				}
			}
			v := []float64{}
			if len(job.Inputs["in"]) == 1 {
				x, err := genericInput(job, "in", 0)
				if err != nil {
					return nil, err
				}
				v = append(v, x...)
			}
			return genericOut(v), nil
		},
	}
}

func genericFailType() *registry.Type {
	return &registry.Type{
		Name: "fail", Version: "1",
		Doc: "Always fails with its message (after waiting ms milliseconds): for testing failure handling.",
		Params: []registry.Param{
			{Name: "message", Type: registry.String, Default: "this stage always fails", Doc: "the error message"},
			{Name: "ms", Type: registry.Int, Range: registry.Between(0, 86400000), Default: 0, Doc: "milliseconds to wait before failing"},
		},
		Inputs:  []registry.Input{{Name: "in", Kind: artifact.KindAny, Optional: true, Doc: "ignored; orders the stage after another"}},
		Outputs: genericOutput,
		Run: func(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(max(0, job.Params.Int("ms"))) * time.Millisecond):
			}
			return nil, errors.New(job.Params.String("message"))
		},
	}
}
