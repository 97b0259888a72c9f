package stages

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

type genericTestProgress struct{ reports int }

func (p *genericTestProgress) Report(done, total int, msg string) { p.reports++ }

// genericTestJob builds a Job for stage type name: params over the
// defaults, inputs as float vectors labelled in0, in1, … .
func genericTestJob(t *testing.T, name string, params registry.Values, inputs ...[]float64) (*registry.Type, *registry.Job) {
	t.Helper()
	typ, ok := Default().Lookup(name)
	if !ok {
		t.Fatalf("no stage type %q", name)
	}
	v := registry.Values{}
	for _, p := range typ.Params {
		v[p.Name] = p.Default
	}
	for k, x := range params {
		v[k] = x
	}
	job := &registry.Job{Address: name + ".t", Key: "k", Params: v, Seed: 42, RNG: rand.New(rand.NewPCG(42, 7)),
		Progress: &genericTestProgress{}, Logf: func(string, ...any) {}, Workers: 1,
		Inputs: map[string][]artifact.Artifact{}, InputLabels: map[string][]string{}}
	for i, in := range inputs {
		job.Inputs["in"] = append(job.Inputs["in"], genericVector(in))
		job.InputLabels["in"] = append(job.InputLabels["in"], "in"+string(rune('0'+i)))
	}
	return typ, job
}

func genericTestValues(t *testing.T, outs map[string]*bundle.Bundle) []float64 {
	t.Helper()
	v, err := outs["out"].Floats(GenericMemberValues)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestGenericStages(t *testing.T) {
	tests := []struct {
		name   string
		typ    string
		params registry.Values
		inputs [][]float64
		want   []float64
		err    string
	}{
		{name: "value", typ: "value", params: registry.Values{"values": []float64{1, -2.5, 1e300}}, want: []float64{1, -2.5, 1e300}},
		{name: "value empty", typ: "value", params: registry.Values{"values": []float64{}}, want: []float64{}},
		{name: "scale", typ: "scale", params: registry.Values{"factor": -2.0, "offset": 0.25}, inputs: [][]float64{{1, 0, 3}}, want: []float64{-1.75, 0.25, -5.75}},
		{name: "sum", typ: "sum", inputs: [][]float64{{1, 2}, {10, 20}, {100, 200}}, want: []float64{111, 222}},
		{name: "sum mismatch", typ: "sum", inputs: [][]float64{{1, 2}, {1}}, err: `input "in" from in1 has length 1, the first (from in0) 2`},
		{name: "sum overflow", typ: "sum", inputs: [][]float64{{math.MaxFloat64}, {math.MaxFloat64}}, err: "not finite"},
		{name: "sleep passes input", typ: "sleep", params: registry.Values{"ms": 30}, inputs: [][]float64{{4, 5}}, want: []float64{4, 5}},
		{name: "sleep without input", typ: "sleep", params: registry.Values{"ms": 0}, want: []float64{}},
		{name: "sleep bad ms", typ: "sleep", params: registry.Values{"ms": -1}, err: "ms = -1"},
		{name: "fail", typ: "fail", params: registry.Values{"message": "as asked"}, err: "as asked"},
		{name: "random bad n", typ: "random", params: registry.Values{"n": -3}, err: "n = -3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, job := genericTestJob(t, tt.typ, tt.params, tt.inputs...)
			outs, err := testBundles(typ.Run(context.Background(), job))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range typ.Outputs {
				if outs[o.Name] == nil || outs[o.Name].Kind() != o.Kind {
					t.Fatalf("output %q missing or of the wrong kind", o.Name)
				}
			}
			got := genericTestValues(t, outs)
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestGenericSumMetrics(t *testing.T) {
	typ, job := genericTestJob(t, "sum", nil, []float64{1, 2, 3}, []float64{0.5, 0.5, 1})
	outs, err := testBundles(typ.Run(context.Background(), job))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]float64
	if err := outs["metrics"].JSON(schema.MemberMetrics, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"total": 8, "mean": 8.0 / 3, "count": 2, "length": 3}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("metric %s = %v, want %v", k, m[k], v)
		}
	}
	if p := job.Progress.(*genericTestProgress).reports; p != 2 {
		t.Errorf("%d progress reports, want one per input (2)", p)
	}
}

func TestGenericRandomUsesJobRNG(t *testing.T) {
	for _, dist := range []string{"normal", "uniform"} {
		typ, job := genericTestJob(t, "random", registry.Values{"n": 1000, "dist": dist})
		outs, err := testBundles(typ.Run(context.Background(), job))
		if err != nil {
			t.Fatal(err)
		}
		got := genericTestValues(t, outs)
		rng := rand.New(rand.NewPCG(42, 7))
		mean := 0.0
		for i, x := range got {
			var want float64
			if dist == "normal" {
				want = rng.NormFloat64()
			} else {
				want = rng.Float64()
				if x < 0 || x >= 1 {
					t.Fatalf("uniform draw %v outside [0,1)", x)
				}
			}
			if x != want {
				t.Fatalf("%s draw %d = %v, want %v from the job's RNG", dist, i, x, want)
			}
			mean += x / float64(len(got))
		}
		wantMean := map[string]float64{"normal": 0, "uniform": 0.5}[dist]
		if math.Abs(mean-wantMean) > 0.1 {
			t.Errorf("%s mean %v, want about %v", dist, mean, wantMean)
		}
	}
}

func TestGenericSleepCancels(t *testing.T) {
	typ, job := genericTestJob(t, "sleep", registry.Values{"ms": 60000})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := typ.Run(ctx, job)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want the context's", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancellation took %v", d)
	}
	if job.Progress.(*genericTestProgress).reports == 0 {
		t.Error("no progress reported while sleeping")
	}
}

func TestGenericFailHonoursCancel(t *testing.T) {
	typ, job := genericTestJob(t, "fail", registry.Values{"ms": 60000})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := typ.Run(ctx, job); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}
