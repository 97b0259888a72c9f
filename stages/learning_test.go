package stages

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/table"
)

type learnNopProgress struct{}

func (learnNopProgress) Report(int, int, string) {}

// learnRun runs stage typ with params (defaults filled in) and inputs; the
// job's RNG is seeded from seed.
func learnRun(t testing.TB, typ string, params map[string]any, inputs map[string][]*bundle.Bundle, seed uint64, workers int) map[string]*bundle.Bundle {
	t.Helper()
	out, err := learnRunErr(typ, params, inputs, seed, workers, nil)
	if err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	return out
}

func learnRunErr(typ string, params map[string]any, inputs map[string][]*bundle.Bundle, seed uint64, workers int, logf func(string, ...any)) (map[string]*bundle.Bundle, error) {
	st, ok := Default().Lookup(typ)
	if !ok {
		return nil, fmt.Errorf("no stage type %q", typ)
	}
	vals := registry.Values{}
	for _, p := range st.Params {
		if v, ok := params[p.Name]; ok {
			vals[p.Name] = v
		} else if !p.Required {
			vals[p.Name] = p.Default
		}
	}
	if logf == nil {
		logf = func(string, ...any) {}
	}
	labels := map[string][]string{}
	for k, v := range inputs {
		for i := range v {
			labels[k] = append(labels[k], fmt.Sprintf("%s[%d]", k, i))
		}
	}
	job := &registry.Job{Address: typ + ".test", Key: "k", Params: vals, Inputs: testInputs(inputs), InputLabels: labels,
		Seed: seed, RNG: rand.New(rand.NewPCG(seed, 0x1ea)), Progress: learnNopProgress{}, Logf: logf, Workers: workers}
	return testBundles(st.Run(context.Background(), job))
}

// learnDataRoot is the shared datasets folder (testenv.Data: skips without
// it, fails on CI).
func learnDataRoot(t testing.TB) string {
	t.Helper()
	return testenv.Data(t)
}

// learnPrecompute runs dataset → normalize → [split] → precompute with
// the given parameters (nil = defaults; split nil = no split stage).
func learnPrecompute(t testing.TB, dataset, norm, split, pre map[string]any) *bundle.Bundle {
	t.Helper()
	g := learnRun(t, "dataset", dataset, nil, 1, 2)["graph"]
	g = learnRun(t, "normalize", norm, map[string][]*bundle.Bundle{"graph": {g}}, 1, 2)["graph"]
	in := map[string][]*bundle.Bundle{"graph": {g}}
	if split != nil {
		in["split"] = []*bundle.Bundle{learnRun(t, "split", split, map[string][]*bundle.Bundle{"graph": {g}}, 1, 2)["split"]}
	}
	return learnRun(t, "precompute", pre, in, 1, 2)["features"]
}

func learnMetricsOf(t testing.TB, a *bundle.Bundle) learnMetrics {
	t.Helper()
	var m learnMetrics
	if err := a.JSON(schema.MemberMetrics, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// learnSeeds trains `seeds` seeds and returns the test metrics in percent
// and the mean time per epoch.
func learnSeeds(t testing.TB, feats *bundle.Bundle, sample, trainP map[string]any, seeds int) ([]float64, []float64, time.Duration) {
	var test, best []float64
	var total time.Duration
	epochs := 0
	for s := 0; s < seeds; s++ {
		in := map[string][]*bundle.Bundle{"features": {feats}}
		if sample != nil {
			sp := map[string]any{"seed": s}
			for k, v := range sample {
				sp[k] = v
			}
			in["samples"] = []*bundle.Bundle{learnRun(t, "sample", sp, nil, uint64(s)+100, 2)["samples"]}
		}
		tp := map[string]any{"seed": s}
		for k, v := range trainP {
			tp[k] = v
		}
		start := time.Now()
		out := learnRun(t, "train", tp, in, uint64(s)+200, 2)
		total += time.Since(start)
		m := learnMetricsOf(t, out["metrics"])
		epochs += m.Epochs
		test = append(test, 100*m.Test)
		best = append(best, 100*m.TestBestVal)
	}
	return test, best, total / time.Duration(max(epochs, 1))
}

// TestLearnCoraHyLa trains feature-level HyLa-SGC on the real Cora files
// with the official code's tuned JSON values (d0 16, D 100, K 2, s 0.01,
// lr_e 0.05, lr_c 0.01, 100 epochs) over seeds and checks the accuracy is
// where the official code lands on this machine (79.3 ± 2.2 over 10 seeds):
// a mean within a few points of it, every seed far above chance.
func TestLearnCoraHyLa(t *testing.T) {
	root := learnDataRoot(t)
	feats := learnPrecompute(t, map[string]any{"source": "planetoid", "name": "cora", "root": root}, nil, nil, map[string]any{"k": 2})
	seeds := 10
	if testing.Short() {
		seeds = 3
	}
	test, best, perEpoch := learnSeeds(t, feats,
		map[string]any{"kind": "hyla", "dim": 16, "features": 100, "scale": 0.01},
		map[string]any{"model": "hyla", "lr_embedding": 0.05, "lr_classifier": 0.01, "epochs": 100}, seeds)
	mean, std := learnMeanStd(test)
	bm, bs := learnMeanStd(best)
	t.Logf("Cora HyLa-SGC (JSON values), %d seeds: test %.1f ± %.1f (last epoch), %.1f ± %.1f (best val); %v per epoch; %v",
		seeds, mean, std, bm, bs, perEpoch, test)
	if mean < 76 || mean > 86 {
		t.Errorf("Cora HyLa-SGC mean test accuracy %.1f, want 76..86 (official code 79.3 ± 2.2, paper 82.5)", mean)
	}
	for i, v := range test {
		if v < 60 {
			t.Errorf("seed %d: test accuracy %.1f", i, v)
		}
	}
}

// TestLearnCoraSGC: SGC (K = 2, no embedding; row-normalised features, lr
// 0.2 and a small weight decay as in Wu et al.'s code) on Cora reaches the
// paper's 81.0 within 1.5 points.
func TestLearnCoraSGC(t *testing.T) {
	root := learnDataRoot(t)
	feats := learnPrecompute(t, map[string]any{"source": "planetoid", "name": "cora", "root": root},
		map[string]any{"features": "row"}, nil, map[string]any{"k": 2})
	test, _, perEpoch := learnSeeds(t, feats, nil, map[string]any{"model": "sgc", "lr_classifier": 0.2, "epochs": 100, "weight_decay": 5e-6}, 2)
	mean, _ := learnMeanStd(test)
	t.Logf("Cora SGC: %v, %v per epoch", test, perEpoch)
	if mean < 79.5 {
		t.Errorf("Cora SGC test accuracy %.1f, want ≥ 79.5 (paper 81.0)", mean)
	}
}

// TestLearnAirportHyLa trains node-level HyLa-SGC on the real Airport
// graph with the official JSON values (d0 16, D 1000, K 2, s 0.01, lr_e 0.5,
// lr_c 0.1, 100 epochs) on the official code's split (hgcn_split variant
// code, whose test entries overlap training). The official code gets
// 94.5 ± 1.3 on this machine, the paper 95.2 ± 0.5; on the disjoint split
// the same runs give 85–89.
func TestLearnAirportHyLa(t *testing.T) {
	root := learnDataRoot(t)
	seeds := 2
	if testing.Short() {
		seeds = 1
	}
	g := learnRun(t, "dataset", map[string]any{"source": "hgcn", "name": "airport", "root": root}, nil, 1, 2)["graph"]
	g = learnRun(t, "normalize", nil, map[string][]*bundle.Bundle{"graph": {g}}, 1, 2)["graph"]
	var test []float64
	var perEpoch time.Duration
	for s := 0; s < seeds; s++ {
		sp := learnRun(t, "hgcn_split", map[string]any{"variant": "code", "seed": s}, map[string][]*bundle.Bundle{"graph": {g}}, 1, 2)["split"]
		feats := learnRun(t, "precompute", map[string]any{"k": 2, "level": "nodes"},
			map[string][]*bundle.Bundle{"graph": {g}, "split": {sp}}, 1, 2)["features"]
		tt, _, pe := learnSeeds(t, feats,
			map[string]any{"kind": "hyla", "dim": 16, "features": 1000, "scale": 0.01, "seed": s},
			map[string]any{"model": "hyla", "level": "nodes", "lr_embedding": 0.5, "lr_classifier": 0.1, "epochs": 100}, 1)
		test = append(test, tt...)
		perEpoch += pe / time.Duration(seeds)
	}
	mean, std := learnMeanStd(test)
	t.Logf("Airport HyLa-SGC node level, %d seeds: test %.1f ± %.1f %v; %v per epoch", seeds, mean, std, test, perEpoch)
	if mean < 90 {
		t.Errorf("Airport mean test accuracy %.1f < 90 (official code 94.5 ± 1.3, paper 95.2)", mean)
	}
}

// learnMeanStd is the mean and sample std of the tables (package table),
// 0 for one value.
func learnMeanStd(v []float64) (float64, float64) {
	s := table.Summarize(v)
	return s.Mean, s.StdOr0()
}
