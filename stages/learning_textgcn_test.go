package stages

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// textGCNToyRoot writes a small TextGCN-format corpus "toy" (meta file and
// cleaned corpus) under a temporary data root: docs documents of three
// classes, each drawing most of its words from its class's ten words;
// every fourth document is a test document.
func textGCNToyRoot(t *testing.T, docs int) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "textgcn")
	if err := os.MkdirAll(filepath.Join(dir, "corpus"), 0o755); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	var meta, corpus strings.Builder
	for i := 0; i < docs; i++ {
		y := i % 3
		split := "train"
		if (i/3)%4 == 1 {
			split = "test"
		}
		fmt.Fprintf(&meta, "d%d\t%s\tc%d\n", i, split, y)
		var words []string
		for k := 0; k < 12; k++ {
			c := y
			if rng.Float64() < 0.3 {
				c = rng.IntN(3)
			}
			words = append(words, fmt.Sprintf("w%d_%d", c, rng.IntN(10)))
		}
		corpus.WriteString(strings.Join(words, " ") + "\n")
	}
	for name, s := range map[string]string{"toy.txt": meta.String(), "corpus/toy.clean.txt": corpus.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestTextGCNStage(t *testing.T) {
	root := textGCNToyRoot(t, 240)
	for _, view := range []string{"transductive", "inductive_corpus"} {
		t.Run(view, func(t *testing.T) {
			g := learnRun(t, "dataset", map[string]any{"source": "textgcn", "name": "toy", "root": root, "view": view}, nil, 1, 2)["graph"]
			g = learnRun(t, "normalize", nil, map[string][]*bundle.Bundle{"graph": {g}}, 1, 2)["graph"]
			var tests []float64
			for _, workers := range []int{1, 2} {
				out := learnRun(t, "textgcn", map[string]any{"hidden": 16, "seed": 2}, map[string][]*bundle.Bundle{"graph": {g}}, 5, workers)
				var m map[string]any
				if err := out["metrics"].JSON(schema.MemberMetrics, &m); err != nil {
					t.Fatal(err)
				}
				want := map[string]string{"transductive": "transductive", "inductive_corpus": "inductive"}[view]
				if m["model"] != "textgcn" || m["setting"] != want {
					t.Errorf("metrics name model %v, setting %v; want textgcn, %s", m["model"], m["setting"], want)
				}
				test, _ := m["test"].(float64)
				if test < 0.85 {
					t.Errorf("test accuracy %v on the toy corpus, want ≥ 0.85", test)
				}
				tests = append(tests, test)
				w1, err := out["model"].Dense("W1")
				if err != nil {
					t.Fatal(err)
				}
				var info schema.GraphInfo
				if err := g.JSON(schema.MemberInfo, &info); err != nil {
					t.Fatal(err)
				}
				// One W1 row per node; in the inductive graph none for
				// the 60 test documents.
				wantRows := info.Nodes
				if view == "inductive_corpus" {
					wantRows -= 60
				}
				if r, c := w1.Dims(); r != wantRows || c != 16 {
					t.Errorf("W1 is %d×%d, want %d×16", r, c, wantRows)
				}
			}
			if tests[0] != tests[1] {
				t.Errorf("test accuracy %v with 1 worker, %v with 2", tests[0], tests[1])
			}
		})
	}
}

func TestTextGCNStageErrors(t *testing.T) {
	root := textGCNToyRoot(t, 60)
	raw := learnRun(t, "dataset", map[string]any{"source": "textgcn", "name": "toy", "root": root}, nil, 1, 1)["graph"]
	disease, _ := gnnGraph(t, true)
	for _, tc := range []struct {
		name  string
		graph *bundle.Bundle
		want  string
	}{
		{"unnormalised", raw, "not normalised"},
		{"not a corpus", disease, "not a corpus graph"},
	} {
		_, err := learnRunErr("textgcn", nil, map[string][]*bundle.Bundle{"graph": {tc.graph}}, 1, 1, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// The estimate covers TextGCN's arrays: it grows with the nodes, the
// hidden width and the classes; without the classes the hidden width
// stands in for them.
func TestMemTextGCN(t *testing.T) {
	in := func(n, classes int) map[string][]registry.InputSize {
		sh := map[string][]int{schema.MemberAdj: {n, n}}
		if classes > 0 {
			sh[schema.MemberInfo+".classes"] = []int{classes}
		}
		return map[string][]registry.InputSize{"graph": {{Bytes: 1 << 20, Shapes: sh}}}
	}
	vals := func(h int) registry.Values { return registry.Values{"hidden": h} }
	if got, want := memTextGCN(vals(200), in(10000, 0)), int64(2<<20)+memBase+(textGCNDenseArrays+textGCNClassArrays)*10000*200*8; got != want {
		t.Errorf("estimate for 10 000 nodes, classes unknown: %d, want %d", got, want)
	}
	if got, want := memTextGCN(vals(200), in(10000, 8)), int64(2<<20)+memBase+textGCNDenseArrays*10000*200*8+textGCNClassArrays*10000*8*8; got != want {
		t.Errorf("estimate for 10 000 nodes, 8 classes: %d, want %d", got, want)
	}
	small, big, wide, many := memTextGCN(vals(200), in(1000, 8)), memTextGCN(vals(200), in(10000, 8)), memTextGCN(vals(400), in(10000, 8)), memTextGCN(vals(200), in(10000, 52))
	if !(small < big && big < wide && big < many) {
		t.Errorf("estimates %d (1 000 nodes), %d (10 000), %d (hidden 400), %d (52 classes) do not grow", small, big, wide, many)
	}
	if got := memTextGCN(vals(200), map[string][]registry.InputSize{"graph": {{Bytes: 1 << 20}}}); got != int64(2<<20)+memBase {
		t.Errorf("shapes unknown: %d, want the inputs' share", got)
	}
}

// The estimates of Table 2's eight TextGCN stages are at least their
// measured peak RSS and at most twice it: `hylaflow run -j 1 --only` of
// one stage with its graph cached, seed 0, validated values
// (docs/performance.md, "TextGCN's memory"). The stored sizes and shapes are those of the
// normalised corpus graphs in the Table 2 cache.
func TestMemTextGCNAgainstMeasuredPeaks(t *testing.T) {
	for _, tc := range []struct {
		name           string
		bytes          int64
		nodes, classes int
		peakKiB        int64 // /usr/bin/time's %M
	}{
		{"r8 inductive", 70242271, 15196, 8, 802016},
		{"r52 inductive", 88092389, 17795, 52, 1266268},
		{"ohsumed inductive", 117914837, 20424, 23, 1067656},
		{"mr inductive", 35046750, 26186, 2, 832340},
		{"r8 transductive", 84356912, 15362, 8, 825084},
		{"r52 transductive", 106044522, 17992, 52, 1372276},
		{"ohsumed transductive", 193929090, 21557, 23, 1345536},
		{"mr transductive", 46706719, 29426, 2, 967664},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := map[string][]registry.InputSize{"graph": {{Kind: schema.KindGraph, Bytes: tc.bytes, Shapes: map[string][]int{
				schema.MemberAdj: {tc.nodes, tc.nodes}, schema.MemberInfo + ".classes": {tc.classes},
			}}}}
			est, peak := memTextGCN(registry.Values{"hidden": 200}, in), tc.peakKiB<<10
			if est < peak || est > 2*peak {
				t.Errorf("estimate %d MiB, measured peak %d MiB: want between 1 and 2 times the peak", est>>20, peak>>20)
			}
		})
	}
}
