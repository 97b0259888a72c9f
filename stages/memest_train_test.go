package stages

import (
	"math"
	"testing"

	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// trainMemCase is one measured train stage of Table 2's transductive
// block: its inputs as the runner describes them (stored bytes and the
// shapes bundle.Shapes reads from the Table 2 cache: the factored X's
// columns, the corpus's classes, the samples' omega) and the peak RSS of
// `hylaflow run --only` on it with every input cached
// (docs/performance.md, "Table 2's inductive X, never formed").
type trainMemCase struct {
	name         string
	featureBytes int64
	cols         int
	classes      int
	binary       bool
	sampleBytes  int64
	omega        []int // D × dim; nil for sgc
	vals         registry.Values
	peakMiB      int64
}

func (c trainMemCase) inputs() map[string][]registry.InputSize {
	binary := 0
	if c.binary {
		binary = 1
	}
	feats := map[string][]int{
		schema.MemberXCols: {c.cols}, schema.MemberXLo: {c.cols}, schema.MemberXHi: {c.cols},
		schema.MemberInfo + ".classes": {c.classes}, schema.MemberInfo + ".binary": {binary},
	}
	in := map[string][]registry.InputSize{"features": {{Kind: schema.KindFeatures, Bytes: c.featureBytes, Shapes: feats}}}
	if c.omega != nil {
		in["samples"] = []registry.InputSize{{Kind: schema.KindSamples, Bytes: c.sampleBytes, Shapes: map[string][]int{schema.MemberOmega: c.omega, schema.MemberB: {c.omega[0]}}}}
	}
	return in
}

// The train stage's estimates for Table 2's transductive models are at
// least the measured peak and at most about twice it; R52's TextSGC, whose
// peak is L-BFGS's history, included.
func TestMemTrainAgainstMeasuredPeaks(t *testing.T) {
	textsgc := registry.Values{"model": "sgc", "level": "features", "optimizer": "lbfgs", "epochs": 3}
	hyla := registry.Values{"model": "hyla", "level": "features", "optimizer": "adam", "epochs": 200}
	rff := registry.Values{"model": "rff", "level": "features", "optimizer": "adam", "epochs": 200}
	// mib converts a peak quoted in GB (10⁹ bytes) to MiB, rounded up.
	mib := func(gb float64) int64 { return int64(math.Ceil(gb * 1e9 / (1 << 20))) }
	for _, tc := range []trainMemCase{
		{name: "r52 textsgc", featureBytes: 58669211, cols: 17992, classes: 52, vals: textsgc, peakMiB: mib(1.11)},
		{name: "ohsumed textsgc", featureBytes: 104832275, cols: 21557, classes: 23, vals: textsgc, peakMiB: mib(0.69)},
		{name: "ohsumed hyla-sgc", featureBytes: 104832275, cols: 21557, classes: 23, sampleBytes: 209000, omega: []int{500, 50}, vals: hyla, peakMiB: mib(0.50)},
		{name: "ohsumed rff-sgc", featureBytes: 104832275, cols: 21557, classes: 23, sampleBytes: 204884, omega: []int{500, 50}, vals: rff, peakMiB: mib(0.49)},
		{name: "mr hyla-sgc", featureBytes: 26824480, cols: 29426, classes: 2, binary: true, sampleBytes: 129149, omega: []int{500, 30}, vals: hyla, peakMiB: mib(0.36)},
		{name: "mr rff-sgc", featureBytes: 26824480, cols: 29426, classes: 2, binary: true, sampleBytes: 124884, omega: []int{500, 30}, vals: rff, peakMiB: mib(0.36)},
		{name: "mr textsgc", featureBytes: 26824480, cols: 29426, classes: 2, binary: true, vals: textsgc, peakMiB: mib(0.12)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			est := memTrain(tc.vals, tc.inputs()) >> 20
			if est < tc.peakMiB || est > 2*tc.peakMiB {
				t.Errorf("estimate %d MiB, measured peak %d MiB: want between 1 and 2 times the peak", est, tc.peakMiB)
			}
		})
	}
}

// Without the classes or the samples' shape the estimate is the inputs'
// share alone; L-BFGS's history grows with the epochs up to 100 pairs.
func TestMemTrainUnknownShapesAndHistory(t *testing.T) {
	base := func(in map[string][]registry.InputSize) int64 { return memInputBytes(in)*9/5 + 2*memBase }
	r52 := trainMemCase{featureBytes: 58669211, cols: 17992, classes: 52}
	noClasses := r52.inputs()
	delete(noClasses["features"][0].Shapes, schema.MemberInfo+".classes")
	lbfgs := func(epochs int) registry.Values {
		return registry.Values{"model": "sgc", "level": "features", "optimizer": "lbfgs", "epochs": epochs}
	}
	if got, want := memTrain(lbfgs(3), noClasses), base(noClasses); got != want {
		t.Errorf("no classes: %d, want the inputs' share %d", got, want)
	}
	hyla := registry.Values{"model": "hyla", "level": "features", "optimizer": "adam", "epochs": 200}
	if in := r52.inputs(); memTrain(hyla, in) != base(in) {
		t.Errorf("hyla without samples: %d, want the inputs' share %d", memTrain(hyla, in), base(in))
	}
	params := int64(52*17992 + 52)
	for _, tc := range []struct{ epochs, pairs int64 }{{1, 20}, {3, 60}, {5, 100}, {400, 100}} {
		in := r52.inputs()
		want := base(in) + trainClassifierArrays*params*8 + (2*tc.pairs+6)*params*8
		if got := memTrain(lbfgs(int(tc.epochs)), in); got != want {
			t.Errorf("%d epochs: %d, want %d (%d pairs)", tc.epochs, got, want, tc.pairs)
		}
	}
}
