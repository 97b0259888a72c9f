package stages

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
	"gonum.org/v1/gonum/mat"
)

type visNopProgress struct{}

func (visNopProgress) Report(int, int, string) {}

func visRunStage(typ string, params map[string]any, inputs map[string][]*bundle.Bundle, seed uint64, workers int) (map[string]*bundle.Bundle, error) {
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
	job := &registry.Job{Address: typ + ".vis", Key: "k", Params: vals, Inputs: testInputs(inputs), Seed: seed,
		RNG: rand.New(rand.NewPCG(seed, 0x5715)), Progress: visNopProgress{}, Logf: func(string, ...any) {}, Workers: workers}
	return testBundles(st.Run(context.Background(), job))
}

func visMust(t *testing.T, typ, out string, params map[string]any, inputs map[string][]*bundle.Bundle) *bundle.Bundle {
	t.Helper()
	res, err := visRunStage(typ, params, inputs, 7, 2)
	if err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	return res[out]
}

// visPipeline is a small synthetic SBM graph (4 classes, its own split)
// through normalize, precompute, sample and train at the given level.
type visPipeline struct {
	feats, samples, model *bundle.Bundle
	metrics               learnMetrics
}

func visTrain(t *testing.T, level string) visPipeline {
	t.Helper()
	g := visMust(t, "dataset", "graph", map[string]any{"source": "synthetic", "name": "sbm", "nodes": 240, "edges": 1500,
		"features": 12, "classes": 4, "seed": 5}, nil)
	g = visMust(t, "normalize", "graph", nil, map[string][]*bundle.Bundle{"graph": {g}})
	feats := visMust(t, "precompute", "features", map[string]any{"k": 2, "level": level}, map[string][]*bundle.Bundle{"graph": {g}})
	samples := visMust(t, "sample", "samples", map[string]any{"kind": "hyla", "dim": 4, "features": 40, "scale": 0.5}, nil)
	lrE, lrC := 0.1, 0.05
	if level == "nodes" {
		lrE, lrC = 0.5, 0.1
	}
	out, err := visRunStage("train", map[string]any{"model": "hyla", "level": level, "lr_embedding": lrE, "lr_classifier": lrC,
		"epochs": 100}, map[string][]*bundle.Bundle{"features": {feats}, "samples": {samples}}, 9, 2)
	if err != nil {
		t.Fatal(err)
	}
	var m learnMetrics
	if err := out["metrics"].JSON(schema.MemberMetrics, &m); err != nil {
		t.Fatal(err)
	}
	return visPipeline{feats: feats, samples: samples, model: out["model"], metrics: m}
}

func (v visPipeline) inputs() map[string][]*bundle.Bundle {
	return map[string][]*bundle.Bundle{"features": {v.feats}, "samples": {v.samples}, "model": {v.model}}
}

// The recomputed representation is the one the classifier saw: the argmax of
// the logits on the test rows reproduces the train stage's test accuracy, at
// feature level ((S^K X)·φ(Z)) and at node level (S^K·φ(Z)), for the last
// and the best-validation state.
func TestVisualRepresentationMatchesTraining(t *testing.T) {
	for _, level := range []string{"features", "nodes"} {
		t.Run(level, func(t *testing.T) {
			v := visTrain(t, level)
			test, err := v.feats.Ints(schema.MemberTest)
			if err != nil {
				t.Fatal(err)
			}
			labels, _ := v.feats.Ints(schema.MemberLabels)
			for _, state := range []struct {
				name string
				want float64
			}{{"last", v.metrics.Test}, {"best", v.metrics.TestBestVal}} {
				st, _ := Default().Lookup("visualize")
				vals := registry.Values{}
				for _, p := range st.Params {
					vals[p.Name] = p.Default
				}
				vals["representation"], vals["state"] = "logits", state.name
				job := &registry.Job{Params: vals, Inputs: testInputs(v.inputs()), Workers: 2}
				logits, model, err := visRepresentation(context.Background(), job, v.feats, test, 2)
				if err != nil {
					t.Fatal(err)
				}
				if model != "hyla" {
					t.Errorf("model %q, want hyla", model)
				}
				right := 0
				for i, r := range test {
					if mat.Row(nil, i, logits) != nil && visArgmax(logits.RawRowView(i)) == labels[r] {
						right++
					}
				}
				acc := float64(right) / float64(len(test))
				if math.Abs(acc-state.want) > 1e-12 {
					t.Errorf("%s state: argmax of the recomputed logits gives %.4f, train reported %.4f", state.name, acc, state.want)
				}
				t.Logf("%s state: test accuracy %.4f", state.name, acc)
				if state.want < 0.5 {
					t.Errorf("%s state: test accuracy %.3f: the synthetic graph should be learnable (4 classes)", state.name, state.want)
				}
			}
		})
	}
}

func visArgmax(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// End to end through the stage function: t-SNE and PCA figures with their
// members, kNN scores that show the classes separate, and bit-identical
// output for different worker counts.
func TestVisualStageEndToEnd(t *testing.T) {
	v := visTrain(t, "features")
	labels, _ := v.feats.Ints(schema.MemberLabels)
	test, _ := v.feats.Ints(schema.MemberTest)
	for _, tc := range []struct {
		name   string
		params map[string]any
		rows   []int
		title  string
	}{
		{"tsne test", map[string]any{"method": "tsne", "perplexity": 15.0, "iterations": 600, "pca_dims": 10}, test, "t-SNE of HyLa features (test nodes)"},
		{"tsne all random", map[string]any{"method": "tsne", "rows": "all", "perplexity": 20.0, "iterations": 300, "init": "random"}, nil, "(all nodes)"},
		{"pca logits", map[string]any{"method": "pca", "representation": "logits"}, test, "PCA of HyLa-SGC logits"},
		{"pca subsample", map[string]any{"method": "pca", "rows": "all", "max_points": 100}, []int{-1}, "PCA of HyLa features (all nodes)"},
		{"pca input", map[string]any{"method": "pca", "representation": "input", "title": "custom", "class_names": []string{"zero", "one"}}, test, "custom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ref *bundle.Bundle
			for _, workers := range []int{1, 3} {
				out, err := visRunStage("visualize", tc.params, v.inputs(), 11, workers)
				if err != nil {
					t.Fatal(err)
				}
				fig := out["figure"]
				if fig.Kind() != schema.KindFigure {
					t.Fatalf("kind %s", fig.Kind())
				}
				coords, err := fig.Dense("coords")
				if err != nil {
					t.Fatal(err)
				}
				rows, _ := fig.Ints("rows")
				lab, _ := fig.Ints("labels")
				want := tc.rows
				if want == nil {
					want = make([]int, len(labels))
					for i := range want {
						want[i] = i
					}
				}
				if len(want) == 1 && want[0] == -1 { // max_points: 100 distinct nodes, increasing
					want = nil
					for k, r := range rows {
						if r < 0 || r >= len(labels) || k > 0 && r <= rows[k-1] {
							t.Fatalf("subsampled rows %v", rows)
						}
					}
					want = append(want, rows...)
					if len(want) != 100 {
						t.Fatalf("%d subsampled rows, want 100", len(want))
					}
				}
				if m, c := coords.Dims(); m != len(want) || c != 2 || len(rows) != m || len(lab) != m {
					t.Fatalf("coords %d×%d, %d rows, %d labels; want %d×2", m, c, len(rows), len(lab), len(want))
				}
				for i, r := range rows {
					if r != want[i] || lab[i] != labels[r] {
						t.Fatalf("row %d: node %d label %d, want node %d label %d", i, r, lab[i], want[i], labels[want[i]])
					}
				}
				pngb, _ := fig.File("scatter.png")
				if _, err := png.Decode(bytes.NewReader(pngb)); err != nil {
					t.Fatalf("scatter.png: %v", err)
				}
				svg, _ := fig.File("scatter.svg")
				if !bytes.Contains(svg, []byte(tc.title)) {
					t.Errorf("SVG lacks the title %q", tc.title)
				}
				if names, ok := tc.params["class_names"].([]string); ok {
					for _, want := range append(names, "class 2", "class 3") {
						if !bytes.Contains(svg, []byte(">"+want+"<")) {
							t.Errorf("SVG legend lacks %q", want)
						}
					}
				}
				var sum visSummary
				if err := fig.JSON("summary", &sum); err != nil {
					t.Fatal(err)
				}
				// 4 classes: chance is about 0.25. The trained HyLa features
				// separate them, and the 2-D picture keeps most of that.
				if sum.KNNInput < 0.8 || sum.KNN2D < 0.8 || sum.Preservation < 0.5 {
					t.Errorf("scores: 5-NN %.3f in 2-D, %.3f before; preservation %.3f", sum.KNN2D, sum.KNNInput, sum.Preservation)
				}
				if sum.Method == "tsne" && (sum.KL <= 0 || sum.EntropyError > 1e-6 || sum.Iterations != tc.params["iterations"]) {
					t.Errorf("t-SNE summary %+v", sum)
				}
				if sum.Method == "pca" && (len(sum.Explained) != 2 || sum.Explained[0] < sum.Explained[1] || sum.Explained[0]+sum.Explained[1] > 1+1e-12) {
					t.Errorf("PCA explained ratios %v", sum.Explained)
				}
				t.Logf("workers %d: %+v", workers, sum)
				if ref == nil {
					ref = fig
					continue
				}
				refCoords, _ := ref.Dense("coords")
				refPNG, _ := ref.File("scatter.png")
				if !mat.Equal(refCoords, coords) || !bytes.Equal(refPNG, pngb) {
					t.Error("output differs between 1 and 3 workers")
				}
			}
		})
	}
}

func TestVisualStageErrors(t *testing.T) {
	v := visTrain(t, "features")
	g := visMust(t, "dataset", "graph", map[string]any{"source": "synthetic", "name": "disease", "nodes": 60}, nil)
	g = visMust(t, "normalize", "graph", nil, map[string][]*bundle.Bundle{"graph": {g}})
	nosplit := visMust(t, "precompute", "features", nil, map[string][]*bundle.Bundle{"graph": {g}})
	for _, tc := range []struct {
		name   string
		params map[string]any
		inputs map[string][]*bundle.Bundle
		want   string
	}{
		{"no model", nil, map[string][]*bundle.Bundle{"features": {v.feats}}, "needs the model input"},
		{"no samples", nil, map[string][]*bundle.Bundle{"features": {v.feats}, "model": {v.model}}, "connect the samples input"},
		{"no split", map[string]any{"representation": "input"}, map[string][]*bundle.Bundle{"features": {nosplit}}, `rows "test"`},
		{"wrong graph", map[string]any{"rows": "all"}, map[string][]*bundle.Bundle{"features": {nosplit}, "model": {v.model}, "samples": {v.samples}}, "model Z has 12 rows"},
		{"perplexity", map[string]any{"perplexity": 500.0}, v.inputs(), "perplexity 500"},
		{"pca_dims", map[string]any{"pca_dims": -2}, v.inputs(), "pca_dims = -2"},
		{"max_points", map[string]any{"max_points": -1}, v.inputs(), "max_points = -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := visRunStage("visualize", tc.params, tc.inputs, 1, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// visDataRoot is the shared datasets folder (testenv.Data: skips without
// it, fails on CI).
func visDataRoot(t *testing.T) string {
	t.Helper()
	return testenv.Data(t)
}

// Figure 3 on the real Cora files: HyLa-SGC with the official JSON values,
// then t-SNE of the test nodes' learned features. The classes separate: the
// leave-one-out 5-NN accuracy in the 2-D picture is close to the model's own
// test accuracy (about 0.78) and far above the largest class (0.32).
func TestVisualCoraFigure(t *testing.T) {
	root := visDataRoot(t)
	g := visMust(t, "dataset", "graph", map[string]any{"source": "planetoid", "name": "cora", "root": root}, nil)
	g = visMust(t, "normalize", "graph", nil, map[string][]*bundle.Bundle{"graph": {g}})
	feats := visMust(t, "precompute", "features", map[string]any{"k": 2}, map[string][]*bundle.Bundle{"graph": {g}})
	samples := visMust(t, "sample", "samples", map[string]any{"kind": "hyla", "dim": 16, "features": 100, "scale": 0.01}, nil)
	out, err := visRunStage("train", map[string]any{"model": "hyla", "lr_embedding": 0.05, "lr_classifier": 0.01, "epochs": 100},
		map[string][]*bundle.Bundle{"features": {feats}, "samples": {samples}}, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	iters := 1000
	if testing.Short() {
		iters = 400
	}
	in := map[string][]*bundle.Bundle{"features": {feats}, "samples": {samples}, "model": {out["model"]}}
	fig, err := visRunStage("visualize", map[string]any{"iterations": iters}, in, 5, 2)
	if err != nil {
		t.Fatal(err)
	}
	var sum visSummary
	if err := fig["figure"].JSON("summary", &sum); err != nil {
		t.Fatal(err)
	}
	var m learnMetrics
	if err := out["metrics"].JSON(schema.MemberMetrics, &m); err != nil {
		t.Fatal(err)
	}
	t.Logf("test accuracy %.3f; t-SNE (%d steps) KL %.3f, 5-NN %.3f in 2-D, %.3f before, preservation %.3f",
		m.Test, iters, sum.KL, sum.KNN2D, sum.KNNInput, sum.Preservation)
	if sum.Points != 1000 || sum.InputDims != 100 || sum.ProjectedDims != 50 || sum.Classes != 7 {
		t.Errorf("summary %+v", sum)
	}
	if sum.KNNInput < 0.7 || sum.KNN2D < 0.65 || sum.Preservation < 0.55 {
		t.Errorf("5-NN accuracy %.3f in 2-D, %.3f before, 10-NN preservation %.3f: classes do not separate", sum.KNN2D, sum.KNNInput, sum.Preservation)
	}
}

func TestVisualPanels(t *testing.T) {
	v := visTrain(t, "features")
	var figs []*bundle.Bundle
	for _, params := range []map[string]any{
		{"method": "tsne", "rows": "all", "iterations": 300},
		{"method": "pca", "rows": "test"},
	} {
		out, err := visRunStage("visualize", params, v.inputs(), 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		figs = append(figs, out["figure"])
	}
	out, err := visRunStage("panels", map[string]any{"titles": []string{"Left panel"}, "class_names": []string{"zero"}},
		map[string][]*bundle.Bundle{"figures": figs}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	fig := out["figure"]
	b, _ := fig.File("panels.png")
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != 9*150 || h != 4*150 {
		t.Errorf("panels.png is %d×%d, want 1350×600 (two 4.5×4 in panels at 150 dpi)", w, h)
	}
	svg, _ := fig.File("panels.svg")
	for _, want := range []string{"Left panel", "PCA of HyLa features (test nodes)", ">zero<", ">class 3<", "PC 1 ("} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("panels.svg lacks %q", want)
		}
	}
	var sums []visSummary
	if err := fig.JSON("summary", &sums); err != nil {
		t.Fatal(err)
	}
	if len(sums) != 2 || sums[0].Method != "tsne" || sums[1].Method != "pca" || sums[1].Title != "synthetic_sbm: PCA of HyLa features (test nodes)" {
		t.Errorf("summaries %+v", sums)
	}
	for _, tc := range []struct {
		name   string
		params map[string]any
		figs   []*bundle.Bundle
		want   string
	}{
		{"no figures", nil, nil, "no figures"},
		{"not a visualize figure", nil, []*bundle.Bundle{bundle.New(schema.KindFigure)}, "is it a visualize figure"},
		{"too many titles", map[string]any{"titles": []string{"a", "b", "c"}}, figs, "3 titles for 2 figures"},
		{"panel size", map[string]any{"panel_width": 0.5}, figs, "panel size 0.5×4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := visRunStage("panels", tc.params, map[string][]*bundle.Bundle{"figures": tc.figs}, 1, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
